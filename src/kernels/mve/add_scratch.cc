// What the mve ADD kernel handles (host-callable, in every build; see mve/kernels.h).
#include "mve/kernels.h"

namespace mote {
namespace kernels {
namespace mve {

// Both inputs of the output's shape: one run of elements, no broadcasting.
bool add_handles(const BroadcastShape& shape) {
  for (int32_t i = 0; i < shape.rank; ++i) {
    if (shape.input1[i] != shape.output[i] || shape.input2[i] != shape.output[i]) return false;
  }
  return true;
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
