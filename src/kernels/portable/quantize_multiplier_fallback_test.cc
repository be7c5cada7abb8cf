// TEMPORARY: a weak stand-in for quantize_multiplier(), whose real definition
// (src/kernels/portable/quantization.cc) lands from the kernels-conv branch. The prepare_*()
// functions call it; a strong definition, once linked, replaces this one. Delete this file when
// quantization.cc is on the branch.
#include <cmath>

#include "mote/kernels/quantization.h"

namespace mote::kernels {

__attribute__((weak)) QuantizedMultiplier quantize_multiplier(double real_multiplier) {
  if (real_multiplier == 0.0) return {0, 0};
  int shift = 0;
  const double q = std::frexp(real_multiplier, &shift);
  int64_t q_fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) return {0, 0};
  return {static_cast<int32_t>(q_fixed), shift};
}

}  // namespace mote::kernels
