#pragma once
// int8 depthwise 2D convolution (TFLite DEPTHWISE_CONV_2D, per-channel quantization), NHWC.
// Embeddable C++17.

#include <stdint.h>

#include "mote/kernels/common.h"
#include "mote/kernels/rows.h"
#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {

struct DepthwiseConvParams {
  DepthwiseShape shape;   // output_c = input_c * depth multiplier
  int32_t input_offset;   // -input zero point
  int32_t output_offset;  // +output zero point
  int32_t act_min;        // fused activation clamp in the output's quantized domain
  int32_t act_max;
  const int32_t* output_multiplier;  // [output_c], Q31 mantissas
  const int32_t* output_shift;       // [output_c], positive = left shift
};

// output[b,y,x,oc] = requantize(bias[oc] + sum (input[.., oc / m] + input_offset) * filter[ky,kx,oc])
// with m the depth multiplier; taps outside the input contribute nothing.
// input [batches, input_h, input_w, input_c]; filter [1, filter_h, filter_w, output_c];
// bias [output_c] or nullptr; output [batches, output_h, output_w, output_c].
// Needs no scratch (any size works, including 0); scratch is accepted so that every planned
// extension's buffer can be passed, and is never touched.
// Shapes must be consistent (the runtime verifies them); a non-positive stride or dilation, or
// output_c below input_c, makes it return without writing.
// Runs the kernel variant built into the library that handles the shape
// (depthwise_conv_kernel_variant; src/kernels/depthwise_conv.cc picks).
void depthwise_conv2d(const DepthwiseConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch);
// The build's extension kernel alone, without the portable fallback (as conv2d_extension).
void depthwise_conv2d_extension(const DepthwiseConvParams& params, const int8_t* input,
                                const int8_t* filter, const int32_t* bias, int8_t* output,
                                Scratch scratch);
bool depthwise_conv_extension_takes(const DepthwiseShape& shape);
// As conv_extension_linked, for a DEPTHWISE_CONV_2D of `shape`, row-streamed where `rows`.
bool depthwise_conv_extension_linked(const DepthwiseShape& shape, bool rows);
// One input channel with a depth multiplier (input_c 1, output_c above 1): the build's extension
// kernel for that shape (dot products along the window's rows against the filter rearranged in
// `scratch`, depthwise_conv_scratch_bytes), where it takes the layer; otherwise as
// depthwise_conv2d_extension (the portable kernel in a build without an extension). A function
// of its own, so that images without such a layer do not link it.
void depthwise_conv2d_one_input(const DepthwiseConvParams& params, const int8_t* input,
                                const int8_t* filter, const int32_t* bias, int8_t* output,
                                Scratch scratch);

// Row-streamed stages (mote/kernels/rows.h): output rows [y_begin, y_end) of a batch-1 depthwise
// convolution, input rows read through `input_ring`, output rows written through `output_ring`
// (rows <= 0: the whole map). Writes only those output rows' bytes and reads only input rows of
// their windows (window_input_rows); the result is depthwise_conv2d's, bit for bit. Needs no
// scratch. Returns without writing on nonsense as depthwise_conv2d does, and also for
// batches != 1, a range not inside [0, output_h) or empty, an output ring of fewer rows than the
// range, an input ring of fewer rows than the range reads, or filter_h > kMaxRowWindowRows.
// A dsp or mve build runs its variant's row kernel (dsp/kernels.h, mve/kernels.h: every output
// row on its code, windows that wrap past the ring's last slot too); every other build the
// portable kernel.
void depthwise_conv2d_rows(const DepthwiseConvParams& params, const int8_t* input,
                           RowRing input_ring, const int8_t* filter, const int32_t* bias,
                           int8_t* output, RowRing output_ring, int32_t y_begin, int32_t y_end,
                           Scratch scratch);
