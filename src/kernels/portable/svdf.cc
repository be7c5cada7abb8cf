// SVDF: TFLM's integer reference, one time step per call (mote/kernels/svdf.h).

#include "mote/kernels/svdf.h"

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

template <typename T>
struct Limits;
template <>
struct Limits<int16_t> {
  static constexpr int32_t kMin = -32768, kMax = 32767;
};
template <>
struct Limits<int8_t> {
  static constexpr int32_t kMin = -128, kMax = 127;
};

// int32 arithmetic modulo 2^32, as the references' sums behave on the CPU.
inline int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t wrap_mul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

template <typename T>
void svdf_step(const SvdfParams& p, const int8_t* input, const int8_t* weights_feature,
               const T* weights_time, const int32_t* bias, T* state, int8_t* output,
               int32_t* scratch) {
  const int32_t batches = p.batches, filters = p.filters, memory = p.memory;
  const int32_t units = filters / p.rank;
  const size_t state_count = static_cast<size_t>(batches) * static_cast<size_t>(filters) *
                             static_cast<size_t>(memory);

  // 1. The whole state, one element towards the front (front to back: no value is read after
  // it was overwritten).
  for (size_t k = 1; k < state_count; ++k) state[k - 1] = state[k];

  // 2. The newest value of every filter: the feature dot product, requantized into the state.
  for (int32_t b = 0; b < batches; ++b) {
    const int8_t* x = input + static_cast<size_t>(b) * static_cast<size_t>(p.input_size);
    T* newest = state + static_cast<size_t>(b) * static_cast<size_t>(filters) *
                            static_cast<size_t>(memory) +
                (memory - 1);
    const int8_t* w = weights_feature;
    for (int32_t f = 0; f < filters; ++f) {
      int32_t acc = 0;
      for (int32_t i = 0; i < p.input_size; ++i) {
        acc += static_cast<int32_t>(*w++) * (static_cast<int32_t>(x[i]) - p.input_zero_point);
      }
      int32_t v = multiply_by_quantized_multiplier(acc, p.feature_multiplier, p.feature_shift);
      v += p.state_zero_point;
      v = v < Limits<T>::kMin ? Limits<T>::kMin : v;
      v = v > Limits<T>::kMax ? Limits<T>::kMax : v;
      *newest = static_cast<T>(v);
      newest += memory;
    }
  }

  // 3. Each filter's memory weighted by its time weights.
  int32_t* dots = scratch;
  int32_t* sums = scratch + static_cast<size_t>(batches) * static_cast<size_t>(filters);
  for (int32_t b = 0; b < batches; ++b) {
    const T* s = state + static_cast<size_t>(b) * static_cast<size_t>(filters) *
                             static_cast<size_t>(memory);
    const T* wt = weights_time;
    int32_t* d = dots + static_cast<size_t>(b) * static_cast<size_t>(filters);
    for (int32_t f = 0; f < filters; ++f) {
      int32_t acc = 0;
      for (int32_t t = 0; t < memory; ++t) {
        acc = wrap_add(acc, wrap_mul(*wt++, static_cast<int32_t>(*s++) - p.state_zero_point));
      }
      d[f] = acc;
    }
  }

  // 4. Bias, the rank filters of each unit summed, requantized to int8.
  for (int32_t b = 0; b < batches; ++b) {
    int32_t* o = sums + static_cast<size_t>(b) * static_cast<size_t>(units);
    const int32_t* d = dots + static_cast<size_t>(b) * static_cast<size_t>(filters);
    for (int32_t u = 0; u < units; ++u) {
      int32_t acc = bias != nullptr ? bias[u] : 0;
      for (int32_t r = 0; r < p.rank; ++r) acc = wrap_add(acc, *d++);
      o[u] = acc;
    }
  }
  const size_t outputs = static_cast<size_t>(batches) * static_cast<size_t>(units);
  for (size_t k = 0; k < outputs; ++k) {
    // A shift <= 0 keeps the product within int32; the offset is added in 64 bits.
    int64_t v = multiply_by_quantized_multiplier(sums[k], p.time_multiplier, p.time_shift);
    v += p.output_zero_point;
    v = v < -128 ? -128 : v;
    v = v > 127 ? 127 : v;
    output[k] = static_cast<int8_t>(v);
  }
}

}  // namespace

void svdf(const SvdfParams& params, const int8_t* input, const int8_t* weights_feature,
          const int16_t* weights_time, const int32_t* bias, int16_t* state, int8_t* output,
          int32_t* scratch) {
  svdf_step(params, input, weights_feature, weights_time, bias, state, output, scratch);
}

void svdf(const SvdfParams& params, const int8_t* input, const int8_t* weights_feature,
          const int8_t* weights_time, const int32_t* bias, int8_t* state, int8_t* output,
          int32_t* scratch) {
  svdf_step(params, input, weights_feature, weights_time, bias, state, output, scratch);
}

}  // namespace kernels
}  // namespace mote
