// matmul_backend.cpp: the backend switch of cpu::matmul (see matmul_backend.h).
#include "kernels/cpu/matmul_backend.h"

#include "core/check.h"
#include "kernels/cpu/matmul_onednn.h"

namespace scratchgpt::cpu {

namespace {
MatmulBackend g_backend = onednn::available() ? MatmulBackend::kOneDnn : MatmulBackend::kOwn;
constexpr const char* kNoOneDnn =
    "--matmul onednn needs a build with oneDNN: apt-get install libdnnl-dev and configure with "
    "-DSCRATCHGPT_DNNL=ON, or use --matmul own";
}  // namespace

const char* matmul_backend_name(MatmulBackend b) {
  return b == MatmulBackend::kOneDnn ? "onednn" : "own";
}

bool onednn_available() { return onednn::available(); }

MatmulBackend default_matmul_backend() {
  return onednn_available() ? MatmulBackend::kOneDnn : MatmulBackend::kOwn;
}

MatmulBackend matmul_backend() { return g_backend; }

void set_matmul_backend(MatmulBackend b) {
  SG_CHECK(b == MatmulBackend::kOwn || onednn_available(), kNoOneDnn);
  g_backend = b;
}

MatmulBackend parse_matmul_backend(const std::string& name) {
  if (name == "auto") return default_matmul_backend();
  if (name == "own") return MatmulBackend::kOwn;
  if (name == "onednn") {
    SG_CHECK(onednn_available(), kNoOneDnn);
    return MatmulBackend::kOneDnn;
  }
  fail("unknown --matmul '", name, "': choose auto, own or onednn");
}

}  // namespace scratchgpt::cpu
