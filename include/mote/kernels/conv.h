#pragma once
// int8 2D convolution (TFLite CONV_2D, per-channel quantization), NHWC. Embeddable C++17.

#include <stdint.h>

#include "mote/kernels/common.h"
#include "mote/kernels/rows.h"
#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {

// Everything conv2d needs besides the tensors; the compiler fills it ahead of time.
struct ConvParams {
  ConvShape shape;        // filter_c < input_c means grouped: groups = input_c / filter_c
  int32_t input_offset;   // -input zero point
  int32_t output_offset;  // +output zero point
  int32_t act_min;        // fused activation clamp in the output's quantized domain
  int32_t act_max;
  const int32_t* output_multiplier;  // [output_c], Q31 mantissas
  const int32_t* output_shift;       // [output_c], positive = left shift
  // > 0 (conv2d_backward sets them): the pointwise path runs its pixels in chunks from the last
  // chunk to the first (each forward inside): pixels [0, backward_split) in chunks of
  // kBackwardFirstChunk, the rest in chunks of backward_chunk; the result is the same.
  int32_t backward_chunk = 0;
  int32_t backward_split = 0;
  // 1: the caller has checked that every output_shift is negative (a right shift); 0: unknown,
  // the kernel looks where it has a faster path for it. A row-streamed stage calls a kernel at
  // every few rows, so its words carry the answer (checked when the program is loaded).
  int32_t right_shifts_only = 0;
};

// The chunk size of a backward run's first pixels: its first chunk's input is all the room
// the output must leave below itself (the backward rule's lead), so it is small.
inline constexpr int32_t kBackwardFirstChunk = 2;

// output[b,y,x,o] = requantize(bias[o] + sum (input + input_offset) * filter[o,ky,kx,c]), where
// input positions outside the input (padding) contribute nothing.
// input [batches, input_h, input_w, input_c]; filter [output_c, filter_h, filter_w, filter_c];
// bias [output_c] or nullptr; output [batches, output_h, output_w, output_c].
// Runs the kernel variant built into the library that handles the shape (conv_kernel_variant).
// The portable kernel works with any scratch size (it uses an im2col column buffer of int16 when the scratch holds one
// or two columns, i.e. 2 * filter_h * filter_w * filter_c bytes each, and computes directly from
// the input otherwise); it never touches bytes outside scratch.
// Shapes must be consistent (the runtime verifies them); a non-positive stride, dilation or
// filter_c, or fewer input than filter channels, makes it return without writing.
void conv2d(const ConvParams& params, const int8_t* input, const int8_t* filter, const int32_t* bias,
            int8_t* output, Scratch scratch);

// The build's extension kernel alone (dsp or mve), without the portable fallback conv2d keeps:
// an image links the portable kernel only where its programs need it (the compiler marks those
// operators portable_kernel). For a shape conv_extension_takes accepts and parameters the
// runtime's load checks passed; elsewhere it returns without writing. A build without extension
// runs the portable kernel (so takes every shape).
void conv2d_extension(const ConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch);
bool conv_extension_takes(const ConvShape& shape);
// Whether this image links the specialised code the extension kernel runs for a CONV_2D of
// `shape` with these per-channel `shifts`, whole or row-streamed: false only in a firmware image
// built for other programs (mote_add_model links only its programs' instances of the mve kernel,
// src/kernels/mve/instances.h, and the dsp kernel's grouped path where one is grouped).
bool conv_extension_linked(const ConvShape& shape, const int32_t* shifts);

// Row-streamed stages (mote/kernels/rows.h): output rows [y_begin, y_end) of a batch-1 convolution,
// its input rows read through `input_ring` and its output rows written through `output_ring`
// (rows <= 0: the whole map). Writes only those output rows' bytes and reads only input rows of
// their windows (window_input_rows); the result is conv2d's, bit for bit. Scratch as conv2d's
// portable kernel (the im2col columns when they fit, else direct). Returns without writing on
// nonsense as conv2d does, and also for batches != 1, a range not inside [0, output_h) or empty,
// an output ring of fewer rows than the range, an input ring of fewer rows than the range reads,
// or filter_h > kMaxRowWindowRows.
// A dsp or mve build runs its variant's row kernel where conv2d runs that variant (every output
// row on its code, windows that wrap past the ring's last slot too); other builds the portable one.
void conv2d_rows(const ConvParams& params, const int8_t* input, RowRing input_ring,
                 const int8_t* filter, const int32_t* bias, int8_t* output, RowRing output_ring,
                 int32_t y_begin, int32_t y_end, Scratch scratch);
