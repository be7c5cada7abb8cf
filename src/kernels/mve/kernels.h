#pragma once
// The mve kernel variant (Cortex-M55, M85: Armv8.1-M Helium), written with the ACLE intrinsics of
// arm_mve.h: what each kernel handles, the scratch it needs (mve/*_scratch.cc, in every build so
// the host compiler plans for it) and the kernels (the other mve/*.cc, only in builds with
// VARIANTS mve, i.e. -mcpu=cortex-m55/m85). The tables in src/kernels/<op>.cc put them above the
// portable kernels. Results are the portable kernels', bit for bit (requantization:
// mve/requantize.h). Tails are predicated (VCTP), never scalar loops. Embeddable C++17.
//
// Output order (for outputs that overlap a dying input): every kernel writes its output in raster
// order by blocks of pixels, all channels of a block before the next block:
//  - conv 1x1: blocks of four output pixels (fewer at the end); a block reads exactly its four
//    input pixels (all channels) while it writes them, so an output may overlap input only of
//    pixels before the block;
//  - conv im2col: blocks of four output pixels; all four columns are gathered into scratch before
//    the block writes;
//  - grouped conv: blocks of four output pixels, group after group (the group's columns gathered,
//    then its channels of the block written), so a block's writes precede its later groups' reads;
//  - depthwise: blocks of output pixels of a row (three for 3-wide filters with stride 1 or 2
//    in x and 5- and 7-wide ones with stride 1, borders included (3-wide blocks whose border
//    mask is not SAME padding's, and the partial channel block of a narrow row's two-sided ones,
//    one pixel at a time); otherwise up to four whose windows are inside in x,
//    one at a time at the borders; one pixel at a time with a depth multiplier above 1), channels
//    in blocks of four:
//    the windows' (input) channels of c..c+3 are read, then those channels of the block are
//    written, then the next four channels;
//  - average pool: one output pixel at a time, eight channels at a time, after reading their
//    window;
//  - fully connected: one row at a time, reading the whole row while writing it;
//  - add: four elements at a time, each read before it is written (in place is fine);
//  - mul: eight elements at a time, each read before it is written (in place is fine).

#include "mote/kernels/add.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/overlap.h"
#include "mote/kernels/pooling.h"

