// What the mve pooling kernels handle (host-callable, in every build; see mve/kernels.h).
#include "mve/kernels.h"

namespace mote {
namespace kernels {
namespace mve {

bool average_pool_handles(const PoolParams& params) {
  // A model's filter may be any int32: the window's size is formed in 64 bits.
  return params.filter_h > 0 && params.filter_w > 0 &&
         int64_t{params.filter_h} * params.filter_w <= 256;
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
