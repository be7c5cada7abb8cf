#pragma once
// int8 PAD / PADV2 with a constant value, up to 5 dimensions (NHWC for 4-D). Embeddable C++17.

#include <stdint.h>

namespace mote {
namespace kernels {

constexpr int kMaxPadRank = 5;

struct PadParams {
  int32_t rank;  // 1 .. kMaxPadRank
  int32_t input_dims[kMaxPadRank];
  int32_t before[kMaxPadRank];  // elements inserted before the input in each dimension
  int32_t after[kMaxPadRank];   // ... and after it
  int8_t pad_value;  // the output zero point (PAD) or the constant_values tensor's value (PADV2)
};

// Host-callable: copies the dimensions and paddings (each of `rank` entries, rank <= 5).
PadParams prepare_pad(int32_t rank, const int32_t* input_dims, const int32_t* before,
                      const int32_t* after, int8_t pad_value);

// Output dims are input_dims[i] + before[i] + after[i]. No scratch.
void pad(const PadParams& params, const int8_t* input, int8_t* output);
// int16 (16x8 models, whose zero point is 0): pads with 0; pad_value is not read.
void pad(const PadParams& params, const int16_t* input, int16_t* output);

}  // namespace kernels
}  // namespace mote
