#pragma once
// Byte copies and fills of the mve kernels' gathered columns: sixteen bytes a step, the last ones
// predicated. Armv8.1-M MVE only; internal to src/kernels/mve/.

#include <arm_mve.h>
#include <stdint.h>

namespace mote {
namespace kernels {
namespace mve {

// n bytes from src to dst.
inline void copy_bytes(const int8_t* src, int8_t* dst, int32_t n) {
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) vstrbq_s8(dst + i, vldrbq_s8(src + i));
  if (i < n) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
    vstrbq_p_s8(dst + i, vldrbq_z_s8(src + i, p), p);
  }
}

// n bytes of dst set to value's lanes.
inline void fill_bytes(int8_t* dst, int32_t n, int8x16_t value) {
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) vstrbq_s8(dst + i, value);
  if (i < n) vstrbq_p_s8(dst + i, value, vctp8q(static_cast<uint32_t>(n - i)));
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
