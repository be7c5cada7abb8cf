#include "mote/kernels/resize_bilinear.h"

namespace mote {
namespace kernels {
namespace {

int32_t scale_10(int32_t in, int32_t out, bool align_corners) {
  if (align_corners && out > 1) return (1024 * (in - 1) + (out - 1) / 2) / (out - 1);
  return (1024 * in + out / 2) / out;
}

}  // namespace

ResizeBilinearParams prepare_resize_bilinear(int32_t batches, int32_t input_h, int32_t input_w,
                                             int32_t channels, int32_t output_h,
                                             int32_t output_w, bool align_corners,
                                             bool half_pixel_centers, bool half_to_even) {
  ResizeBilinearParams p{};
  p.batches = batches;
  p.input_h = input_h;
  p.input_w = input_w;
  p.channels = channels;
  p.output_h = output_h;
  p.output_w = output_w;
  p.scale_h_10 = scale_10(input_h, output_h, align_corners);
  p.scale_w_10 = scale_10(input_w, output_w, align_corners);
  p.half_pixel_centers = half_pixel_centers;
  p.half_to_even = half_to_even;
  return p;
}

namespace {

// v / 2^20 rounded half away from zero (TFLite), or half to even (>> floors; a tie's floor k
// moves up when odd).
struct HalfAwayFromZero {
  static int32_t round(int32_t v) { return (v + (v > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20); }
};
struct HalfToEven {
  static int32_t round(int32_t v) { return (v + (1 << 19) - 1 + ((v >> 20) & 1)) >> 20; }
};

template <typename Rounding>
void bilinear_row(const ResizeBilinearParams& p, int32_t y, const int8_t* top,
                  const int8_t* bottom, int8_t* output) {
  const BilinearSource sy = bilinear_source(y, p.scale_h_10, p.half_pixel_centers, p.input_h);
  const int32_t fy = sy.scaled - 1024 * sy.lower;
  for (int32_t x = 0; x < p.output_w; ++x) {
    const BilinearSource sx = bilinear_source(x, p.scale_w_10, p.half_pixel_centers, p.input_w);
    const int32_t fx = sx.scaled - 1024 * sx.lower;
    const int32_t w_tl = (1024 - fy) * (1024 - fx), w_bl = fy * (1024 - fx);
    const int32_t w_tr = (1024 - fy) * fx, w_br = fy * fx;
    const int8_t* tl = top + sx.lower * p.channels;
    const int8_t* tr = top + sx.upper * p.channels;
    const int8_t* bl = bottom + sx.lower * p.channels;
    const int8_t* br = bottom + sx.upper * p.channels;
    for (int32_t c = 0; c < p.channels; ++c) {
      const int32_t v = tl[c] * w_tl + bl[c] * w_bl + tr[c] * w_tr + br[c] * w_br;
      *output++ = static_cast<int8_t>(Rounding::round(v));
    }
  }
}

}  // namespace

void resize_bilinear_row(const ResizeBilinearParams& p, int32_t y, const int8_t* top,
                         const int8_t* bottom, int8_t* output) {
  if (p.half_to_even) {
    bilinear_row<HalfToEven>(p, y, top, bottom, output);
  } else {
    bilinear_row<HalfAwayFromZero>(p, y, top, bottom, output);
  }
}

void resize_bilinear(const ResizeBilinearParams& p, const int8_t* input, int8_t* output) {
  const int32_t row = p.input_w * p.channels;
  const int32_t out_row = p.output_w * p.channels;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + static_cast<int64_t>(b) * p.input_h * row;
    for (int32_t y = 0; y < p.output_h; ++y) {
      const BilinearSource sy = bilinear_source(y, p.scale_h_10, p.half_pixel_centers, p.input_h);
      resize_bilinear_row(p, y, image + static_cast<int64_t>(sy.lower) * row,
                          image + static_cast<int64_t>(sy.upper) * row, output);
      output += out_row;
    }
  }
}

}  // namespace kernels
}  // namespace mote