namespace mote {
namespace kernels {
namespace mve {

// CONV_2D, grouped too (input_c a multiple of filter_c, output_c of the groups), filters of up
// to kMaxRowWindowRows rows. 1x1 without padding needs no scratch; every other shape gathers four
// int8 columns (4 * filter_h * filter_w * filter_c bytes, the bytes of portable's two int16
// columns; one group's when grouped), padding filled with the input zero point; five columns
// where rows of 4k + 1 pixels would leave a row call a lone last pixel (conv_five_columns:
// not grouped, a column of more than 16 bytes).
bool conv_handles(const ConvShape& shape);
bool conv_five_columns(const ConvShape& shape);
size_t conv_scratch_bytes(const ConvShape& shape);
void conv2d(const ConvParams& params, const int8_t* input, const int8_t* filter, const int32_t* bias,
            int8_t* output, Scratch scratch);
// conv2d without its portable fallback (conv2d_extension): false, having written nothing, for
// the shapes and parameters conv2d hands to portable.
bool conv2d_no_fallback(const ConvParams& params, const int8_t* input, const int8_t* filter,
                        const int32_t* bias, int8_t* output, Scratch scratch);
// Its row call (mote/kernels/rows.h; portable_conv2d_rows' contract and results): the same code,
// conv2d being each image's rows [0, output_h) on its whole map. Input rows through a lookup per
// output row (a ring's wrapped windows too), output pixels through their rows' places (a block
// of four may straddle rows); the same order and scratch. Shapes conv2d hands to portable run
// portable_conv2d_rows.
void conv2d_rows(const ConvParams& params, const int8_t* input, RowRing input_ring,
                 const int8_t* filter, const int32_t* bias, int8_t* output, RowRing output_ring,
                 int32_t y_begin, int32_t y_end, Scratch scratch);
bool conv2d_rows_no_fallback(const ConvParams& params, const int8_t* input, RowRing input_ring,
                            const int8_t* filter, const int32_t* bias, int8_t* output,
                            RowRing output_ring, int32_t y_begin, int32_t y_end, Scratch scratch);
// Its overlap rule (mote/kernels/overlap.h), from its own order (conv_own_overlap: 1x1 in blocks
// of four pixels, the last channel of the block written after its last read; im2col in blocks of
// four columns gathered first; grouped im2col none) joined with portable's (conv_overlap: what
// the table declares, so that the program also runs on the portable kernels).
OverlapRule conv_own_overlap(const ConvShape& shape);
OverlapRule conv_overlap(const ConvShape& shape);

// DEPTHWISE_CONV_2D, any depth multiplier, kernel width, stride, dilation, padding, filters of
// up to kMaxRowWindowRows rows. Multiplier 1 is the fast path; one input channel with a
// multiplier (depthwise_single_input) dot products along the window's rows, its filter
// rearranged into the scratch (about filter_h * filter_w * output_c bytes); other multipliers one
// output pixel at a time with gathered inputs.
bool depthwise_conv_handles(const DepthwiseShape& shape);
// Whether depthwise_conv2d runs the layer's rows in blocks of three pixels, borders included:
// depth multiplier 1, no dilation in x, 3 wide with stride 1 or 2 in x, or 5 or 7 wide with
// stride 1 (else fours of the pixels whose windows are whole in x, one pixel at a time at the
// borders; 5 and 7 wide at stride 2 share too few positions between a block's pixels, and the
// fours with their weights loaded once are faster there). (Inline: every output row of a row call asks.)
inline bool depthwise_in_threes(const DepthwiseShape& s) {
  if (s.output_c != s.input_c || s.dilation_w != 1) return false;
  if (s.filter_w == 3) return s.stride_w == 1 || s.stride_w == 2;
  return (s.filter_w == 5 || s.filter_w == 7) && s.stride_w == 1;
}
size_t depthwise_conv_scratch_bytes(const DepthwiseShape& shape);
bool depthwise_single_input(const DepthwiseShape& shape);
inline constexpr int32_t kMaxSingleInputWidth = 64;
// The single-input kernel (the whole map, one pixel at a time); false, having written nothing,
// where it does not take the layer (depthwise_single_input and the scratch).
bool depthwise_conv2d_one_input(const DepthwiseConvParams& params, const int8_t* input,
                                const int8_t* filter, const int32_t* bias, int8_t* output,
                                Scratch scratch);
void depthwise_conv2d(const DepthwiseConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch);
bool depthwise_conv2d_no_fallback(const DepthwiseConvParams& params, const int8_t* input,
                                  const int8_t* filter, const int32_t* bias, int8_t* output,
                                  Scratch scratch);
// Its row call (portable_depthwise_conv2d_rows' contract and results): the same code, each output
// row's window rows looked up once; a row whose window wraps past a ring's last slot runs through
// those rows (3-wide filters in blocks of three, others one pixel at a time), still on mve.
void depthwise_conv2d_rows(const DepthwiseConvParams& params, const int8_t* input,
                           RowRing input_ring, const int8_t* filter, const int32_t* bias,
                           int8_t* output, RowRing output_ring, int32_t y_begin, int32_t y_end,
                           Scratch scratch);
bool depthwise_conv2d_rows_no_fallback(const DepthwiseConvParams& params, const int8_t* input,
                                       RowRing input_ring, const int8_t* filter,
                                       const int32_t* bias, int8_t* output, RowRing output_ring,
                                       int32_t y_begin, int32_t y_end, Scratch scratch);
// Its overlap rule from its own order (multiplier 1 by its groups of pixels of a row and blocks
// of four channels; above 1 one pixel at a time, blocks of four outputs after their inputs:
// portable's rule holds), and joined with portable's (the table's).
OverlapRule depthwise_conv_own_overlap(const DepthwiseShape& shape);
OverlapRule depthwise_conv_overlap(const DepthwiseShape& shape);

// FULLY_CONNECTED, every shape; no scratch. (The table's shape is the output depth.)
size_t fully_connected_scratch_bytes(const int32_t& output_depth);
void fully_connected(const FullyConnectedParams& params, const int8_t* input, const int8_t* filter,
                     const int32_t* bias, int8_t* output);
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

// AVERAGE_POOL_2D with windows of at most 256 elements (int16 sums); no scratch. One output pixel
// at a time, after reading its window.
bool average_pool_handles(const PoolParams& params);
void average_pool(const PoolParams& params, const int8_t* input, int8_t* output, Scratch scratch);
bool average_pool_no_fallback(const PoolParams& params, const int8_t* input, int8_t* output);
// The streamed global average pool's accumulate (mote/kernels/pooling.h), four channels' int32
// sums at a time; the same refusals as portable's.
void global_average_pool_accumulate(const PoolParams& params, const int8_t* input,
                                    RowRing input_ring, int32_t y_begin, int32_t y_end,
                                    int32_t* sums);

// MAX_POOL_2D, every shape (an activation range outside int8 runs the portable kernel inside);
// no scratch. One output pixel at a time, sixteen channels at a time, after reading their window.
void max_pool(const PoolParams& params, const int8_t* input, int8_t* output);

// ADD without broadcasting (both inputs of the output's shape); no scratch. Broadcasting runs the
// portable kernel.
bool add_handles(const BroadcastShape& shape);
void add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output);

// MUL without broadcasting (both inputs of the output's shape); no scratch. Broadcasting runs the
// portable kernel.
bool mul_handles(const BroadcastShape& shape);
void mul(const MulParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output);

}  // namespace mve
}  // namespace kernels
}  // namespace mote
