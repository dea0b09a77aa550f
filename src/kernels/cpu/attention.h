// attention.h: cpu:: attention kernels, float only, same names and signatures as ref::attention.h.
// PLACEHOLDER: forwards to the scalar reference until the fast version lands.
#pragma once

#include "kernels/ref/attention.h"

namespace scratchgpt::cpu {

using ref::attention_forward;  // instantiated with F = float
using ref::attention_backward;  // instantiated with F = float

}  // namespace scratchgpt::cpu
