#include "mote/kernels/resize_nearest_neighbor.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

namespace mote {
namespace kernels {

ResizeNearestNeighborParams prepare_resize_nearest_neighbor(int32_t batches, int32_t input_h,
                                                            int32_t input_w, int32_t channels,
                                                            int32_t output_h, int32_t output_w,
                                                            bool align_corners,
                                                            bool half_pixel_centers) {
  return ResizeNearestNeighborParams{batches,  input_h,  input_w,       channels,
                                     output_h, output_w, align_corners, half_pixel_centers};
}

int32_t nearest_neighbor_index(int32_t out, int32_t input_size, int32_t output_size,
                               bool align_corners, bool half_pixel_centers) {
  // Single-precision float, exactly as TFLite computes it.
  const float scale = (align_corners && output_size > 1)
                          ? static_cast<float>(input_size - 1) / static_cast<float>(output_size - 1)
                          : static_cast<float>(input_size) / static_cast<float>(output_size);
  const float offset = half_pixel_centers ? 0.5f : 0.0f;
  const float position = (static_cast<float>(out) + offset) * scale;
  int32_t index = align_corners ? static_cast<int32_t>(roundf(position))
                                : static_cast<int32_t>(floorf(position));
  if (index > input_size - 1) index = input_size - 1;
  if (half_pixel_centers && index < 0) index = 0;
  return index;
}

void resize_nearest_neighbor(const ResizeNearestNeighborParams& p, const int8_t* input,
                             int8_t* output) {
  const size_t channels = static_cast<size_t>(p.channels);
  const ptrdiff_t row = static_cast<ptrdiff_t>(p.input_w) * p.channels;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * static_cast<ptrdiff_t>(p.input_h) * row;
    for (int32_t y = 0; y < p.output_h; ++y) {
      const int32_t in_y =
          nearest_neighbor_index(y, p.input_h, p.output_h, p.align_corners, p.half_pixel_centers);
      const int8_t* src_row = image + in_y * row;
      for (int32_t x = 0; x < p.output_w; ++x) {
        const int32_t in_x = nearest_neighbor_index(x, p.input_w, p.output_w, p.align_corners,
                                                    p.half_pixel_centers);
        const int8_t* src = src_row + in_x * static_cast<ptrdiff_t>(p.channels);
        memcpy(output, src, channels);
        output += channels;
      }
    }
  }
}

}  // namespace kernels
}  // namespace mote
