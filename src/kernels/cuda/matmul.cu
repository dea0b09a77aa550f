// matmul.cu: Linear layers through cuBLAS. Our tensors are row-major; cuBLAS is column-major, so
// each product is written for the transposes: out^T (OC, N) = W (OC, C) . inp^T (C, N), etc.
// Float32 inputs with fp32 sums, on the tensor cores in TF32 when ExecContext::tf32 (the
// default, as nanoGPT and llm.c); with ExecContext::dtype bf16 (--dtype bf16) both inputs are
// first rounded to bf16 copies (detail::to_bf16) and the product runs on the tensor cores in
// bf16 with fp32 sums: ref::matmul_forward_bf16's numbers up to the order of the sums. A layer
// may keep the forward's copies of inp and weight for its backward (Bf16Keep, ops.h), and hand
// in dout already rounded: the same bits, fewer passes over memory. The bias
// by a kernel of its own, its gradient by column sums of the unrounded dout in a fixed order. A
// forward with a bias goes through cuBLASLt with the bias added in the product's epilogue (one
// pass over the output instead of two), where cuBLASLt offers an algorithm that needs no atomics
// (its in-place split-K reductions are ruled out: the same bits every run).
#include <cublasLt.h>

#include <map>
#include <tuple>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/ops.h"

namespace scratchgpt::cuda {

using detail::blocks_for;
using detail::check;
using detail::check_launch;

namespace {

__global__ void add_bias_kernel(float* out, const float* bias, int64_t total, int OC) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i < total) out[i] += bias[i % OC];
}

bool bf16(const ExecContext& ex) { return ex.dtype == Dtype::kBf16; }

// The inputs' type and the sums' mode: bf16 copies, or float32 (TF32 when ex.tf32).
cudaDataType input_type(const ExecContext& ex) { return bf16(ex) ? CUDA_R_16BF : CUDA_R_32F; }
cublasComputeType_t compute_type(const ExecContext& ex) {
  return ex.tf32 && !bf16(ex) ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

// C (m, n) = alpha op(A) op(B) + beta C, column-major; A and B of input_type(ex), C float32.
void gemm(const ExecContext& ex, bool ta, bool tb, int m, int n, int k, float alpha,
          const void* A, int lda, const void* B, int ldb, float beta, float* Cm, int ldc) {
  check(cublasGemmEx(detail::cublas(), ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                     m, n, k, &alpha, A, input_type(ex), lda, B, input_type(ex), ldb, &beta, Cm,
                     CUDA_R_32F, ldc, compute_type(ex), CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}

// What a product reads for x (n floats): x itself, or its bf16 copy: rounded into `keep` when the
// caller keeps one (x null: its producer wrote keep already), else into scratch `slot`.
const void* operand(const ExecContext& ex, detail::Scratch slot, const float* x, int64_t n,
                    uint16_t* keep = nullptr) {
  if (!bf16(ex)) return x;
  if (keep == nullptr) return detail::to_bf16(slot, x, n);
  if (x != nullptr) detail::to_bf16_into(detail::as_bf16(keep), x, n);
  return keep;
}
// The backward's: the copy the forward kept, else as operand().
const void* kept_operand(const ExecContext& ex, detail::Scratch slot, const float* x, int64_t n,
                         const uint16_t* kept) {
  return bf16(ex) && kept != nullptr ? kept : operand(ex, slot, x, n);
}

// out^T (OC, N) = W . inp^T + bias through cuBLASLt's bias epilogue; false when it has no
// algorithm for the shape (the caller then adds the bias itself).
bool gemm_bias_lt(const ExecContext& ex, float* out, const void* inp, const void* weight,
                  const float* bias, int N, int C, int OC) {
  struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulAlgo_t algo{};
    bool ok = false;
  };
  constexpr size_t kWorkspace = size_t{32} << 20;
  static cublasLtHandle_t lt = [] {
    cublasLtHandle_t h = nullptr;
    check(cublasLtCreate(&h), "cublasLtCreate");
    return h;
  }();
  static std::map<std::tuple<int, int, int, int, int>, Plan> plans;  // by shape: made once
  Plan& p = plans[{N, C, OC, int(compute_type(ex)), int(input_type(ex))}];
  if (p.op == nullptr) {
    check(cublasLtMatmulDescCreate(&p.op, compute_type(ex), CUDA_R_32F),
          "cublasLtMatmulDescCreate");
    const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    const cudaDataType bias_type = CUDA_R_32F;  // fp32 in bf16 too, not the inputs' type
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t)), "transa");
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof(n)), "transb");
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                         sizeof(epilogue)),
          "epilogue");
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type,
                                         sizeof(bias_type)),
          "bias type");
    // A: W as stored, (C, OC) column-major; B: inp, (C, N); out: (OC, N), float32.
    check(cublasLtMatrixLayoutCreate(&p.a, input_type(ex), C, OC, C), "layout");
    check(cublasLtMatrixLayoutCreate(&p.b, input_type(ex), C, N, C), "layout");
    check(cublasLtMatrixLayoutCreate(&p.c, CUDA_R_32F, OC, N, OC), "layout");
    cublasLtMatmulPreference_t pref = nullptr;
    check(cublasLtMatmulPreferenceCreate(&pref), "preference");
    const uint64_t ws = kWorkspace;
    const uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_NONE | CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE |
                             CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;  // not INPLACE (atomics)
    check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                               sizeof(ws)),
          "workspace");
    check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                               &schemes, sizeof(schemes)),
          "reduction schemes");
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    if (cublasLtMatmulAlgoGetHeuristic(lt, p.op, p.a, p.b, p.c, p.c, pref, 1, &result, &found) ==
            CUBLAS_STATUS_SUCCESS &&
        found > 0) {
      p.algo = result.algo;
      p.ok = true;
    }
    cublasLtMatmulPreferenceDestroy(pref);
  }
  if (!p.ok) return false;
  check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                       sizeof(bias)),
        "bias pointer");
  void* ws = detail::scratch(detail::Scratch::kWorkspace, kWorkspace);
  const float one = 1.0f, zero = 0.0f;
  check(cublasLtMatmul(lt, p.op, &one, weight, p.a, inp, p.b, &zero, out, p.c, out, p.c, &p.algo,
                       ws, kWorkspace, nullptr),
        "cublasLtMatmul");
  return true;
}

}  // namespace

