// gelu.h: cpu:: gelu kernels, float only, same names and signatures as ref::gelu.h.
// PLACEHOLDER: forwards to the scalar reference until the fast version lands.
#pragma once

#include "kernels/ref/gelu.h"

namespace scratchgpt::cpu {

using ref::gelu_forward;  // instantiated with F = float
using ref::gelu_backward;  // instantiated with F = float

}  // namespace scratchgpt::cpu
