#include "mote/kernels/strided_copy.h"

#include <string.h>

namespace mote {
namespace kernels {

StridedCopyParams simplify_strided_copy(const StridedCopyParams& params) {
  StridedCopyParams p{};
  int32_t n = 0;
  for (int32_t d = 0; d < params.rank; ++d) {
    if (params.dims[d] == 1) continue;
    if (n > 0) {
      // The previous kept dimension steps over exactly this one's extent on both sides.
      const int64_t extent = static_cast<int64_t>(params.dims[d]);
      if (static_cast<int64_t>(p.input_strides[n - 1]) == extent * params.input_strides[d] &&
          static_cast<int64_t>(p.output_strides[n - 1]) == extent * params.output_strides[d]) {
        p.dims[n - 1] *= params.dims[d];
        p.input_strides[n - 1] = params.input_strides[d];
        p.output_strides[n - 1] = params.output_strides[d];
        continue;
      }
    }
    p.dims[n] = params.dims[d];
    p.input_strides[n] = params.input_strides[d];
    p.output_strides[n] = params.output_strides[d];
    ++n;
  }
  if (n == 0) {  // a single element
    p.rank = 1;
    p.dims[0] = 1;
    p.input_strides[0] = 1;
    p.output_strides[0] = 1;
    return p;
  }
  p.rank = n;
  return p;
}

void strided_copy_extent(const StridedCopyParams& params, bool input, int64_t* lowest,
                         int64_t* highest) {
  *lowest = 0;
  *highest = 0;
  for (int32_t d = 0; d < params.rank; ++d) {
    const int64_t stride = input ? params.input_strides[d] : params.output_strides[d];
    const int64_t span = (static_cast<int64_t>(params.dims[d]) - 1) * stride;
    if (span < 0) {
      *lowest += span;
    } else {
      *highest += span;
    }
  }
}

namespace {

template <typename T>
void copy(const StridedCopyParams& params, const T* input, T* output) {
  const int32_t rank = params.rank;
  const int32_t last = rank - 1;
  const int32_t run = params.dims[last];
  const int32_t in_step = params.input_strides[last];
  const int32_t out_step = params.output_strides[last];
  const bool contiguous = in_step == 1 && out_step == 1;
  int32_t index[kMaxStridedCopyRank] = {0};
  const T* in = input;
  T* out = output;
  for (;;) {
    if (contiguous) {
      memcpy(out, in, static_cast<size_t>(run) * sizeof(T));
    } else {
      const T* src = in;
      T* dst = out;
      for (int32_t i = 0; i < run; ++i) {
        *dst = *src;
        src += in_step;
        dst += out_step;
      }
    }
    // Next row: an odometer over the outer dimensions.
    int32_t d = last - 1;
    for (; d >= 0; --d) {
      in += params.input_strides[d];
      out += params.output_strides[d];
      if (++index[d] < params.dims[d]) break;
      in -= static_cast<int64_t>(params.dims[d]) * params.input_strides[d];
      out -= static_cast<int64_t>(params.dims[d]) * params.output_strides[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace

void strided_copy(const StridedCopyParams& params, const int8_t* input, int8_t* output) {
  copy(params, input, output);
}

void strided_copy(const StridedCopyParams& params, const int16_t* input, int16_t* output) {
  copy(params, input, output);
}

void strided_copy(const StridedCopyParams& params, const int32_t* input, int32_t* output) {
  copy(params, input, output);
}

}  // namespace kernels
}  // namespace mote
