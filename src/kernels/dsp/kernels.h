#pragma once
// The dsp kernel variant (Cortex-M4, M7, M33: Armv7E-M / Armv8-M DSP extension): what each kernel
// handles, the scratch it needs (dsp/*_scratch.cc, in every build so the host compiler plans for
// it) and the kernels (the other dsp/*.cc, only in builds with VARIANTS dsp). The tables in
// src/kernels/<op>.cc put them above the portable kernels. Results are the portable kernels', bit
// for bit. Embeddable C++17.
//
// Output order (for outputs that overlap a dying input): every kernel writes its output in raster
// order by blocks of pixels, all channels of a block before the next block, and reads the inputs a
// block needs before writing the block's last byte:
//  - conv 1x1: blocks of two output pixels; a block reads exactly its two input pixels (all
//    channels) while it writes them, so an output may overlap input only of pixels before the block;
//  - conv im2col: blocks of two output pixels; both columns are gathered before the block writes;
//  - depthwise: one output pixel at a time, channels in blocks of four: a pixel's window is read
//    while its channels are written (with a depth multiplier, all outputs of input channel c
//    before those of c + 1);
//  - fully connected: one row at a time, reading the whole row while writing it.

#include "mote/kernels/add.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/overlap.h"
#include "mote/kernels/pooling.h"

namespace mote {
namespace kernels {
namespace dsp {

// CONV_2D, grouped too (input_c a multiple of filter_c, output_c of the groups): 1x1 without
// padding needs no scratch; every other shape uses two int16 columns (2 * 2 * filter_h *
// filter_w * filter_c bytes, as portable; one group's when grouped).
bool conv_handles(const ConvShape& shape);
size_t conv_scratch_bytes(const ConvShape& shape);
void conv2d(const ConvParams& params, const int8_t* input, const int8_t* filter, const int32_t* bias,
            int8_t* output, Scratch scratch);
// conv2d without its portable fallback (conv2d_extension): false, having written nothing, for
// the shapes and parameters conv2d hands to portable.
bool conv2d_no_fallback(const ConvParams& params, const int8_t* input, const int8_t* filter,
                        const int32_t* bias, int8_t* output, Scratch scratch);
// Row calls (mote/kernels/rows.h, conv2d_rows): portable_conv2d_rows' contract and results on the
// same two paths, every output row on dsp code, wrapped ring windows too (im2col reads its rows
// through a row table, a pair of pixels may straddle two rows; 1x1 runs the pointwise loop one
// output row at a time). Shapes conv2d hands to portable run portable_conv2d_rows.
void conv2d_rows(const ConvParams& params, const int8_t* input, RowRing input_ring,
                 const int8_t* filter, const int32_t* bias, int8_t* output, RowRing output_ring,
                 int32_t y_begin, int32_t y_end, Scratch scratch);
bool conv2d_rows_no_fallback(const ConvParams& params, const int8_t* input, RowRing input_ring,
                            const int8_t* filter, const int32_t* bias, int8_t* output,
                            RowRing output_ring, int32_t y_begin, int32_t y_end, Scratch scratch);
// The portable rule: the same blocks of two pixels (1x1: two channels of both per step, or one
// channel when odd, the top byte last; im2col: both columns gathered first).
OverlapRule conv_overlap(const ConvShape& shape);

// DEPTHWISE_CONV_2D, any depth multiplier, kernel size, stride, dilation and padding; no
// scratch. Multiplier 1 in blocks of four channels (3x3 windows unrolled); above 1 in blocks of
// four outputs of one input channel.
bool depthwise_conv_handles(const DepthwiseShape& shape);
// One input channel with a depth multiplier (depthwise_single_input) runs as SMLAD dot products
// along the window's rows, its filter rearranged into the scratch (about filter_h * filter_w *
// output_c bytes); other layers need none.
size_t depthwise_conv_scratch_bytes(const DepthwiseShape& shape);
bool depthwise_single_input(const DepthwiseShape& shape);
inline constexpr int32_t kMaxSingleInputWindow = 256;
// The single-input kernel (the whole map, one pixel at a time); false, having written nothing,
// where it does not take the layer (depthwise_single_input, the scratch, the input offset).
bool depthwise_conv2d_one_input(const DepthwiseConvParams& params, const int8_t* input,
                                const int8_t* filter, const int32_t* bias, int8_t* output,
                                Scratch scratch);
void depthwise_conv2d(const DepthwiseConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch);
bool depthwise_conv2d_no_fallback(const DepthwiseConvParams& params, const int8_t* input,
                                  const int8_t* filter, const int32_t* bias, int8_t* output,
                                  Scratch scratch);
// Written in raster order, each block of four channels after reading its window; with a depth
// multiplier, outputs c*m .. c*m+m-1 after reading input channel c (as portable): the portable
// rule.
OverlapRule depthwise_conv_overlap(const DepthwiseShape& shape);
// Row calls (mote/kernels/rows.h, depthwise_conv2d_rows): the same pixel code on every output row,
// its window's rows looked up in a table; a whole 3x3 window that wraps past the ring's last slot
// takes the assembly with two row steps. Shapes depthwise_conv2d hands to portable run portable.
void depthwise_conv2d_rows(const DepthwiseConvParams& params, const int8_t* input,
                           RowRing input_ring, const int8_t* filter, const int32_t* bias,
                           int8_t* output, RowRing output_ring, int32_t y_begin, int32_t y_end,
                           Scratch scratch);
bool depthwise_conv2d_rows_no_fallback(const DepthwiseConvParams& params, const int8_t* input,
                                       RowRing input_ring, const int8_t* filter,
                                       const int32_t* bias, int8_t* output, RowRing output_ring,
                                       int32_t y_begin, int32_t y_end, Scratch scratch);
// The in-place depthwise kernel's inner row (depthwise_conv2d_in_place): sums[x] = base +
// sum of p[ky * plane_w + x + kx] * w[3 * ky + kx] over a 3x3 window of stride 1, for x < count.
// Two outputs at a time: one word of a plane row holds both windows' three bytes of that row.
void window3_row_sums(const int8_t* p, ptrdiff_t plane_w, int32_t count, const int32_t* w,
                      int32_t base, int32_t* sums);

// FULLY_CONNECTED, every shape; no scratch. (The table's shape is the output depth.)
size_t fully_connected_scratch_bytes(const int32_t& output_depth);
void fully_connected(const FullyConnectedParams& params, const int8_t* input, const int8_t* filter,
                     const int32_t* bias, int8_t* output);
bool fully_connected_no_fallback(const FullyConnectedParams& params, const int8_t* input,
                                 const int8_t* filter, const int32_t* bias, int8_t* output);
// CONV_2D 16x8 (int64 or int32 sums, by the bias type) and with int4 weights, the shapes of
// wide_conv::handles (src/kernels/wide_conv.h: not grouped); no scratch. Raster order, one
// output pixel at a time, its window read while its channels are written.
void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int64_t* bias, int16_t* output);
void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int32_t* bias, int16_t* output);
void conv2d_int4(const ConvParams& params, const int8_t* input, const uint8_t* filter,
                 const int32_t* bias, int8_t* output);
// DEPTHWISE_CONV_2D 16x8 and with int4 weights, any depth multiplier, windows of at most 256
// taps (depthwise_conv.cc's table); no scratch. One output pixel at a time in raster order,
// channels in blocks of four, each block's window read before it is written.
void depthwise_conv2d_16x8(const DepthwiseConvParams& params, const int16_t* input,
                           const int8_t* filter, const int64_t* bias, int16_t* output);
void depthwise_conv2d_int4(const DepthwiseConvParams& params, const int8_t* input,
                           const uint8_t* filter, const int32_t* bias, int8_t* output);
// FULLY_CONNECTED 16x8 (int64 or int32 sums, by the bias type) and int4 weights, every shape;
// no scratch. One input row at a time, reading the whole row while writing it.
void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int64_t* bias, int16_t* output);
void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int32_t* bias, int16_t* output);
void fully_connected_int4(const FullyConnectedParams& params, const int8_t* input,
                          const uint8_t* filter, const int32_t* bias, int8_t* output);

