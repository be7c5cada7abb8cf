#pragma once
// Types every kernel shares. Embeddable C++17.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

// The largest stride and dilation of a window the kernels take (the load check and the
// compiler's definitions refuse more; TFLite allows any).
inline constexpr int32_t kMaxStride = 256;

// The scratch region the plan gave an operator. A kernel never writes outside [data, data + size)
// and works with any size at least its scratch_bytes() for the running extension (it may use a
// faster path when given more). size 0 means no scratch (data may be null).
struct Scratch {
  int8_t* data;
  size_t size;
};

}  // namespace kernels
}  // namespace mote
