// CONCATENATION: up to 16 int8 inputs along one axis, each optionally requantized to the
// output's scale; or int16 ones, copied.

#include "mote/kernels/concatenation.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

// Inputs the runtime accepts (their pointers and parameters sit on the stack).
constexpr size_t kMaxConcatenationInputs = 16;

Error check(const OpChecker& c) {
  const size_t n = num_inputs(c.op());
  MOTE_TRY(c.shape_of_op(n < 1 ? 1 : n, n, 1, schema::OpOptions::ConcatenationOptions));
  if (n > kMaxConcatenationInputs) {
    return c.bad("more than 16 concatenation inputs", Error::kUnsupported);
  }
  const auto& o = c.options<schema::ConcatenationOptions>();
  const Tensor& y = c.out();
  const size_t r = rank(y);
  if (y.type() != DataType::Int8 && y.type() != DataType::Int16) {
    return c.bad("output must be int8 or int16");
  }
  if (y.type() == DataType::Int16 && o.requant() != nullptr) {
    return c.bad("int16 inputs are copied, not requantized");
  }
  if (o.axis() < 0 || static_cast<size_t>(o.axis()) >= r) return c.bad("axis out of range");
  const size_t axis = static_cast<size_t>(o.axis());
  if (o.requant() != nullptr && o.requant()->size() != n) {
    return c.bad("requantization must have one entry per input");
  }
  if (o.requant() != nullptr && !in_range(y.zero_point(), -128, 127)) {
    return c.bad("output zero point outside int8");
  }
  int64_t total = 0;
  for (size_t k = 0; k < n; ++k) {
    const Tensor& x = *c.in(k);
    if (x.type() != y.type() || rank(x) != r) return c.bad("inputs differ in type or rank");
    for (size_t d = 0; d < r; ++d) {
      if (d != axis && dim(x, d) != dim(y, d)) return c.bad("inputs differ off the axis");
    }
    total += dim(x, axis);
    if (o.requant() != nullptr) {
      const schema::ConcatRequant& q = *o.requant()->Get(static_cast<flatbuffers::uoffset_t>(k));
      if (q.requantize() && !in_range(q.input_offset(), -127, 128)) {
        return c.bad("input zero point outside int8");
      }
      if (q.requantize() &&
          !requant_ok(kMaxCenteredInput, q.requant().multiplier(), q.requant().shift())) {
        return c.bad("input requantization out of range", requant_error(q.requant().multiplier()));
      }
    }
  }
  if (total != dim(y, axis)) return c.bad("output size along the axis differs from the inputs'");
  return Error::kOk;
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::ConcatenationOptions>();
  const Tensor& y = op.out();
  const size_t n = num_inputs(op.op());
  const int32_t axis = o.axis();
  const int32_t element_bytes = y.type() == DataType::Int16 ? 2 : 1;  // int16: copied as bytes
  kernels::ConcatenationInput params[kMaxConcatenationInputs];
  const int8_t* inputs[kMaxConcatenationInputs];
  for (size_t k = 0; k < n; ++k) {
    const Tensor& x = op.in(k);
    kernels::ConcatenationInput& in = params[k];
    in = kernels::ConcatenationInput{};
    in.copy_size = element_bytes;
    for (size_t i = static_cast<size_t>(axis); i < rank(x); ++i) in.copy_size *= dim(x, i);
    if (o.requant() != nullptr) {
      const schema::ConcatRequant& q = *o.requant()->Get(static_cast<flatbuffers::uoffset_t>(k));
      // Only a requantized input's parameters are checked at load (and read by the kernel).
      in.requantize = q.requantize();
      if (in.requantize) {
        in.input_zero_point = -q.input_offset();
        in.output_zero_point = y.zero_point();
        in.multiplier = q.requant().multiplier();
        in.shift = q.requant().shift();
      }
    }
    inputs[k] = op.in_data<int8_t>(k);
  }
  kernels::ConcatenationParams p{};
  p.num_inputs = static_cast<int32_t>(n);
  p.outer_size = 1;
  for (int32_t i = 0; i < axis; ++i) p.outer_size *= dim(y, static_cast<size_t>(i));
  kernels::concatenation(p, params, inputs, op.out_data<int8_t>());
}

}  // namespace

extern const OpRegistration kConcatenationOp{
    takes(1, 255, schema::OpOptions::ConcatenationOptions), &check, /*required_scratch=*/nullptr,
    /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kConcatenationPlain{&invoke};

}  // namespace mote::runtime::internal
