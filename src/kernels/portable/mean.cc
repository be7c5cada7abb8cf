#include "mote/kernels/mean.h"

namespace mote {
namespace kernels {

QuantizedMultiplier fold_mean_count(QuantizedMultiplier m, int64_t count) {
  // floor(log2(count)), kept <= 32 (no overflow of the int64 shift) and <= 31 + shift (the
  // folded shift stays >= -31, what MultiplyByQuantizedMultiplier accepts).
  int32_t s = 0;
  while (s < 62 && (int64_t{2} << s) <= count) ++s;
  if (s > 32) s = 32;
  if (s > 31 + m.shift) s = 31 + m.shift;
  if (s < 0) s = 0;
  QuantizedMultiplier r;
  r.multiplier = static_cast<int32_t>((static_cast<int64_t>(m.multiplier) << s) / count);
  r.shift = m.shift - s;
  return r;
}

QuantizedMultiplier mean_requant(float input_scale, float output_scale, int64_t count) {
  return fold_mean_count(
      quantize_multiplier(static_cast<double>(input_scale) / static_cast<double>(output_scale)),
      count);
}

QuantizedMultiplier sum_requant(float input_scale, float output_scale) {
  return quantize_multiplier(static_cast<double>(input_scale) / static_cast<double>(output_scale));
}

MeanParams prepare_mean(int32_t rank, const int32_t* dims, int32_t axis_count,
                        const int32_t* axes, int32_t input_zero_point, int32_t output_zero_point,
                        int32_t multiplier, int32_t shift) {
  MeanParams p{};
  p.count = 1;
  for (int32_t d = 0; d < rank; ++d) {
    bool reduced = false;
    for (int32_t a = 0; a < axis_count; ++a) reduced = reduced || axes[a] == d;
    if (reduced) p.count *= dims[d];
    if (dims[d] == 1) continue;
    if (p.rank > 0 && p.reduced[p.rank - 1] == reduced) {
      p.dims[p.rank - 1] *= dims[d];
    } else {
      p.dims[p.rank] = dims[d];
      p.reduced[p.rank] = reduced;
      ++p.rank;
    }
  }
  if (p.rank == 0) {  // a single element
    p.rank = 1;
    p.dims[0] = 1;
    p.reduced[0] = false;
  }
  p.input_zero_point = input_zero_point;
  p.output_zero_point = output_zero_point;
  p.multiplier = multiplier;
  p.shift = shift;
  return p;
}

namespace {

// An odometer over some of the groups: their sizes and input strides, the current index and the
// input offset it stands for.
struct Walk {
  int32_t n = 0;
  int32_t dims[kMaxMeanRank];
  int32_t strides[kMaxMeanRank];
  int32_t index[kMaxMeanRank];
  int32_t offset = 0;

  void add(int32_t dim, int32_t stride) {
    dims[n] = dim;
    strides[n] = stride;
    index[n] = 0;
    ++n;
  }
  // Steps to the next index, innermost group fastest.
  void next() {
    for (int32_t k = n - 1; k >= 0; --k) {
      offset += strides[k];
      if (++index[k] < dims[k]) return;
      offset -= dims[k] * strides[k];
      index[k] = 0;
    }
  }
};

// The kept and reduced groups of `p` as two odometers; returns the number of outputs.
int32_t split_walks(const MeanParams& p, Walk& kept, Walk& reduced) {
  int32_t strides[kMaxMeanRank];
  int32_t stride = 1, outputs = 1;
  for (int32_t k = p.rank - 1; k >= 0; --k) {
    strides[k] = stride;
    stride *= p.dims[k];
  }
  for (int32_t k = 0; k < p.rank; ++k) {
    if (p.reduced[k]) {
      reduced.add(p.dims[k], strides[k]);
    } else {
      kept.add(p.dims[k], strides[k]);
      outputs *= p.dims[k];
    }
  }
  return outputs;
}

template <typename T>
void mean_of(const MeanParams& p, const T* input, T* output, int32_t lowest, int32_t highest) {
  Walk kept, reduced;
  const int32_t outputs = split_walks(p, kept, reduced);
  const int64_t centre = static_cast<int64_t>(p.input_zero_point) * p.count;
  for (int32_t o = 0; o < outputs; ++o, kept.next()) {
    const T* base = input + kept.offset;
    int32_t sum = 0;
    reduced.offset = 0;
    for (int32_t e = 0; e < p.count; ++e, reduced.next()) sum += base[reduced.offset];
    const int32_t centred = static_cast<int32_t>(sum - centre);
    int32_t out = multiply_by_quantized_multiplier(centred, p.multiplier, p.shift);
    out += p.output_zero_point;
    out = out < lowest ? lowest : (out > highest ? highest : out);
    output[o] = static_cast<T>(out);
  }
}

}  // namespace

void mean(const MeanParams& p, const int8_t* input, int8_t* output) {
  mean_of(p, input, output, -128, 127);
}

void mean(const MeanParams& p, const int16_t* input, int16_t* output) {
  mean_of(p, input, output, -32768, 32767);
}

void reduce_max(const MeanParams& p, const int8_t* input, int8_t* output) {
  Walk kept, reduced;
  const int32_t outputs = split_walks(p, kept, reduced);
  for (int32_t o = 0; o < outputs; ++o, kept.next()) {
    const int8_t* base = input + kept.offset;
    int8_t largest = -128;
    reduced.offset = 0;
    for (int32_t e = 0; e < p.count; ++e, reduced.next()) {
      const int8_t v = base[reduced.offset];
      largest = v > largest ? v : largest;
    }
    output[o] = largest;
  }
}

}  // namespace kernels
}  // namespace mote
