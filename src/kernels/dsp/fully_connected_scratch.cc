// What the dsp FULLY_CONNECTED kernel needs, beside it (fully_connected.cc). In every build.
#include "dsp/kernels.h"

namespace mote {
namespace kernels {
namespace dsp {

size_t fully_connected_scratch_bytes(const int32_t&) { return 0; }

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
