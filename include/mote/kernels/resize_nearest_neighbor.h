#pragma once
// int8 RESIZE_NEAREST_NEIGHBOR on NHWC tensors, with TFLite's index rule (float scale per axis,
// floor or, with align_corners, round; half_pixel_centers adds 0.5). Source indices cost a few
// float operations per output pixel, never per element; each pixel is one memcpy of its channels.
// Embeddable C++17.

#include <stdint.h>

namespace mote {
namespace kernels {

struct ResizeNearestNeighborParams {
  int32_t batches, input_h, input_w, channels;
  int32_t output_h, output_w;
  bool align_corners;
  bool half_pixel_centers;
};

// Host-callable: the parameters from the input shape [batches, input_h, input_w, channels], the
// size tensor's (output_h, output_w) and the options (the kernel accepts any combination of
// the two flags, as TFLite's index rule does).
ResizeNearestNeighborParams prepare_resize_nearest_neighbor(int32_t batches, int32_t input_h,
                                                            int32_t input_w, int32_t channels,
                                                            int32_t output_h, int32_t output_w,
                                                            bool align_corners,
                                                            bool half_pixel_centers);

// The input index TFLite reads for output index `out` along an axis (input_size in, output_size).
int32_t nearest_neighbor_index(int32_t out, int32_t input_size, int32_t output_size,
                               bool align_corners, bool half_pixel_centers);

void resize_nearest_neighbor(const ResizeNearestNeighborParams& params, const int8_t* input,
                             int8_t* output);

}  // namespace kernels
}  // namespace mote
