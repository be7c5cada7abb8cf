// Scratch sizes equal to CMSIS-NN's *_get_buffer_size functions (revision 99f736a6, built with gcc;
// see shared/design/FACTS.md section 1). The dispatch tests mirror CMSIS-NN's wrappers, because the
// wrapper's kernel choice decides the size.

#include "mote/kernels/cmsis_nn_scratch.h"

namespace mote {
namespace kernels {
namespace cmsis_nn {
namespace {

int32_t max_i32(int32_t a, int32_t b) { return a > b ? a : b; }

bool is_conv_1x1(const ConvShape& s) {
  return s.pad_w == 0 && s.pad_h == 0 && s.filter_w == 1 && s.filter_h == 1 && s.dilation_w == 1 &&
         s.dilation_h == 1 && s.input_c == s.filter_c;
}

bool is_conv_1xn(const ConvShape& s) {
  return s.input_h == 1 && s.dilation_w == 1 && s.filter_h == 1 && (s.stride_w * s.input_c) % 4 == 0 &&
         s.input_c == s.filter_c;
}

// The im2col kernel: two int16 columns of the patch, rounded up to 4 elements (scalar and DSP), or
// four int8 columns padded to whole 16-byte vectors (MVE). Grouped convolution is sized with the
// full input depth, as CMSIS-NN does.
size_t conv_generic_bytes(int32_t input_c, int32_t filter_h, int32_t filter_w, Extension extension) {
  const int64_t cols = int64_t{filter_w} * filter_h * input_c;
  if (extension == Extension::kMve) return static_cast<size_t>(4 * 16 * ((cols + 15) / 16));
  const int64_t aligned = (cols + 3) / 4 * 4;
  return static_cast<size_t>(2 * aligned * 2);
}

// CMSIS-NN's MVE 1xN kernel pads a row buffer on the left and right; when its split of the output
// into left-padded, unpadded and right-padded parts does not add up, it falls back to im2col.
size_t conv_1xn_mve_bytes(const ConvShape& s) {
  const int32_t total_pad = (s.output_w - 1) * s.stride_w + s.filter_w - s.input_w;
  const int32_t asym_pad = total_pad % 2;  // C remainder: may be negative
  const int32_t right = (s.pad_w + asym_pad) != 0
                            ? max_i32(1, (s.pad_w + asym_pad + s.stride_w - 1) / s.stride_w)
                            : 0;
  const int32_t left = s.pad_w != 0 ? max_i32(1, (s.pad_w + s.stride_w - 1) / s.stride_w) : 0;
  const int32_t unpadded = max_i32(s.output_w - (right + left), 0);
  if (right + unpadded + left != s.output_w) {
    return conv_generic_bytes(s.input_c, s.filter_h, s.filter_w, Extension::kMve);
  }
  const int32_t pad_left = s.pad_w * s.input_c;
  const int32_t pad_right = asym_pad != 0 ? right * s.input_c : pad_left;
  const int32_t elems_left = s.filter_w * s.input_c;
  const int32_t elems_right = elems_left - s.input_c;
  return static_cast<size_t>(max_i32(elems_left + pad_left, elems_right + pad_right));
}

}  // namespace

size_t conv_scratch_bytes(const ConvShape& shape, Extension extension) {
  // The 1x1 kernels need nothing with gcc (the DSP fast 1x1 buffer exists only for Arm Compiler 6).
  if (is_conv_1x1(shape)) return 0;
  if (is_conv_1xn(shape) && extension == Extension::kMve) return conv_1xn_mve_bytes(shape);
  return conv_generic_bytes(shape.input_c, shape.filter_h, shape.filter_w, extension);
}

size_t depthwise_conv_scratch_bytes(const DepthwiseShape& shape, Extension extension) {
  // On MVE a depthwise convolution of one input channel into several output channels runs as a
  // convolution (threshold 1 with gcc); it also needs room for the filter reordered to [Co,Kh,Kw,1].
  if (extension == Extension::kMve && shape.input_c == 1 && shape.output_c > 1) {
    const ConvShape conv{shape.batches,    shape.input_h,   shape.input_w,    1,
                         shape.filter_h,   shape.filter_w,  1,                shape.output_h,
                         shape.output_w,   shape.output_c,  shape.stride_h,   shape.stride_w,
                         shape.pad_h,      shape.pad_w,     shape.dilation_h, shape.dilation_w};
    return cmsis_nn::conv_scratch_bytes(conv, Extension::kMve) +
           static_cast<size_t>(shape.output_c) * shape.filter_h * shape.filter_w;
  }
  const bool optimized = shape.input_c == shape.output_c && shape.batches == 1 &&
                         shape.dilation_w == 1 && shape.dilation_h == 1;
  if (!optimized) return 0;
  switch (extension) {
    case Extension::kScalar:
      return 0;
    case Extension::kDsp:
      if (shape.filter_w == 3 && shape.filter_h == 3 && shape.pad_h <= 1 && shape.pad_w <= 1) return 0;
      return static_cast<size_t>(shape.input_c) * shape.filter_w * shape.filter_h * 2;
    case Extension::kMve:
      return static_cast<size_t>(4 * 124) * shape.filter_w * shape.filter_h;
  }
  return 0;
}

size_t fully_connected_buffer_bytes(int32_t output_depth, Extension extension) {
  return extension == Extension::kMve ? static_cast<size_t>(output_depth) * 4 : 0;
}

size_t average_pool_scratch_bytes(int32_t channels, Extension extension) {
  return extension == Extension::kDsp ? static_cast<size_t>(channels) * 4 : 0;
}

TransposeConvScratch transpose_conv_scratch_bytes(const TransposeConvShape& shape,
                                                  Extension extension) {
  // CMSIS-NN runs small strides with many input channels as a convolution over the upsampled input
  // (im2col buffer plus the filter rearranged), the rest by scattering into rows of int32 sums.
  const bool reverse_conv = shape.stride_w <= 2 && shape.stride_h <= 2 && shape.input_c > 16;
  if (reverse_conv) {
    const size_t im2col = conv_generic_bytes(shape.input_c, shape.filter_h, shape.filter_w, extension);
    const size_t filter = static_cast<size_t>(shape.input_c) * shape.filter_w * shape.filter_h *
                          static_cast<size_t>(shape.output_c);
    return {im2col, filter};
  }
  // CMSIS-NN's row buffer takes max(filter_w, stride_h) for its width (stride_h, not stride_w).
  const int64_t buf_x = (int64_t{shape.input_w - 1} * shape.stride_w +
                         max_i32(shape.filter_w, shape.stride_h)) *
                        shape.output_c;
  const int64_t buf_y = max_i32(shape.filter_h, shape.stride_h);
  return {static_cast<size_t>(buf_x * buf_y * 4), 0};
}

}  // namespace cmsis_nn
}  // namespace kernels
}  // namespace mote