// The extension's row kernel alone, without the portable fallback (as conv2d_extension).
void conv2d_rows_extension(const ConvParams& params, const int8_t* input, RowRing input_ring,
                           const int8_t* filter, const int32_t* bias, int8_t* output,
                           RowRing output_ring, int32_t y_begin, int32_t y_end, Scratch scratch);

// Backward runs (mote/kernels/overlap.h, conv_backward_overlap): a pointwise convolution (1x1,
// stride 1, no padding, not grouped, output pixels = input pixels) computes each output pixel from
// its input pixel alone, so it may run in chunks of pixels (batches flattened), from the last
// chunk to the first, each forward inside (the variant that conv2d runs, its pointwise loop in
// that order: ConvParams::backward_chunk and backward_split).
// Then the output may start above an input it overwrites (by the backward rule's lead). The
// result is conv2d's, bit for bit. A shape that conv_runs_backward refuses makes it return
// without writing, and so do parameters the runtime's load checks refuse (a negative
// multiplier): it runs the extension's kernel alone (conv2d_extension).
bool conv_runs_backward(const ConvShape& shape);
// The chunks: below `split`, kBackwardFirstChunk pixels each; from `split`, `block` pixels.
struct BackwardChunks {
  int32_t block;
  int32_t split;
};
BackwardChunks conv_backward_chunks(const ConvShape& shape);
void conv2d_backward(const ConvParams& params, const int8_t* input, const int8_t* filter,
                     const int32_t* bias, int8_t* output, Scratch scratch);

// The portable kernel (src/kernels/portable/), which conv2d runs where no variant built into the
// library handles the shape (src/kernels/conv.cc picks), and what it uses at most: two int16
// columns, 0 on the pointwise path. Host-callable.
void portable_conv2d(const ConvParams& params, const int8_t* input, const int8_t* filter,
                     const int32_t* bias, int8_t* output, Scratch scratch);
size_t portable_conv_scratch_bytes(const ConvShape& shape);
void portable_conv2d_rows(const ConvParams& params, const int8_t* input, RowRing input_ring,
                          const int8_t* filter, const int32_t* bias, int8_t* output,
                          RowRing output_ring, int32_t y_begin, int32_t y_end, Scratch scratch);

// 16x8 (TFLite's int16 activations with zero point 0, int8 weights): TFLite's reference
// ConvPerChannel for int16. The bias type selects the arithmetic as in TFLite: an int64 bias (the
// converter's) sums in int64 and requantizes with multiply_by_quantized_multiplier_64, an int32
// bias in int32 with the 32-bit one. The offsets are not read (zero for int16). Returns without
// writing on the shapes conv2d refuses.
// int4: int8 activations with int4 weights (TFLite INT4): `filter` holds the [output_c, filter_h,
// filter_w, filter_c] values packed two per byte, low nibble first, over the whole tensor (as in
// the model's flash; they stay packed); otherwise conv2d's arithmetic exactly.
// No scratch on any extension. Each runs the variant built into the library that handles the
// shape (conv.cc's 16x8 and int4 tables), with the portable kernel's results bit for bit.
void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int64_t* bias, int16_t* output);
void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int32_t* bias, int16_t* output);
void conv2d_int4(const ConvParams& params, const int8_t* input, const uint8_t* filter,
                 const int32_t* bias, int8_t* output);
// The portable kernels (direct loops, src/kernels/portable/).
void portable_conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                          const int64_t* bias, int16_t* output);
void portable_conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                          const int32_t* bias, int16_t* output);
void portable_conv2d_int4(const ConvParams& params, const int8_t* input, const uint8_t* filter,
                          const int32_t* bias, int8_t* output);
// The variant each runs for `shape` in a build for `extension`, or in this build.
const char* conv_16x8_kernel_variant(const ConvShape& shape, Extension extension);
const char* built_conv_16x8_kernel_variant(const ConvShape& shape);
const char* conv_int4_kernel_variant(const ConvShape& shape, Extension extension);
const char* built_conv_int4_kernel_variant(const ConvShape& shape);

}  // namespace kernels
}  // namespace mote
