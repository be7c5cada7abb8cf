#include "mote/kernels/add.h"

#include "broadcast_loop.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

// kSign +1 adds, -1 subtracts the scaled second input.
template <int kSign, typename T = int8_t>
struct AddOp {
  const AddParams& p;
  T operator()(T x1, T x2) const {
    const int32_t shifted1 = (p.input1_offset + x1) * (int32_t{1} << p.left_shift);
    const int32_t shifted2 = (p.input2_offset + x2) * (int32_t{1} << p.left_shift);
    const int32_t scaled1 =
        multiply_by_quantized_multiplier(shifted1, p.input1_multiplier, p.input1_shift);
    const int32_t scaled2 =
        multiply_by_quantized_multiplier(shifted2, p.input2_multiplier, p.input2_shift);
    int32_t out = multiply_by_quantized_multiplier(scaled1 + kSign * scaled2, p.output_multiplier,
                                                   p.output_shift) +
                  p.output_offset;
    out = out < p.act_min ? p.act_min : out;
    out = out > p.act_max ? p.act_max : out;
    return static_cast<T>(out);
  }
};

// Both inputs' rescaling (within 2^30 - 128) and their sum's requantization hold for inputs
// shifted up to `shifted`.
bool fits_within(const AddParams& p, int64_t shifted) {
  const int64_t half = (int64_t{1} << 30) - 128;
  if (!requant_fits(shifted, p.input1_multiplier, p.input1_shift, half) ||
      !requant_fits(shifted, p.input2_multiplier, p.input2_shift, half)) {
    return false;
  }
  const int64_t b1 = p.input1_shift > 0 ? shifted << p.input1_shift : shifted;
  const int64_t b2 = p.input2_shift > 0 ? shifted << p.input2_shift : shifted;
  return requant_fits(b1 + b2, p.output_multiplier, p.output_shift);
}

// TFLite's Prepare with `left_shift` bits of headroom (20 for int8, 15 for int16).
AddParams prepare_with_shift(float input1_scale, int32_t input1_zero_point, float input2_scale,
                             int32_t input2_zero_point, float output_scale,
                             int32_t output_zero_point, int32_t act_min, int32_t act_max,
                             int32_t left_shift) {
  AddParams p{};
  p.input1_offset = -input1_zero_point;
  p.input2_offset = -input2_zero_point;
  p.output_offset = output_zero_point;
  p.left_shift = left_shift;
  const double twice_max_input_scale =
      2.0 * static_cast<double>(input1_scale > input2_scale ? input1_scale : input2_scale);
  const double real_input1_multiplier = static_cast<double>(input1_scale) / twice_max_input_scale;
  const double real_input2_multiplier = static_cast<double>(input2_scale) / twice_max_input_scale;
  const double real_output_multiplier =
      twice_max_input_scale /
      (static_cast<double>(int32_t{1} << p.left_shift) * static_cast<double>(output_scale));
  const QuantizedMultiplier m1 = quantize_multiplier(real_input1_multiplier);
  const QuantizedMultiplier m2 = quantize_multiplier(real_input2_multiplier);
  const QuantizedMultiplier mo = quantize_multiplier(real_output_multiplier);
  p.input1_multiplier = m1.multiplier;
  p.input1_shift = m1.shift;
  p.input2_multiplier = m2.multiplier;
  p.input2_shift = m2.shift;
  p.output_multiplier = mo.multiplier;
  p.output_shift = mo.shift;
  p.act_min = act_min;
  p.act_max = act_max;
  return p;
}

}  // namespace

bool add_fits(const AddParams& p) { return fits_within(p, int64_t{255} << p.left_shift); }
// int16 inputs shifted by 15 reach 2^30, past fits_within's 2^30 - 128 for each rescaled input;
// the rescaled values themselves stay near 2^29 (multipliers below 1), so bound them from the
// multipliers before the sum's requantization.
bool add_int16_fits(const AddParams& p) {
  const int64_t shifted = int64_t{32768} << p.left_shift;
  if (!requant_fits(shifted, p.input1_multiplier, p.input1_shift) ||
      !requant_fits(shifted, p.input2_multiplier, p.input2_shift)) {
    return false;
  }
  auto rescaled = [&](int32_t multiplier, int32_t shift) {
    const int64_t v = (shifted * multiplier) >> 31;
    return (shift > 0 ? v << shift : v >> -shift) + 1;
  };
  return requant_fits(rescaled(p.input1_multiplier, p.input1_shift) +
                          rescaled(p.input2_multiplier, p.input2_shift),
                      p.output_multiplier, p.output_shift);
}

AddParams prepare_add(float input1_scale, int32_t input1_zero_point, float input2_scale,
                      int32_t input2_zero_point, float output_scale, int32_t output_zero_point,
                      int32_t act_min, int32_t act_max) {
  return prepare_with_shift(input1_scale, input1_zero_point, input2_scale, input2_zero_point,
                            output_scale, output_zero_point, act_min, act_max, 20);
}

AddParams prepare_add_int16(float input1_scale, int32_t input1_zero_point, float input2_scale,
                            int32_t input2_zero_point, float output_scale,
                            int32_t output_zero_point, int32_t act_min, int32_t act_max) {
  return prepare_with_shift(input1_scale, input1_zero_point, input2_scale, input2_zero_point,
                            output_scale, output_zero_point, act_min, act_max, 15);
}

void portable_add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
                  const int8_t* input2, int8_t* output) {
  internal::broadcast_binary(shape, input1, input2, output, AddOp<1>{params});
}

void sub(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  internal::broadcast_binary(shape, input1, input2, output, AddOp<-1>{params});
}

void add(const AddParams& params, const BroadcastShape& shape, const int16_t* input1,
         const int16_t* input2, int16_t* output) {
  internal::broadcast_binary(shape, input1, input2, output, AddOp<1, int16_t>{params});
}

void sub(const AddParams& params, const BroadcastShape& shape, const int16_t* input1,
         const int16_t* input2, int16_t* output) {
  internal::broadcast_binary(shape, input1, input2, output, AddOp<-1, int16_t>{params});
}

}  // namespace kernels
}  // namespace mote
