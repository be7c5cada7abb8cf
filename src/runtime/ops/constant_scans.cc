// The loader's scans of per-channel constants (op_support.h). Every bias, kernel sum and
// requantization array of a program passes through here at load, so the loops are written for
// the vectoriser (signed minima and maxima, 32-bit counters) and this file is built at -O3 in
// release builds (MVE on the M55; scalar elsewhere).

#include "runtime/ops/op_support.h"

namespace mote {
namespace runtime {
namespace internal {

int64_t max_abs_i32(const uint8_t* p, int32_t count) {
  int32_t low = 0, high = 0;
  for (int32_t k = 0; k < count; ++k) {
    const int32_t v = load_i32(p + 4 * k);
    low = v < low ? v : low;
    high = v > high ? v : high;
  }
  // -INT32_MIN = 2^31 needs the 64 bits.
  return max64(high, -int64_t{low});
}

ChannelExtremes channel_extremes(const uint8_t* a, const uint8_t* b, int32_t count) {
  int32_t min_a = INT32_MAX, min_b = INT32_MAX, max_b = INT32_MIN;
  for (int32_t k = 0; k < count; ++k) {
    const int32_t ak = load_i32(a + 4 * k), bk = load_i32(b + 4 * k);
    min_a = ak < min_a ? ak : min_a;
    min_b = bk < min_b ? bk : min_b;
    max_b = bk > max_b ? bk : max_b;
  }
  return {min_a, min_b, max_b};
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
