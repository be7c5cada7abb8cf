// What the mve ADD kernel handles (host-callable, in every build; see mve/kernels.h).
#include "broadcast_rows.h"
#include "mve/kernels.h"

namespace mote {
namespace kernels {
namespace mve {

// Both inputs of the output's shape, or one against a scalar or a per-channel operand
// (broadcast_rows.h).
bool add_handles(const BroadcastShape& shape) { return takes_broadcast_rows(shape); }

}  // namespace mve
}  // namespace kernels
}  // namespace mote
