#pragma once
// What CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV share: their quantization at load time and
// their kernel parameters at run time, read from options tables with the same fields.

#include <type_traits>

#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "kernels/mve/instances.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {

// The kernel shapes of CONV_2D's and DEPTHWISE_CONV_2D's operators (checked at load).
kernels::ConvShape conv_shape(const schema::Program& p, const schema::Operator& op);
kernels::DepthwiseShape depthwise_shape(const schema::Program& p, const schema::Operator& op);

// The specialised code of the mve convolution kernels (kernels/mve/instances.h) operator `index`
// of a loaded `program` may run: none but for an int8 CONV_2D or DEPTHWISE_CONV_2D on the
// extension kernel (mve_instances.cc; mote_program_ops selects a firmware image's).
kernels::mve::Instances mve_instances(const schema::Program& program, uint32_t index);

// Strides, dilations and an output size that every window of a `w` filter over `x` produces
// (CONV_2D and DEPTHWISE_CONV_2D).
template <typename Options>
Error check_dilated_window(const OpChecker& c, const Options& o, const Tensor& x, const Tensor& w,
                           const Tensor& y) {
  MOTE_TRY(c.strides(o.stride_h(), o.stride_w(), o.dilation_h(), o.dilation_w()));
  const int64_t kh_eff = (int64_t{dim(w, 1)} - 1) * o.dilation_h() + 1;
  const int64_t kw_eff = (int64_t{dim(w, 2)} - 1) * o.dilation_w() + 1;
  if (!window_ok(dim(x, 1), dim(y, 1), kh_eff, o.stride_h(), o.pad_h()) ||
      !window_ok(dim(x, 2), dim(y, 2), kw_eff, o.stride_w(), o.pad_w())) {
    return c.bad("output size inconsistent with input, filter, stride and padding");
  }
  return Error::kOk;
}

// 16x8 (int16 input 0): an int64 bias sums in int64 (whose requantization takes any sum), an
// int32 bias or none in int32, with |input| <= 32768 and |weight| <= 128. `taps` < 2^32 (a
// filter's elements).
template <typename Options>
Error check_16x8_quantization(const OpChecker& c, const Options& o, int32_t co, int64_t taps,
                              int64_t bias_max) {
  const int64_t products = taps * 32768 * 128;
  if (c.in(2) != nullptr && c.in(2)->type() == DataType::Int64) {
    if (bias_max > (int64_t{1} << 62) - products) {
      return c.bad("accumulator could overflow int64", Error::kUnsupported);
    }
    return c.per_channel(o.multipliers(), o.shifts(), co, 0);
  }
  if (bias_max + products > kAccLimit) {
    return c.bad("accumulator could overflow int32", Error::kUnsupported);
  }
  return c.per_channel(o.multipliers(), o.shifts(), co, bias_max + products);
}

// Offsets, clamp, the bias (input 2) of `co` channels, the compiler's kernel sums (CONV_2D;
// null elsewhere), and per-channel requantization of an accumulator of `taps` products.
template <typename Options>
Error check_convolution_quantization(const OpChecker& c, const Options& o, int32_t co,
                                     int64_t taps, const schema::Region* kernel_sums = nullptr) {
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
  int64_t bias_max = 0;
  MOTE_TRY(c.bias(c.in(2), co, &bias_max));
  if (c.int16()) return check_16x8_quantization(c, o, co, taps, bias_max);
  int64_t acc_bound = bias_max + taps * kMaxCenteredInput * 128;
  if (kernel_sums != nullptr && kernel_sums->size() != 0) {
    if (!c.int32_array(kernel_sums, co)) {
      return c.bad("kernel sums must be one int32 per output channel");
    }
    acc_bound = max64(acc_bound, c.max_abs_at(kernel_sums, co) + taps * 128 * 128);
  }
  if (acc_bound > kAccLimit) return c.bad("accumulator could overflow int32", Error::kUnsupported);
  return c.per_channel(o.multipliers(), o.shifts(), co, acc_bound);
}

// The invoke of a convolution: its kernel's parameters (the shape from `kShape`, then offsets,
// clamp and per-channel requantization), then `kKernel` on input 0, filter 1, the optional bias 2
// and the operator's scratch.
template <typename Params, typename Options, typename Shape>
Params convolution_params(const Op& op, const Options& o, const Shape& shape) {
  Params p{};
  p.shape = shape;
  p.input_offset = o.input_offset();
  p.output_offset = o.output_offset();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  p.output_multiplier = op.constant_i32(o.multipliers());
  p.output_shift = op.constant_i32(o.shifts());
  return p;
}

// The 16x8 form: int16 input 0 and output, int8 filter, the bias int64 (kKernel64) or int32 or
// absent (kKernel32; nullptr: kKernel64 without a bias, int32 ones were refused at load).
template <typename Params, typename Options, auto kShape, auto kKernel64, auto kKernel32>
void invoke_convolution_16x8(const Op& op) {
  const Params p =
      convolution_params<Params>(op, op.options<Options>(), kShape(op.program(), op.op()));
  if constexpr (std::is_null_pointer<decltype(kKernel32)>::value) {
    kKernel64(p, op.in_data<int16_t>(0), op.in_data<int8_t>(1), op.optional_in_data<int64_t>(2),
              op.out_data<int16_t>());
  } else if (op.has_in(2) && op.in(2).type() == DataType::Int64) {
    kKernel64(p, op.in_data<int16_t>(0), op.in_data<int8_t>(1), op.in_data<int64_t>(2),
              op.out_data<int16_t>());
  } else {
    kKernel32(p, op.in_data<int16_t>(0), op.in_data<int8_t>(1), op.optional_in_data<int32_t>(2),
              op.out_data<int16_t>());
  }
}

