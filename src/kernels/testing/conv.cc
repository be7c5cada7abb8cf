// The test variant's kernel: it fills its own block (one int32 per output channel, at the start
// of the scratch) so that a test sees it ran and stayed inside, then runs the portable kernel on
// the rest of the scratch.
#include "testing/conv.h"

namespace mote {
namespace kernels {
namespace testing_variant {

// The block's fill, which a test can find in the arena after a run.
constexpr int8_t kBlockFill = 0x7e;

void conv2d(const ConvParams& params, const int8_t* input, const int8_t* filter, const int32_t* bias,
            int8_t* output, Scratch scratch) {
  const size_t block = static_cast<size_t>(params.shape.output_c) * sizeof(int32_t);
  // The load check guarantees the block; without it, touch nothing of the scratch.
  if (scratch.size < block) {
    portable_conv2d(params, input, filter, bias, output, Scratch{nullptr, 0});
    return;
  }
  for (size_t i = 0; i < block; ++i) scratch.data[i] = kBlockFill;
  portable_conv2d(params, input, filter, bias, output,
                  Scratch{scratch.data + block, scratch.size - block});
}

}  // namespace testing_variant
}  // namespace kernels
}  // namespace mote
