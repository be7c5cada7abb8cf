// int16 SOFTMAX, TFLite's reference SoftmaxInt16: table lookups with linear interpolation.

#include <math.h>
#include <stddef.h>

#include "mote/kernels/quantization.h"
#include "mote/kernels/softmax.h"

namespace mote {
namespace kernels {
namespace {

int32_t saturate16(int32_t v) { return v < -32768 ? -32768 : (v > 32767 ? 32767 : v); }

// TFLite's generic_int16_table_lookup: entry 256 + (v >> 7), interpolated by v's low 7 bits.
int32_t lookup(const int16_t* lut, int32_t v) {
  const int32_t index = 256 + (v >> 7);
  const int32_t base = lut[index];
  const int32_t slope = lut[index + 1] - base;
  return static_cast<int16_t>(base + ((slope * (v & 0x7F) + 64) >> 7));
}

int32_t leading_zeros(uint32_t v) {
  int32_t n = 0;
  for (uint32_t bit = 0x80000000u; bit != 0 && (v & bit) == 0; bit >>= 1) ++n;
  return n;
}

// One table of kSoftmax16LutSize entries: `transform` sampled at 512 steps over the inputs that
// int16 values from -32768 to 32767 stand for (input_scale, input_zero_point), in units of an
// int16 output of `output_scale` (zero point 0), each sample lowered by half the error linear
// interpolation makes at the step's midpoint. In float throughout, as TFLite's LUTPopulateInt16.
template <typename Transform>
void populate_table(float input_scale, int32_t input_zero_point, float output_scale,
                    Transform transform, int16_t* lut) {
  const float input_min = input_scale * static_cast<float>(-32768 - input_zero_point);
  const float input_max = input_scale * static_cast<float>(32767 - input_zero_point);
  const float output_min = output_scale * -32768.0f;
  const float output_max = output_scale * 32767.0f;
  constexpr int32_t kSteps = kSoftmax16LutSize - 1;
  const float step = (input_max - input_min) / kSteps;
  const float half_step = step / 2;
  const float scaling = 65536.0f / (output_max - output_min);
  const auto clamp = [](float v) {
    return static_cast<int16_t>(v < -32768.0f ? -32768.0f : (v > 32767.0f ? 32767.0f : v));
  };
  for (int32_t i = 0; i < kSteps; ++i) {
    const float value = transform(input_min + static_cast<float>(i) * step);
    const float midpoint = transform(input_min + static_cast<float>(i) * step + half_step);
    const float next = transform(input_min + static_cast<float>(i + 1) * step);
    const float sample = roundf(value * scaling);
    const float interpolated = roundf((next * scaling + roundf(value * scaling)) / 2);
    const float bias = roundf((interpolated - roundf(midpoint * scaling)) / 2);
    lut[i] = clamp(sample - bias);
  }
  lut[kSteps] = clamp(roundf(transform(input_max) * scaling));
}

}  // namespace

void populate_softmax16_tables(int16_t* exp_lut, int16_t* one_over_one_plus_x_lut) {
  const float range = 65535.0f;  // int16's max - min
  populate_table(10.0f / range, 32767, 2.0f / range, [](float v) { return expf(v); }, exp_lut);
  populate_table(1.0f / range, -32768, 2.0f / range, [](float v) { return 1.0f / (1.0f + v); },
                 one_over_one_plus_x_lut);
}

void softmax(const Softmax16Params& params, const int16_t* input, int16_t* output) {
  const Softmax16Params p = params;  // a local copy: output stores could alias params
  if (p.row_size <= 0) return;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int16_t* x = input + static_cast<size_t>(r) * p.row_size;
    int16_t* out = output + static_cast<size_t>(r) * p.row_size;
    int32_t max_value = x[0];
    for (int32_t c = 1; c < p.row_size; ++c) max_value = x[c] > max_value ? x[c] : max_value;
    // exp(x - max) in Q0.15, kept in the output until the sum is known (as TFLite does).
    int32_t sum = 0;
    for (int32_t c = 0; c < p.row_size; ++c) {
      const int32_t scaled =
          multiply_by_quantized_multiplier(x[c] - max_value, p.input_multiplier, p.input_left_shift);
      const int32_t e = lookup(p.exp_lut, saturate16(scaled + 32767));
      out[c] = static_cast<int16_t>(e);
      sum += e;
    }
    // 1 / sum: the sum normalised to [1, 2), recentred from [0, 65535] and looked up as 1/(1+x).
    const int32_t headroom_plus_one = leading_zeros(static_cast<uint32_t>(sum));
    if (headroom_plus_one < 1 || headroom_plus_one > 30) continue;  // sum overflowed, or 0: never
    const int32_t shifted_sum = static_cast<int32_t>(
        ((static_cast<int64_t>(sum) << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    const int32_t reciprocal =
        lookup(p.one_over_one_plus_x_lut, saturate16(shifted_sum - ((1 << 15) + (1 << 16))));
    const int32_t right_shift = 31 - headroom_plus_one;
    const int64_t round = int64_t{1} << (right_shift - 1);
    for (int32_t c = 0; c < p.row_size; ++c) {
      const int64_t v = (static_cast<int64_t>(out[c]) * reciprocal + round) >> right_shift;
      out[c] = static_cast<int16_t>(v < 0 ? 0 : (v > 32767 ? 32767 : v));
    }
  }
}

}  // namespace kernels
}  // namespace mote
