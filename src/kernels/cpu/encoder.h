// encoder.h: cpu:: encoder kernels, float only, same names and signatures as ref::encoder.h.
// PLACEHOLDER: forwards to the scalar reference until the fast version lands.
#pragma once

#include "kernels/ref/encoder.h"

namespace scratchgpt::cpu {

using ref::encoder_forward;  // instantiated with F = float
using ref::encoder_backward;  // instantiated with F = float

}  // namespace scratchgpt::cpu
