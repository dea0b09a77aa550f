// softmax.h: cpu:: softmax kernels, float only, same names and signatures as ref::softmax.h.
// PLACEHOLDER: forwards to the scalar reference until the fast version lands.
#pragma once

#include "kernels/ref/softmax.h"

namespace scratchgpt::cpu {

using ref::softmax_forward;  // instantiated with F = float
using ref::softmax_backward;  // instantiated with F = float

}  // namespace scratchgpt::cpu
