// dropout.h: cpu:: dropout kernels, float only, same names and signatures as ref::dropout.h.
// PLACEHOLDER: forwards to the scalar reference until the fast version lands.
#pragma once

#include "kernels/ref/dropout.h"

namespace scratchgpt::cpu {

using ref::dropout_forward;  // instantiated with F = float
using ref::dropout_backward;  // instantiated with F = float

}  // namespace scratchgpt::cpu