// AVERAGE_POOL_2D with windows of at most 256 elements (the sums of four channels in the int16
// lanes of two words); no scratch. One output pixel at a time, after reading its window.
bool average_pool_handles(const PoolParams& params);
void average_pool(const PoolParams& params, const int8_t* input, int8_t* output, Scratch scratch);
bool average_pool_no_fallback(const PoolParams& params, const int8_t* input, int8_t* output);
// One pixel at a time after reading its window: the portable rule.
OverlapRule average_pool_overlap(const PoolParams& params);
// The streamed global average pool's sums (global_average_pool_accumulate, mote/kernels/pooling.h)
// where average_pool runs dsp: four channels a word, a row's pixels added into the int16 lanes of
// two words (at most 256 pixels at a time), then into the int32 sums.
void global_average_pool_accumulate(const PoolParams& params, const int8_t* input,
                                    RowRing input_ring, int32_t y_begin, int32_t y_end,
                                    int32_t* sums);

// MAX_POOL_2D, every shape: four channels a word (SSUB8 + SEL); no scratch. One output pixel at
// a time, after reading its window.
void max_pool(const PoolParams& params, const int8_t* input, int8_t* output);

// ADD of same-shape inputs (no broadcasting) with left_shift <= 22 and right shifts (TFLite's
// int8 ADD: 20 and <= 0); other parameters run the portable kernel. No scratch. Elementwise: the
// output may be either input.
bool add_handles(const BroadcastShape& shape);
void add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output);

// MUL of same-shape inputs; no scratch. Elementwise: the output may be either input. Any
// output shift (those above -2 take the portable requantization step).
bool mul_handles(const BroadcastShape& shape);
void mul(const MulParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output);

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
