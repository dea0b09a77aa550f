// layernorm.h: cpu:: layernorm kernels, float only, same names and signatures as ref::layernorm.h.
// PLACEHOLDER: forwards to the scalar reference until the fast version lands.
#pragma once

#include "kernels/ref/layernorm.h"

namespace scratchgpt::cpu {

using ref::layernorm_forward;  // instantiated with F = float
using ref::layernorm_backward;  // instantiated with F = float

}  // namespace scratchgpt::cpu
