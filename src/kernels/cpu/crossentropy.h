// crossentropy.h: cpu:: crossentropy kernels, float only, same names and signatures as ref::crossentropy.h.
// PLACEHOLDER: forwards to the scalar reference until the fast version lands.
#pragma once

#include "kernels/ref/crossentropy.h"

namespace scratchgpt::cpu {

using ref::crossentropy_forward;  // instantiated with F = float
using ref::crossentropy_backward;  // instantiated with F = float

}  // namespace scratchgpt::cpu
