// attend.cpp: Linear<F>::init (nn.Linear's initialisation, drawn in float as PyTorch draws it),
// instantiated for float (the lessons) and double (the gradient checks).
#include "stones/attend.h"

#include "nn/init.h"

namespace scratchgpt::stones {

template <typename F>
void Linear<F>::init(Rng& rng) {
  std::vector<float> w(weight.size()), b(bias.size());
  init_linear(rng, w.data(), has_bias ? b.data() : nullptr, OC, C);
  assign_from_float(weight, w);
  assign_from_float(bias, b);
}

template struct Linear<float>;
template struct Linear<double>;

}  // namespace scratchgpt::stones
