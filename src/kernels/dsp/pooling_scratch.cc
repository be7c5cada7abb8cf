// What the dsp pooling kernels handle (host-callable, in every build; see dsp/kernels.h).
#include "dsp/kernels.h"

namespace mote {
namespace kernels {
namespace dsp {

bool average_pool_handles(const PoolParams& params) {
  // A model's filter may be any int32: the window's size is formed in 64 bits.
  return params.filter_h > 0 && params.filter_w > 0 &&
         int64_t{params.filter_h} * params.filter_w <= 256;
}

OverlapRule average_pool_overlap(const PoolParams& params) {
  return internal::portable_pool_overlap(params);
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
