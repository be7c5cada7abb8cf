#pragma once
// int8 RESIZE_BILINEAR on NHWC tensors with TensorFlow Lite's integer rule
// (reference_ops::ResizeBilinearInteger, what TensorFlow Lite Micro runs for int8):
//   scale_10 = round(1024 * in / out) per axis, (1024 * (in - 1) + (out - 1) / 2) / (out - 1)
//              with align_corners and out > 1 (integer division);
//   source  s = o * scale_10, or o * scale_10 + scale_10 / 2 - 512 with half_pixel_centers;
//   i0 = max(s / 1024, 0) (truncating), i1 = min((s + 1023) / 1024, in - 1), f = s - 1024 * i0;
//   out = (sum of the four neighbours weighted (1024 - fy or fy) * (1024 - fx or fx)) / 2^20,
//         rounded half away from zero; or half to even (half_to_even: an ONNX model's Resize,
//         whose float result QuantizeLinear rounds so).
// No requantization: the output is quantized as the input. Every term fits int32
// (128 * 2048 * 2048 bounds the weighted sum's magnitude). Embeddable C++17: no heap, no
// exceptions, no float math.

#include <stdint.h>

namespace mote {
namespace kernels {

// Input and output sizes the kernel takes: 1024 * size fits int32 with room.
inline constexpr int32_t kMaxResizeBilinearSize = 1 << 20;

struct ResizeBilinearParams {
  int32_t batches, input_h, input_w, channels;
  int32_t output_h, output_w;
  int32_t scale_h_10, scale_w_10;  // source step per output pixel, in 1/1024
  bool half_pixel_centers;
  bool half_to_even;  // else half away from zero (TFLite)
};

// Host-callable. Sizes in [1, kMaxResizeBilinearSize]; align_corners and half_pixel_centers
// are not both set (TFLite refuses that).
ResizeBilinearParams prepare_resize_bilinear(int32_t batches, int32_t input_h, int32_t input_w,
                                             int32_t channels, int32_t output_h,
                                             int32_t output_w, bool align_corners,
                                             bool half_pixel_centers, bool half_to_even = false);

// The source position (in 1/1024) and the two neighbours TFLite reads for output index `out`
// (inline: a row-streamed stage's schedule asks it for the input rows an output row reads, so the
// reach and the kernel cannot disagree).
struct BilinearSource {
  int32_t scaled, lower, upper;
};
inline BilinearSource bilinear_source(int32_t out, int32_t scale_10, bool half_pixel_centers,
                                      int32_t input_size) {
  BilinearSource s{};
  s.scaled = out * scale_10;
  if (half_pixel_centers) s.scaled += scale_10 / 2 - 512;
  s.lower = s.scaled / 1024;  // truncates towards zero, as TFLite's does
  if (s.lower < 0) s.lower = 0;
  // TFLite does not bound the lower neighbour; its formulas keep it inside for every size the
  // check accepts, and the bound keeps the kernel inside the input whatever it is given.
  if (s.lower > input_size - 1) s.lower = input_size - 1;
  s.upper = (s.scaled + 1023) / 1024;
  if (s.upper > input_size - 1) s.upper = input_size - 1;
  return s;
}

// No scratch; output must not overlap input.
void resize_bilinear(const ResizeBilinearParams& params, const int8_t* input, int8_t* output);

// Output row y of one image (params.batches and output_h unused): `top` and `bottom` are its input rows
// bilinear_source(y, scale_h_10, half_pixel_centers, input_h).lower and .upper. The whole-map
// kernel runs every row through it, so a row-streamed stage computes the same bytes.
void resize_bilinear_row(const ResizeBilinearParams& params, int32_t y, const int8_t* top,
                         const int8_t* bottom, int8_t* output);

}  // namespace kernels
}  // namespace mote
