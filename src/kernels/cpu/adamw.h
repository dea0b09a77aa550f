// adamw.h: cpu:: adamw kernels, float only, same names and signatures as ref::adamw.h.
// PLACEHOLDER: forwards to the scalar reference until the fast version lands.
#pragma once

#include "kernels/ref/adamw.h"

namespace scratchgpt::cpu {

using ref::adamw_update;  // instantiated with F = float

}  // namespace scratchgpt::cpu
