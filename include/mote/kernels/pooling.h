#pragma once
// int8 AVERAGE_POOL_2D and MAX_POOL_2D on NHWC tensors, bit exact with TFLite's reference integer
// kernels. Embeddable C++17: no heap, no exceptions, no float math.

#include <stdint.h>

#include "mote/kernels/common.h"
#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {

// Input [batches, input_h, input_w, channels], output [batches, output_h, output_w, channels].
struct PoolParams {
  int32_t batches;
  int32_t input_h, input_w, channels;
  int32_t output_h, output_w;
  int32_t filter_h, filter_w;
  int32_t stride_h, stride_w;
  int32_t pad_h, pad_w;  // top and left padding; the window skips positions outside the input
  int32_t act_min, act_max;
};

// Host-callable: output size and padding the way TFLite computes them for SAME / VALID padding.
PoolParams prepare_pool(int32_t batches, int32_t input_h, int32_t input_w, int32_t channels,
                        int32_t filter_h, int32_t filter_w, int32_t stride_h, int32_t stride_w,
                        bool same_padding, int32_t act_min, int32_t act_max);

// Mean of the window's in-bounds elements, rounded half away from zero, then clamped. `scratch` is
// the planned buffer (average_pool_scratch_bytes: channels*4 on DSP, else 0); the portable kernel
// does not need it. A window with no in-bounds element (impossible with TFLite's SAME/VALID padding;
// TFLite reports an error) yields clamp(0).
// Runs the kernel variant built into the library (src/kernels/pooling.cc picks: dsp on the DSP
// cores for windows of at most 256 elements, else portable); neither needs scratch.
void average_pool(const PoolParams& params, const int8_t* input, int8_t* output, Scratch scratch);
// The portable kernel, and the name of the variant average_pool runs ("dsp", "portable").
void portable_average_pool(const PoolParams& params, const int8_t* input, int8_t* output,
                           Scratch scratch);
const char* built_average_pool_kernel_variant(const PoolParams& params);
// What a build for `extension` runs (host-callable; `mote plan` reports it).
const char* average_pool_kernel_variant(const PoolParams& params, Extension extension);

// Maximum of the window's in-bounds elements (-128 if none), then clamped. Runs the variant built
// into the library (src/kernels/pooling.cc: dsp on the DSP cores, mve on Helium).
void max_pool(const PoolParams& params, const int8_t* input, int8_t* output);
void portable_max_pool(const PoolParams& params, const int8_t* input, int8_t* output);
const char* built_max_pool_kernel_variant(const PoolParams& params);
const char* max_pool_kernel_variant(const PoolParams& params, Extension extension);

}  // namespace kernels
}  // namespace mote
