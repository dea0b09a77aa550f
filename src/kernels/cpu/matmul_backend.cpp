// matmul_backend.cpp: the backend switch of cpu::matmul (see matmul_backend.h).
#include "kernels/cpu/matmul_backend.h"

#include "core/check.h"
#include "core/enum_names.h"
#include "kernels/cpu/matmul_onednn.h"

namespace scratchgpt::cpu {

namespace {
constexpr const char* kNoOneDnn =
    "--matmul onednn and mixed need a build with oneDNN: apt-get install libdnnl-dev and "
    "configure with -DSCRATCHGPT_DNNL=ON, or use --matmul own";
}  // namespace

const char* matmul_backend_name(MatmulBackend b) {
  return enum_name<MatmulBackend>(kMatmulBackendNames, b);
}

bool onednn_available() { return onednn::available(); }

bool onednn_below_avx512() { return onednn::below_avx512(); }

bool mixed_dinp_on_onednn(int C) { return !(C >= 512 && onednn_below_avx512()); }

bool onednn_has_amx() { return onednn::has_amx(); }

bool onednn_has_bf16() { return onednn::has_bf16(); }

bool bf16_on_onednn(MatmulBackend b) {
  switch (b == MatmulBackend::kAuto ? default_matmul_backend() : b) {
    case MatmulBackend::kOneDnn:
      return true;
    case MatmulBackend::kMixed:
      return onednn_has_amx();
    default:
      return false;
  }
}

MatmulBackend default_matmul_backend() {
  return onednn_available() ? MatmulBackend::kMixed : MatmulBackend::kOwn;
}

MatmulBackend resolve_matmul_backend(MatmulBackend b) {
  if (b == MatmulBackend::kAuto) return default_matmul_backend();
  SG_CHECK(b == MatmulBackend::kOwn || onednn_available(), kNoOneDnn);  // onednn or mixed
  return b;
}

MatmulBackend parse_matmul_backend(const std::string& name) {
  return resolve_matmul_backend(
      enum_from_name<MatmulBackend>(kMatmulBackendNames, name, "--matmul"));
}

}  // namespace scratchgpt::cpu
