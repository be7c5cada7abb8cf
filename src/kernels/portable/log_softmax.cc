#include "mote/kernels/log_softmax.h"

#include <math.h>

#include "fixed_point.h"
#include "mote/kernels/quantization.h"
#include "mote/kernels/softmax.h"

namespace mote {
namespace kernels {
namespace {

constexpr int kScaledDiffIntegerBits = 5;
constexpr int kAccumulationIntegerBits = 12;
constexpr int kOutputIntegerBits = 4;  // the output's 16/256 steps: log-probabilities down to -16

// x - max(row) in Q5.26.
inline int32_t scaled_diff(const LogSoftmaxParams& p, int32_t diff) {
  return multiply_by_quantized_multiplier(diff, p.input_multiplier, p.input_left_shift);
}

}  // namespace

LogSoftmaxParams prepare_log_softmax(int32_t rows, int32_t row_size, float input_scale) {
  // The forward scaling and diff_min are softmax's with beta 1.
  const SoftmaxParams s = prepare_softmax(rows, row_size, input_scale, 1.0f);
  LogSoftmaxParams p{};
  p.rows = rows;
  p.row_size = row_size;
  p.input_multiplier = s.input_multiplier;
  p.input_left_shift = s.input_left_shift;
  p.diff_min = s.diff_min;
  p.reverse_scaling_right_shift = -1;  // not derivable: refused by log_softmax_params_ok
  if (s.input_left_shift < 1 || s.input_left_shift > 31 || s.input_multiplier <= 0) return p;
  const double reverse = ldexp(1.0, 31 - s.input_left_shift) / s.input_multiplier;
  const QuantizedMultiplier r = quantize_multiplier(reverse);
  // TFLite requires the reverse scaling below one (a shift of at most 0).
  if (reverse >= 1.0 || r.shift > 0) return p;
  p.reverse_scaling_divisor = r.multiplier;
  p.reverse_scaling_right_shift = -r.shift;
  return p;
}

bool log_softmax_params_ok(const LogSoftmaxParams& p) {
  if (p.input_multiplier < 0 || p.input_left_shift < 0 || p.input_left_shift > 31) return false;
  if (p.reverse_scaling_divisor < 0 || p.reverse_scaling_right_shift < 0 ||
      p.reverse_scaling_right_shift > 31) {
    return false;
  }
  // diff_min - 1 must not wrap, and the differences the kernel scales (at least diff_min, at
  // least -255) must stay in int32 once shifted left.
  if (p.diff_min > 0 || p.diff_min == INT32_MIN) return false;
  const int64_t largest_diff = p.diff_min < -255 ? 255 : -int64_t{p.diff_min};
  return (largest_diff << p.input_left_shift) <= INT32_MAX;
}

void log_softmax(const LogSoftmaxParams& params, const int8_t* input, int8_t* output) {
  const LogSoftmaxParams p = params;  // a local copy: output stores could alias params
  for (int32_t r = 0; r < p.rows; ++r, input += p.row_size, output += p.row_size) {
    int32_t max_in_row = -128;
    for (int32_t c = 0; c < p.row_size; ++c) max_in_row = input[c] > max_in_row ? input[c] : max_in_row;

    int32_t sum_of_exps = 0;  // 12 integer bits; rows below kLogSoftmaxMaxRow cannot overflow
    for (int32_t c = 0; c < p.row_size; ++c) {
      const int32_t diff = input[c] - max_in_row;
      if (diff < p.diff_min) continue;
      const int32_t e = fixed_point::exp_on_negative_values(scaled_diff(p, diff), kScaledDiffIntegerBits);
      sum_of_exps += fixed_point::rescale(e, 0, kAccumulationIntegerBits);
    }
    const int32_t log_sum = fixed_point::log_x_for_x_at_least_1(
        sum_of_exps, kAccumulationIntegerBits, kScaledDiffIntegerBits);

    // A difference at or below `lowest` would take the output below Q5.26's range once log_sum
    // is subtracted (the reverse scaling brings that bound to input units), as would one below
    // diff_min: it writes -128. log_sum >= 0, so the bound does not wrap.
    const int32_t lowest_in_q5 = log_sum + INT32_MIN;
    const int32_t lowest_diff = multiply_by_quantized_multiplier(
        lowest_in_q5, p.reverse_scaling_divisor, -p.reverse_scaling_right_shift);
    const int32_t lowest = p.diff_min - 1 > lowest_diff ? p.diff_min - 1 : lowest_diff;

    for (int32_t c = 0; c < p.row_size; ++c) {
      const int32_t diff = input[c] - max_in_row;
      int32_t out = -128;
      if (diff > lowest) {
        // In int32 as TFLite computes it (wrapping, which `lowest` rules out in practice).
        const int32_t log_prob = static_cast<int32_t>(static_cast<uint32_t>(scaled_diff(p, diff)) -
                                                      static_cast<uint32_t>(log_sum));
        out = rounding_divide_by_pot(log_prob, 31 - kScaledDiffIntegerBits - kOutputIntegerBits) + 127;
        out = out > 127 ? 127 : (out < -128 ? -128 : out);
      }
      output[c] = static_cast<int8_t>(out);
    }
  }
}

}  // namespace kernels
}  // namespace mote
