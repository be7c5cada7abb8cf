#include "mote/kernels/softmax.h"

#include <math.h>

#include "fixed_point.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

constexpr int kScaledDiffIntegerBits = 5;
constexpr int kAccumulationIntegerBits = 12;

// exp(diff * beta * input_scale) with 0 integer bits, for diff >= diff_min.
inline int32_t exp_of_diff(const SoftmaxParams& p, int32_t diff) {
  // TFLite's MultiplyByQuantizedMultiplierGreaterThanOne; diff_min keeps the shift in range.
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(diff) << p.input_left_shift);
  const int32_t scaled_diff = saturating_rounding_doubling_high_mul(shifted, p.input_multiplier);
  return fixed_point::exp_on_negative_values(scaled_diff, kScaledDiffIntegerBits);
}

// Each exp_of_diff of a row computed once, for both passes, in `exps`: per element in rows of at
// most kPerElement (`table` false), else per difference from the row's maximum (an int8 row has
// at most 256), filled as differences turn up.
constexpr int32_t kPerElement = 32;
constexpr int32_t kDifferences = 256;

template <typename Out, int kMin, int kMax>
void softmax_rows(const SoftmaxParams& p, const int8_t* input, Out* output, int32_t* exps,
                  bool table) {
  constexpr int kOutputBits = static_cast<int>(sizeof(Out) * 8);
  for (int32_t r = 0; r < p.rows; ++r, input += p.row_size, output += p.row_size) {
    int32_t max_in_row = -128;
    for (int32_t c = 0; c < p.row_size; ++c) max_in_row = input[c] > max_in_row ? input[c] : max_in_row;

    // The exp of element c's difference, or -1 where it is below diff_min (its output is kMin).
    if (table) {
      for (int32_t d = 0; d < kDifferences; ++d) exps[d] = -2;  // not computed yet
    }
    int32_t sum_of_exps = 0;  // 12 integer bits
    for (int32_t c = 0; c < p.row_size; ++c) {
      const int32_t diff = input[c] - max_in_row;
      int32_t& e = table ? exps[-diff] : exps[c];
      if (!table || e == -2) e = diff >= p.diff_min ? exp_of_diff(p, diff) : -1;
      if (e >= 0) sum_of_exps += fixed_point::rescale(e, 0, kAccumulationIntegerBits);
    }

    int num_bits_over_unit = 0;
    const int32_t shifted_scale =
        fixed_point::get_reciprocal(sum_of_exps, kAccumulationIntegerBits, &num_bits_over_unit);
    const int exponent = num_bits_over_unit + 31 - kOutputBits;

    for (int32_t c = 0; c < p.row_size; ++c) {
      const int32_t e = table ? exps[max_in_row - input[c]] : exps[c];
      int32_t out = kMin;
      if (e >= 0) {
        const int32_t prob = fixed_point::mul(shifted_scale, e);
        // prob >= 0, so a shift beyond 31 bits rounds to 0 (only for rows of hundreds of
        // near-equal values).
        const int32_t unsat = exponent > 31 ? 0 : rounding_divide_by_pot(prob, exponent);
        out = unsat + kMin;
        out = out > kMax ? kMax : out;
        out = out < kMin ? kMin : out;
      }
      output[c] = static_cast<Out>(out);
    }
  }
}

// The exps on the stack: 128 bytes for short rows (a classifier's head), 1 KB for the table, each
// in a frame of its own.
template <typename Out, int kMin, int kMax>
__attribute__((noinline)) void softmax_short_rows(const SoftmaxParams& p, const int8_t* input,
                                                  Out* output) {
  int32_t exps[kPerElement];
  softmax_rows<Out, kMin, kMax>(p, input, output, exps, false);
}

template <typename Out, int kMin, int kMax>
__attribute__((noinline)) void softmax_long_rows(const SoftmaxParams& p, const int8_t* input,
                                                 Out* output) {
  int32_t exps[kDifferences];
  softmax_rows<Out, kMin, kMax>(p, input, output, exps, true);
}

template <typename Out, int kMin, int kMax>
void softmax_of(const SoftmaxParams& p, const int8_t* input, Out* output) {
  if (p.row_size <= kPerElement) {
    softmax_short_rows<Out, kMin, kMax>(p, input, output);
  } else {
    softmax_long_rows<Out, kMin, kMax>(p, input, output);
  }
}

}  // namespace

SoftmaxParams prepare_softmax(int32_t rows, int32_t row_size, float input_scale, float beta) {
  SoftmaxParams p{};
  p.rows = rows;
  p.row_size = row_size;
  // The multiplier is capped: exp() of any non-zero difference is then 0 anyway.
  const double max_real_multiplier = static_cast<double>((int64_t{1} << 31) - 1);
  double real_multiplier = static_cast<double>(beta) * static_cast<double>(input_scale) *
                           static_cast<double>(int64_t{1} << (31 - kScaledDiffIntegerBits));
  if (real_multiplier > max_real_multiplier) real_multiplier = max_real_multiplier;
  const QuantizedMultiplier m = quantize_multiplier(real_multiplier);
  p.input_multiplier = m.multiplier;
  p.input_left_shift = m.shift;
  // Largest |diff| whose rescaled value still fits the 5 integer bits (floored). A multiplier
  // below 1/2 gives a negative shift, which the kernel cannot apply (callers must refuse it;
  // TFLite requires a multiplier above 1): computed without undefined shifts or casts anyway.
  double max_input_rescaled = 1.0 * ((1 << kScaledDiffIntegerBits) - 1) *
                              static_cast<double>(int64_t{1} << (31 - kScaledDiffIntegerBits)) /
                              ldexp(1.0, p.input_left_shift);
  if (max_input_rescaled > 2147483647.0) max_input_rescaled = 2147483647.0;
  p.diff_min = -static_cast<int32_t>(floor(max_input_rescaled));
  return p;
}

void softmax(const SoftmaxParams& params, const int8_t* input, int8_t* output) {
  softmax_of<int8_t, -128, 127>(params, input, output);
}

void softmax(const SoftmaxParams& params, const int8_t* input, int16_t* output) {
  softmax_of<int16_t, -32768, 32767>(params, input, output);
}

}  // namespace kernels
}  // namespace mote
