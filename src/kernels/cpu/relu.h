// relu.h: cpu:: relu kernels, float only, same names and signatures as ref::relu.h.
// PLACEHOLDER: forwards to the scalar reference until the fast version lands.
#pragma once

#include "kernels/ref/relu.h"

namespace scratchgpt::cpu {

using ref::relu_forward;  // instantiated with F = float
using ref::relu_backward;  // instantiated with F = float

}  // namespace scratchgpt::cpu