void matmul_forward(const ExecContext& ex, float* out, const float* inp, const float* weight,
                    const float* bias, int N, int C, int OC, const Bf16Keep& keep) {
  if (N == 0 || OC == 0) return;
  using detail::Scratch;
  SG_CHECK(inp != nullptr || (bf16(ex) && keep.inp != nullptr),
           "matmul_forward: inp is null; only a bf16 product whose keep.inp holds it may leave it out");
  const void* x = operand(ex, Scratch::kBf16A, inp, int64_t{N} * C, keep.inp);
  const void* w = operand(ex, Scratch::kBf16B, weight, int64_t{OC} * C, keep.weight);
  if (bias != nullptr && gemm_bias_lt(ex, out, x, w, bias, N, C, OC)) return;
  gemm(ex, true, false, OC, N, C, 1.0f, w, C, x, C, 0.0f, out, OC);
  if (bias != nullptr) {
    const int64_t total = int64_t{N} * OC;
    add_bias_kernel<<<blocks_for(total, 256), 256>>>(out, bias, total, OC);
    check_launch("matmul_forward (bias)");
  }
}

void matmul_backward(const ExecContext& ex, float* dinp, float* dweight, float* dbias,
                     const float* dout, const float* inp, const float* weight, int N, int C, int OC,
                     bool accumulate_dinp, bool accumulate_dparams, const Bf16Keep& kept) {
  if (N == 0) return;
  using detail::Scratch;
  SG_CHECK(dout != nullptr || (bf16(ex) && kept.dout != nullptr && dbias == nullptr),
           "matmul_backward: dout is null; only a bf16 step with a kept dout and no bias may "
           "leave it out");
  SG_CHECK(inp != nullptr || (bf16(ex) && kept.inp != nullptr),
           "matmul_backward: inp is null; only a bf16 product with a kept inp may leave it out");
  const void* d = kept_operand(ex, Scratch::kBf16C, dout, int64_t{N} * OC, kept.dout);
  const void* w = kept_operand(ex, Scratch::kBf16B, weight, int64_t{OC} * C, kept.weight);
  // dinp (N, C) = dout (N, OC) . W (OC, C):  dinp^T (C, N) = W^T (C, OC) . dout^T (OC, N)
  gemm(ex, false, false, C, N, OC, 1.0f, w, C, d, OC, accumulate_dinp ? 1.0f : 0.0f, dinp, C);
  const void* x = kept_operand(ex, Scratch::kBf16A, inp, int64_t{N} * C, kept.inp);
  // dW (OC, C) = dout^T (OC, N) . inp (N, C):  dW^T (C, OC) = inp^T (C, N) . dout (N, OC)
  gemm(ex, false, true, C, OC, N, 1.0f, x, C, d, OC, accumulate_dparams ? 1.0f : 0.0f, dweight, C);
  // db (OC) = sum over the N rows of dout
  if (dbias != nullptr) detail::column_sums(dbias, dout, N, OC, accumulate_dparams);
}

}  // namespace scratchgpt::cuda
