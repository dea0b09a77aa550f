// matmul.h: cpu:: matmul kernels, float only, same names and signatures as ref::matmul.h.
// PLACEHOLDER: forwards to the scalar reference until the fast version lands.
#pragma once

#include "kernels/ref/matmul.h"

namespace scratchgpt::cpu {

using ref::matmul_forward;  // instantiated with F = float
using ref::matmul_backward;  // instantiated with F = float

}  // namespace scratchgpt::cpu
