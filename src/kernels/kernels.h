// kernels.h: the entry layer of the kernels, what the model (nn/) and the code above it (train/,
// sample/, run/) include instead of kernels/cpu/: the ops, each taking the ExecContext
// (core/exec_context.h) that says how to run it as its first argument, and the matmul backend's
// names. Every op runs on cpu:: today; a CUDA backend (kernels/cuda/, same op names) would be
// chosen here by a device field of the context. Readable twins of every op: kernels/ref/.
#pragma once

#include "core/exec_context.h"
#include "kernels/cpu/adamw.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/attention_decode.h"
#include "kernels/cpu/crossentropy.h"
#include "kernels/cpu/dropout.h"
#include "kernels/cpu/encoder.h"
#include "kernels/cpu/fill.h"
#include "kernels/cpu/flash_attention.h"
#include "kernels/cpu/gelu.h"
#include "kernels/cpu/global_norm.h"
#include "kernels/cpu/layernorm.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/matmul_backend.h"
#include "kernels/cpu/quant_matvec.h"
#include "kernels/cpu/relu.h"
#include "kernels/cpu/residual.h"

namespace scratchgpt::kernels {

// The matmul backend: its name, whether this build has oneDNN, and kAuto resolved (kOneDnn in a
// build without it is an Error naming the fix).
using cpu::default_matmul_backend;
using cpu::matmul_backend_name;
using cpu::onednn_available;
using cpu::resolve_matmul_backend;

// The model's ops (nn/): the embeddings, the layers, attention (stored, fused, and decoding from
// the KV cache), the activations and the loss.
using cpu::attention_backward;
using cpu::attention_decode_forward;
using cpu::attention_decode_scratch_floats;
using cpu::attention_forward;
using cpu::crossentropy_backward;
using cpu::crossentropy_forward;
using cpu::dropout_backward;
using cpu::dropout_forward;
using cpu::encoder_backward;
using cpu::encoder_forward;
using cpu::flash_attention_backward;
using cpu::flash_attention_forward;
using cpu::gelu_backward;
using cpu::gelu_exact_backward;
using cpu::gelu_exact_forward;
using cpu::gelu_forward;
using cpu::layernorm_backward;
using cpu::layernorm_forward;
using cpu::matmul_backward;
using cpu::matmul_forward;
// Weights held in bf16 or Q8 for decoding (--weights), and the matvec that reads them.
using cpu::kWeightFormatNames;
using cpu::quant_matvec_forward;
using cpu::quantize_weight;
using cpu::QuantizedWeight;
using cpu::WeightFormat;
using cpu::relu_backward;
using cpu::relu_forward;
using cpu::residual_forward;

// Clearing a gradient buffer before kernels accumulate into it, and passing one through
// unchanged (nn/ never clears or copies a buffer on one thread).
using cpu::copy;
using cpu::zero;

// The optimizer's ops (train/optimizer.cpp).
using cpu::adamw_update;
using cpu::adamw_update_all;
using cpu::AdamWArray;
using cpu::global_norm;

}  // namespace scratchgpt::kernels
