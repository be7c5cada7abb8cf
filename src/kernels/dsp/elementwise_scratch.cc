// What the dsp ADD and MUL kernels handle, beside them (add.cc, mul.cc); neither needs scratch.
// In every build.
#include "dsp/kernels.h"

namespace mote {
namespace kernels {
namespace dsp {

// Same-shape inputs: no broadcasting.
bool add_handles(const BroadcastShape& shape) {
  for (int32_t d = 0; d < shape.rank; ++d) {
    if (shape.input1[d] != shape.output[d] || shape.input2[d] != shape.output[d]) return false;
  }
  return true;
}

bool mul_handles(const BroadcastShape& shape) { return add_handles(shape); }

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
