// What the dsp ADD kernel handles, beside it (add.cc); it needs no scratch. In every build.
#include "dsp/kernels.h"

namespace mote {
namespace kernels {
namespace dsp {

bool add_handles(const BroadcastShape& shape) {
  for (int32_t d = 0; d < shape.rank; ++d) {
    if (shape.input1[d] != shape.output[d] || shape.input2[d] != shape.output[d]) return false;
  }
  return true;
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
