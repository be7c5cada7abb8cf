#include "mote/kernels/pad.h"

#include <string.h>

namespace mote {
namespace kernels {
namespace {

// `count` copies of the pad value.
void fill(int8_t* output, int8_t value, size_t count) { memset(output, value, count); }
void fill(int16_t* output, int16_t value, size_t count) {
  for (size_t i = 0; i < count; ++i) output[i] = value;
}

// Writes the padded block of dimension `d` onwards and returns the advanced output pointer.
// out_inner[d] is the number of output elements of one index of dimension d.
template <typename T>
T* pad_dimension(const PadParams& p, T value, const int32_t* out_inner, const int32_t* in_inner,
                 int32_t d, const T* input, T* output) {
  const size_t before = static_cast<size_t>(p.before[d]) * static_cast<size_t>(out_inner[d]);
  const size_t after = static_cast<size_t>(p.after[d]) * static_cast<size_t>(out_inner[d]);
  fill(output, value, before);
  output += before;
  if (d == p.rank - 1) {
    memcpy(output, input, static_cast<size_t>(p.input_dims[d]) * sizeof(T));
    output += p.input_dims[d];
  } else {
    for (int32_t i = 0; i < p.input_dims[d]; ++i) {
      output = pad_dimension(p, value, out_inner, in_inner, d + 1, input + i * in_inner[d], output);
    }
  }
  fill(output, value, after);
  return output + after;
}

// The same padding over fewer dimensions: the dimensions after the last padded one fold into it
// (NHWC padded in height and width: a row of width * channels elements), so the innermost level
// copies whole rows at once instead of one pixel at a time.
PadParams merged_inner_dims(const PadParams& p) {
  int32_t last = p.rank - 1;
  while (last > 0 && p.before[last] == 0 && p.after[last] == 0) --last;
  PadParams q = p;
  q.rank = last + 1;
  for (int32_t d = last + 1; d < p.rank; ++d) {
    q.input_dims[last] *= p.input_dims[d];
    q.before[last] *= p.input_dims[d];
    q.after[last] *= p.input_dims[d];
  }
  return q;
}

template <typename T>
void pad_all(const PadParams& unmerged, T value, const T* input, T* output) {
  if (unmerged.rank <= 0) {
    output[0] = input[0];
    return;
  }
  const PadParams params = merged_inner_dims(unmerged);
  // Elements per index of each dimension, in the output and in the input.
  int32_t out_inner[kMaxPadRank];
  int32_t in_inner[kMaxPadRank];
  int32_t out_acc = 1;
  int32_t in_acc = 1;
  for (int32_t d = params.rank - 1; d >= 0; --d) {
    out_inner[d] = out_acc;
    in_inner[d] = in_acc;
    out_acc *= params.before[d] + params.input_dims[d] + params.after[d];
    in_acc *= params.input_dims[d];
  }
  pad_dimension(params, value, out_inner, in_inner, 0, input, output);
}

}  // namespace

PadParams prepare_pad(int32_t rank, const int32_t* input_dims, const int32_t* before,
                      const int32_t* after, int8_t pad_value) {
  PadParams p{};
  p.rank = rank;
  for (int32_t i = 0; i < rank && i < kMaxPadRank; ++i) {
    p.input_dims[i] = input_dims[i];
    p.before[i] = before[i];
    p.after[i] = after[i];
  }
  p.pad_value = pad_value;
  return p;
}

void pad(const PadParams& params, const int8_t* input, int8_t* output) {
  pad_all(params, params.pad_value, input, output);
}

void pad(const PadParams& params, const int16_t* input, int16_t* output) {
  pad_all(params, int16_t{0}, input, output);
}

}  // namespace kernels
}  // namespace mote