// The extension's row kernel alone, without the portable fallback (as conv2d_extension).
void depthwise_conv2d_rows_extension(const DepthwiseConvParams& params, const int8_t* input,
                                     RowRing input_ring, const int8_t* filter,
                                     const int32_t* bias, int8_t* output, RowRing output_ring,
                                     int32_t y_begin, int32_t y_end, Scratch scratch);

// In-place runs (schema Operator.in_place): with depth multiplier 1 the work may go one channel
// of one image at a time. The kernel copies input channel c into scratch, as a plane of the rows
// and columns the windows read with the padding filled with the input's zero point (for a 3x3
// SAME window, (input_h + 2) x (input_w + 2) bytes), then computes output channel c from the
// copy, without a bounds check. Output channel c's bytes fall only on
// input channel c's bytes of this image or an earlier one (same stride, same start, no more
// output pixels than input pixels), all read already, so the output may start exactly where its
// input starts (mote/kernels/overlap.h, depthwise_conv_in_place_overlap) and the arena needs one
// plane beside the tensor instead of the raster kernels' lead of a row and a pixel.
// The result is depthwise_conv2d's, bit for bit. A shape depthwise_conv_runs_in_place refuses,
// or a scratch smaller than depthwise_conv_in_place_scratch_bytes, makes it return without
// writing. Every build has it, with the same plane and rule for every variant; a build with the
// dsp kernels computes 3x3 rows of stride 1 two outputs at a time (dsp::window3_row_sums).
bool depthwise_conv_runs_in_place(const DepthwiseShape& shape);
size_t depthwise_conv_in_place_scratch_bytes(const DepthwiseShape& shape);
void depthwise_conv2d_in_place(const DepthwiseConvParams& params, const int8_t* input,
                               const int8_t* filter, const int32_t* bias, int8_t* output,
                               Scratch scratch);

// The portable kernel (src/kernels/portable/), which runs where no built variant handles the shape.
void portable_depthwise_conv2d(const DepthwiseConvParams& params, const int8_t* input,
                               const int8_t* filter, const int32_t* bias, int8_t* output,
                               Scratch scratch);
void portable_depthwise_conv2d_rows(const DepthwiseConvParams& params, const int8_t* input,
                                    RowRing input_ring, const int8_t* filter, const int32_t* bias,
                                    int8_t* output, RowRing output_ring, int32_t y_begin,
                                    int32_t y_end, Scratch scratch);

// 16x8: TFLite's reference int16 DepthwiseConvPerChannel (int64 bias and sums, the 64-bit
// requantization; offsets not read). int4: int8 activations, the [1, filter_h, filter_w,
// output_c] weights packed two per byte, low nibble first (see conv2d_int4; they stay packed).
// No scratch on any extension. Each runs the variant built into the library that handles the
// shape (depthwise_conv.cc's 16x8 and int4 tables), with the portable kernel's results bit for bit.
void depthwise_conv2d_16x8(const DepthwiseConvParams& params, const int16_t* input,
                           const int8_t* filter, const int64_t* bias, int16_t* output);
void depthwise_conv2d_int4(const DepthwiseConvParams& params, const int8_t* input,
                           const uint8_t* filter, const int32_t* bias, int8_t* output);
// The portable kernels (direct loops, src/kernels/portable/).
void portable_depthwise_conv2d_16x8(const DepthwiseConvParams& params, const int16_t* input,
                                    const int8_t* filter, const int64_t* bias, int16_t* output);
void portable_depthwise_conv2d_int4(const DepthwiseConvParams& params, const int8_t* input,
                                    const uint8_t* filter, const int32_t* bias, int8_t* output);
// The variant each runs for `shape` in a build for `extension`, or in this build.
const char* depthwise_conv_16x8_kernel_variant(const DepthwiseShape& shape, Extension extension);
const char* built_depthwise_conv_16x8_kernel_variant(const DepthwiseShape& shape);
const char* depthwise_conv_int4_kernel_variant(const DepthwiseShape& shape, Extension extension);
const char* built_depthwise_conv_int4_kernel_variant(const DepthwiseShape& shape);

}  // namespace kernels
}  // namespace mote
