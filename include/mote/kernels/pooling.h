#pragma once
// int8 AVERAGE_POOL_2D and MAX_POOL_2D on NHWC tensors, bit exact with TFLite's reference integer
// kernels. Embeddable C++17: no heap, no exceptions, no float math.

#include <stdint.h>

#include "mote/kernels/common.h"
#include "mote/kernels/rows.h"
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
// The build's extension kernel alone, without the portable fallback (as conv2d_extension).
void average_pool_extension(const PoolParams& params, const int8_t* input, int8_t* output,
                            Scratch scratch);
bool average_pool_extension_takes(const PoolParams& params);
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

// Row-streamed stages (mote/kernels/rows.h): output rows [y_begin, y_end) of a batch-1 pool, input
// rows read through `input_ring`, output rows written through `output_ring` (rows <= 0: the whole
// map). Writes only those output rows' bytes and reads only input rows of their windows
// (window_input_rows with dilation 1); the result is average_pool's / max_pool's, bit for bit.
// Returns without writing for a non-positive stride or channel count, batches != 1, a range not
// inside [0, output_h) or empty, an output ring of fewer rows than the range, an input ring of
// fewer rows than the range reads, or filter_h > kMaxRowWindowRows (a global
// pool streams through global_average_pool_accumulate instead). Needs no scratch.
// Every build runs the portable kernels for them (dsp and mve builds too: correct, not faster).
void average_pool_rows(const PoolParams& params, const int8_t* input, RowRing input_ring,
                       int8_t* output, RowRing output_ring, int32_t y_begin, int32_t y_end,
                       Scratch scratch);
void max_pool_rows(const PoolParams& params, const int8_t* input, RowRing input_ring,
                   int8_t* output, RowRing output_ring, int32_t y_begin, int32_t y_end);
void portable_average_pool_rows(const PoolParams& params, const int8_t* input, RowRing input_ring,
                                int8_t* output, RowRing output_ring, int32_t y_begin,
                                int32_t y_end, Scratch scratch);
void portable_max_pool_rows(const PoolParams& params, const int8_t* input, RowRing input_ring,
                            int8_t* output, RowRing output_ring, int32_t y_begin, int32_t y_end);

// A streamed global average pool: an AVERAGE_POOL_2D whose window is the whole input (filter =
// input size, no padding, output 1x1, batch 1, at most 2^23 input pixels so that the sums fit)
// run over input rows as they come. global_average_pool_accumulate adds input rows
// [y_begin, y_end) (read through `input_ring`, which must hold them all) into `sums`
// (`channels` int32, e.g. in the operator's scratch); a call with y_begin == 0 zeroes the sums
// first, so the caller never clears them and the rows must be accumulated in order from row 0.
// global_average_pool_finish, once every row is in, writes the output's `channels` bytes exactly
// as average_pool rounds and clamps (sum / (input_h * input_w), half away from zero). Both return
// without writing for a shape global_average_pool_streams refuses, a range not inside
// [0, input_h) or empty, or a ring of fewer rows than the range.
bool global_average_pool_streams(const PoolParams& params);
void global_average_pool_accumulate(const PoolParams& params, const int8_t* input,
                                    RowRing input_ring, int32_t y_begin, int32_t y_end,
                                    int32_t* sums);
void global_average_pool_finish(const PoolParams& params, const int32_t* sums, int8_t* output);
// The portable accumulate (global_average_pool_accumulate runs the mve or dsp one where the
// average pool's table runs that variant).
void portable_global_average_pool_accumulate(const PoolParams& params, const int8_t* input,
                                             RowRing input_ring, int32_t y_begin, int32_t y_end,
                                             int32_t* sums);

// int16 (16x8 models): the same pools on int16 tensors, bit exact with TFLite's reference int16
// AveragePool (int32 sums, the same rounding) and MaxPool (-32768 if no element). Portable in
// every build, no scratch.
void average_pool(const PoolParams& params, const int16_t* input, int16_t* output);
void max_pool(const PoolParams& params, const int16_t* input, int16_t* output);

}  // namespace kernels
}  // namespace mote