// Int4 weights: int8 input 0 and output, the filter packed two per byte, an int32 bias or none.
template <typename Params, typename Options, auto kShape, auto kKernel>
void invoke_convolution_int4(const Op& op) {
  kKernel(convolution_params<Params>(op, op.options<Options>(), kShape(op.program(), op.op())),
          op.in_data<int8_t>(0), op.in_data<uint8_t>(1), op.optional_in_data<int32_t>(2),
          op.out_data<int8_t>());
}

template <typename Params, typename Options, auto kShape, auto kKernel>
void invoke_convolution(const Op& op) {
  kKernel(convolution_params<Params>(op, op.options<Options>(), kShape(op.program(), op.op())),
          op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.optional_in_data<int32_t>(2),
          op.out_data<int8_t>(), op.scratch());
}

// Inside a row-streamed stage: a window operator's row-call words (OpRowForm::row_args).
template <typename Shape>
struct WindowRowArgs {
  Shape shape;
  int32_t input_offset, output_offset, act_min, act_max;
  int32_t multipliers, shifts, filter, bias;  // offsets in the constant blob (only bias -1: none)
  RowOperand input, output;
  int32_t scratch, scratch_size;  // arena offset and bytes (size 0: none)
  int32_t right_shifts_only;      // every shift negative (ConvParams::right_shifts_only)
};

// Whether all `count` int32 shifts at `at` in the constant blob (a region the loader checked)
// are negative.
inline bool shifts_all_negative(const schema::Program& program, int32_t at, int32_t count) {
  const uint8_t* bytes = program.constants()->data() + at;
  for (int32_t k = 0; k < count; ++k) {
    int32_t shift;
    memcpy(&shift, bytes + sizeof(int32_t) * static_cast<size_t>(k), sizeof shift);
    if (shift >= 0) return false;
  }
  return true;
}

inline void set_right_shifts_only(kernels::ConvParams& p, int32_t known) {
  p.right_shifts_only = known;
}
inline void set_right_shifts_only(kernels::DepthwiseConvParams&, int32_t) {}

// kShapeOf: the kernel's shape from the options, input, filter and output.
template <typename Shape, typename Options, auto kShapeOf>
bool window_row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  const Options& o = *op.template options_as<Options>();
  WindowRowArgs<Shape> a{};
  a.shape = kShapeOf(o, input_of(p, op, 0), input_of(p, op, 1), output_of(p, op));
  a.input_offset = o.input_offset();
  a.output_offset = o.output_offset();
  a.act_min = o.activation_min();
  a.act_max = o.activation_max();
  if (!row_constant(o.multipliers(), &a.multipliers) || a.multipliers < 0 ||
      !row_constant(o.shifts(), &a.shifts) || a.shifts < 0 ||
      !row_constant(p, op, 1, &a.filter) || a.filter < 0 || !row_constant(p, op, 2, &a.bias) ||
      !row_operand(p, input_index(op, 0), &a.input) ||
      !row_operand(p, output_index(op, 0), &a.output) || a.output.at < 0 ||
      !row_scratch_words(op, &a.scratch, &a.scratch_size)) {
    return false;
  }
  a.right_shifts_only = shifts_all_negative(p, a.shifts, a.shape.output_c) ? 1 : 0;
  return write_row_args(a, words);
}

// Output rows [y_begin, y_end) through the rings (kKernel: the kernel's _rows entry), from the
// words alone.
template <typename Params, typename Shape, auto kKernel>
void invoke_window_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  const WindowRowArgs<Shape>& a = row_args_of<WindowRowArgs<Shape>>(words);
  // (row_args wrote the multipliers, shifts and filter only when present.)
  const auto constant = [&](int32_t at) { return env.constants + at; };
  Params p{};
  p.shape = a.shape;
  p.input_offset = a.input_offset;
  p.output_offset = a.output_offset;
  p.act_min = a.act_min;
  p.act_max = a.act_max;
  p.output_multiplier = reinterpret_cast<const int32_t*>(constant(a.multipliers));
  p.output_shift = reinterpret_cast<const int32_t*>(constant(a.shifts));
  set_right_shifts_only(p, a.right_shifts_only);
  kKernel(p, row_input(env, a.input), kernels::RowRing{a.input.rows},
          reinterpret_cast<const int8_t*>(constant(a.filter)),
          row_constant_data<int32_t>(env, a.bias),
          row_output(env, a.output), kernels::RowRing{a.output.rows}, y_begin, y_end,
          row_scratch(env, a.scratch, a.scratch_size));
}

// The rows a window's output rows read (row_reach of CONV_2D and DEPTHWISE_CONV_2D): input 0 of
// a batch-1 shape whose filter a ring can hold.
template <typename Shape>
bool window_row_reach(const Shape& s, size_t k, StageRowReach* reach) {
  return k == 0 && s.batches == 1 &&
         stage_window_reach(s.filter_h, s.stride_h, s.pad_h, s.dilation_h, reach);
}

}  // namespace mote::runtime::internal
