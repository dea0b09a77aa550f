// cublas_loader.cu: the cuBLAS and cuBLASLt functions this backend calls, loaded on first use
// (dlopen) instead of linked. Linking libcublas makes every start of the program load and
// initialise libcublasLt (540 MB): about 120 ms of CPU before main, for every command, on the
// CPU too (`scratchgpt --help` took 0.2 s; the end-to-end tests start the program thousands of
// times). Each function below has the header's name and signature and forwards to the library's
// own; the first call opens both libraries and looks up every function on the list at once, so
// a missing library or function is one error at the first call, whichever it is (and the CPU
// test that makes one call checks them all).
// Leaves out: every cuBLAS function this backend does not call (add one line here to call one).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>

#include <string>

#include "core/check.h"

// Every function this backend calls: X(library, name, parameters, arguments).
#define SG_CUBLAS_FUNCTIONS(X)                                                                  \
  X(cublas, cublasCreate, (cublasHandle_t * handle), (handle))                                  \
  X(cublas, cublasGemmEx,                                                                       \
      (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,        \
      int n, int k, const void* alpha, const void* A, cudaDataType Atype, int lda,              \
      const void* B, cudaDataType Btype, int ldb, const void* beta, void* C,                    \
      cudaDataType Ctype, int ldc, cublasComputeType_t computeType, cublasGemmAlgo_t algo),     \
      (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype,    \
      ldc, computeType, algo))                                                                  \
  X(cublas, cublasGemmBatchedEx,                                                                \
      (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,        \
      int n, int k, const void* alpha, const void* const Aarray[], cudaDataType Atype,          \
      int lda, const void* const Barray[], cudaDataType Btype, int ldb, const void* beta,       \
      void* const Carray[], cudaDataType Ctype, int ldc, int batchCount,                        \
      cublasComputeType_t computeType, cublasGemmAlgo_t algo),                                  \
      (handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta,    \
      Carray, Ctype, ldc, batchCount, computeType, algo))                                       \
  X(cublaslt, cublasLtCreate, (cublasLtHandle_t * handle), (handle))                            \
  X(cublaslt, cublasLtMatmulDescCreate,                                                         \
      (cublasLtMatmulDesc_t * desc, cublasComputeType_t computeType, cudaDataType_t scaleType), \
      (desc, computeType, scaleType))                                                           \
  X(cublaslt, cublasLtMatmulDescSetAttribute,                                                   \
      (cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const void* buf,         \
      size_t sizeInBytes),                                                                      \
      (desc, attr, buf, sizeInBytes))                                                           \
  X(cublaslt, cublasLtMatrixLayoutCreate,                                                       \
      (cublasLtMatrixLayout_t * layout, cudaDataType type, uint64_t rows, uint64_t cols,        \
      int64_t ld),                                                                              \
      (layout, type, rows, cols, ld))                                                           \
  X(cublaslt, cublasLtMatmulPreferenceCreate, (cublasLtMatmulPreference_t * pref), (pref))      \
  X(cublaslt, cublasLtMatmulPreferenceDestroy, (cublasLtMatmulPreference_t pref), (pref))       \
  X(cublaslt, cublasLtMatmulPreferenceSetAttribute,                                             \
      (cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr,              \
      const void* buf, size_t sizeInBytes),                                                     \
      (pref, attr, buf, sizeInBytes))                                                           \
  X(cublaslt, cublasLtMatmulAlgoGetHeuristic,                                                   \
      (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,                        \
      cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,                               \
      cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,                               \
      cublasLtMatmulPreference_t preference, int requestedAlgoCount,                            \
      cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int* returnAlgoCount),           \
      (lightHandle, operationDesc, Adesc, Bdesc, Cdesc, Ddesc, preference,                      \
      requestedAlgoCount, heuristicResultsArray, returnAlgoCount))                              \
  X(cublaslt, cublasLtMatmul,                                                                   \
      (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void* alpha,       \
      const void* A, cublasLtMatrixLayout_t Adesc, const void* B,                               \
      cublasLtMatrixLayout_t Bdesc, const void* beta, const void* C,                            \
      cublasLtMatrixLayout_t Cdesc, void* D, cublasLtMatrixLayout_t Ddesc,                      \
      const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspaceSizeInBytes,           \
      cudaStream_t stream),                                                                     \
      (lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo,     \
      workspace, workspaceSizeInBytes, stream))

// name may be a macro (cublasCreate is cublasCreate_v2): the library's symbol is its expansion.
#define SG_NAME_OF(name) SG_NAME_OF_(name)
#define SG_NAME_OF_(name) #name

namespace scratchgpt::cuda::detail {
namespace {

// The library by its soname (LD_LIBRARY_PATH, the system's paths), else in the toolkit's folder
// this program was built against.
void* open_library(const char* soname) {
  if (void* h = dlopen(soname, RTLD_NOW | RTLD_GLOBAL)) return h;
  const std::string at = std::string(SCRATCHGPT_CUDA_LIBRARY_DIR) + "/" + soname;
  if (void* h = dlopen(at.c_str(), RTLD_NOW | RTLD_GLOBAL)) return h;
  fail("--device cuda needs ", soname, " (cuBLAS, from the CUDA toolkit) and it did not load: ",
       dlerror(), "; put its folder on LD_LIBRARY_PATH");
}

#define SG_POINTER(lib, name, params, args) cublasStatus_t(CUBLASWINAPI* name) params = nullptr;
#define SG_LOOK_UP(lib, name, params, args) \
  f.name = reinterpret_cast<decltype(f.name)>(find(lib, SG_NAME_OF(name)));

// The functions, looked up together on the first call.
struct Functions {
  SG_CUBLAS_FUNCTIONS(SG_POINTER)
};

const Functions& functions() {
  static const Functions table = [] {
    struct Library {
      const char* soname;
      void* handle;
    };
    const Library cublas{SCRATCHGPT_CUBLAS_SONAME, open_library(SCRATCHGPT_CUBLAS_SONAME)};
    const Library cublaslt{SCRATCHGPT_CUBLASLT_SONAME, open_library(SCRATCHGPT_CUBLASLT_SONAME)};
    auto find = [](const Library& l, const char* name) {
      void* p = dlsym(l.handle, name);
      if (p == nullptr)
        fail(l.soname, " has no ", name, ": it is older than the CUDA toolkit this was built with");
      return p;
    };
    Functions f;
    SG_CUBLAS_FUNCTIONS(SG_LOOK_UP)
    return f;
  }();
  return table;
}

}  // namespace
}  // namespace scratchgpt::cuda::detail

#define SG_FORWARD(lib, name, params, args)  \
  cublasStatus_t CUBLASWINAPI name params { \
    return scratchgpt::cuda::detail::functions().name args; \
  }

extern "C" {
SG_CUBLAS_FUNCTIONS(SG_FORWARD)
}  // extern "C"
