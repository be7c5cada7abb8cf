// What the dsp ADD and MUL kernels handle, beside them (add.cc, mul.cc); neither needs scratch.
// In every build.
#include "broadcast_rows.h"
#include "dsp/kernels.h"

namespace mote {
namespace kernels {
namespace dsp {

// Same-shape inputs, or one against a scalar or a per-channel operand (broadcast_rows.h).
bool add_handles(const BroadcastShape& shape) { return takes_broadcast_rows(shape); }

bool mul_handles(const BroadcastShape& shape) { return add_handles(shape); }

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
