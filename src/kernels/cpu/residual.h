// residual.h: cpu:: residual kernels, float only, same names and signatures as ref::residual.h.
// PLACEHOLDER: forwards to the scalar reference until the fast version lands.
#pragma once

#include "kernels/ref/residual.h"

namespace scratchgpt::cpu {

using ref::residual_forward;  // instantiated with F = float
using ref::residual_backward;  // instantiated with F = float

}  // namespace scratchgpt::cpu
