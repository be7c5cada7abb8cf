#pragma once
// Program options tables filled from a kernel's prepared parameters, for the operators whose
// lowering is the kernel's prepare_* function. The operator definitions and the tests that build
// programs by hand both use these, so they never disagree on which field is which.

#include <memory>

#include "mote/kernels/add.h"
#include "mote/kernels/hard_swish.h"
#include "mote/kernels/log_softmax.h"
#include "mote/kernels/logistic.h"
#include "mote/kernels/mul.h"
#include "mote/schema/mote_generated.h"

namespace mote::emit {

inline std::unique_ptr<schema::Requant> requant(int32_t multiplier, int32_t shift) {
  return std::make_unique<schema::Requant>(multiplier, shift);
}

// ADD (the subtraction shares it).
// The fields ADD and MUL share: offsets, output requantization, clamp.
template <typename Options, typename Params>
Options binary_arithmetic_options(const Params& p) {
  Options o;
  o.input1_offset = p.input1_offset;
  o.input2_offset = p.input2_offset;
  o.output_offset = p.output_offset;
  o.output_requant = requant(p.output_multiplier, p.output_shift);
  o.activation_min = p.act_min;
  o.activation_max = p.act_max;
  return o;
}

inline schema::AddOptionsT program_options(const kernels::AddParams& p) {
  auto o = binary_arithmetic_options<schema::AddOptionsT>(p);
  o.left_shift = p.left_shift;
  o.input1_requant = requant(p.input1_multiplier, p.input1_shift);
  o.input2_requant = requant(p.input2_multiplier, p.input2_shift);
  return o;
}

inline schema::MulOptionsT program_options(const kernels::MulParams& p) {
  return binary_arithmetic_options<schema::MulOptionsT>(p);
}

// HARD_SWISH's fixed-point form (without a table).
inline schema::HardSwishOptionsT program_options(const kernels::HardSwishParams& p) {
  schema::HardSwishOptionsT o;
  o.input_zero_point = p.input_zero_point;
  o.output_zero_point = p.output_zero_point;
  o.reluish_multiplier_fixedpoint_int16 = p.reluish_multiplier_fixedpoint_int16;
  o.reluish_multiplier_exponent = p.reluish_multiplier_exponent;
  o.output_multiplier_fixedpoint_int16 = p.output_multiplier_fixedpoint_int16;
  o.output_multiplier_exponent = p.output_multiplier_exponent;
  return o;
}

// LOG_SOFTMAX.
inline schema::LogSoftmaxOptionsT program_options(const kernels::LogSoftmaxParams& p) {
  schema::LogSoftmaxOptionsT o;
  o.input_multiplier = p.input_multiplier;
  o.input_left_shift = p.input_left_shift;
  o.reverse_scaling_divisor = p.reverse_scaling_divisor;
  o.reverse_scaling_right_shift = p.reverse_scaling_right_shift;
  o.diff_min = p.diff_min;
  return o;
}

// The fixed-point LOGISTIC (without a table).
inline schema::LogisticOptionsT program_options(const kernels::LogisticParams& p) {
  schema::LogisticOptionsT o;
  o.input_zero_point = p.input_zero_point;
  o.input_range_radius = p.input_range_radius;
  o.input_multiplier = p.input_multiplier;
  o.input_left_shift = p.input_left_shift;
  return o;
}

}  // namespace mote::emit
