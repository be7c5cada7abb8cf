// What the mve MUL kernel handles (host-callable, in every build; see mve/kernels.h).
#include "mve/kernels.h"

namespace mote {
namespace kernels {
namespace mve {

// As ADD: both inputs of the output's shape, or one against a scalar or a per-channel operand.
bool mul_handles(const BroadcastShape& shape) { return add_handles(shape); }

}  // namespace mve
}  // namespace kernels
}  // namespace mote
