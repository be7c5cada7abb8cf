// SOFTMAX: over the last axis of an int8 input, to int8 or int16 (TFLite's fixed-point exp); or
// of an int16 input to int16 (TFLite's SoftmaxInt16: two tables in the constants).

#include "mote/kernels/softmax.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

// A table of kSoftmax16LutSize int16 entries in the constants.
bool lut_ok(const OpChecker& c, const schema::Region* r) {
  return r != nullptr && r->size() == 2 * kernels::kSoftmax16LutSize && r->offset() % 2 == 0 &&
         c.constant_bytes(r->offset(), r->size());
}

Error check_int16(const OpChecker& c, const schema::SoftmaxOptions& o) {
  const Tensor &x = *c.in(0), &y = c.out();
  if (y.type() != DataType::Int16) return c.bad("an int16 input's output must be int16");
  if (!same_shape(x, y) || rank(x) < 1) return c.bad("output shape differs from input");
  // A row sums up to row_size values of at most 32767 in int32.
  if (dim(x, rank(x) - 1) >= 65536) return c.bad("softmax row of 65536 or more", Error::kUnsupported);
  if (!lut_ok(c, o.exp_lut()) || !lut_ok(c, o.one_over_one_plus_x_lut())) {
    return c.bad("int16 softmax tables missing or out of the constants");
  }
  // x - max(row) lies in [-65535, 0].
  if (!requant_ok(65535, o.input_multiplier(), o.input_left_shift())) {
    return c.bad("softmax parameters out of range", requant_error(o.input_multiplier()));
  }
  return Error::kOk;
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::SoftmaxOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  if (x.type() == DataType::Int16) return check_int16(c, o);
  if (x.type() != DataType::Int8 || (y.type() != DataType::Int8 && y.type() != DataType::Int16)) {
    return c.bad("input must be int8 and output int8 or int16");
  }
  if (!same_shape(x, y) || rank(x) < 1) return c.bad("output shape differs from input");
  // Fixed-point exp sums over a row carry 12 integer bits: 4096 ones would overflow.
  if (dim(x, rank(x) - 1) >= 4096) return c.bad("softmax row of 4096 or more", Error::kUnsupported);
  if (o.diff_min() > 0 || o.input_multiplier() < 0 || !in_range(o.input_left_shift(), 0, 31)) {
    return c.bad("softmax parameters out of range");
  }
  const int64_t largest_diff = min64(kMaxCenteredInput, -int64_t{o.diff_min()});
  if ((largest_diff << o.input_left_shift()) > INT32_MAX) {
    return c.bad("softmax parameters out of range");
  }
  return Error::kOk;
}

kernels::SoftmaxParams int8_params(const Op& op) {
  const auto& o = op.options<schema::SoftmaxOptions>();
  const Tensor& x = op.in(0);
  kernels::SoftmaxParams p{};
  p.row_size = dim(x, rank(x) - 1);
  p.rows = static_cast<int32_t>(element_count(x) / static_cast<size_t>(p.row_size));
  p.input_multiplier = o.input_multiplier();
  p.input_left_shift = o.input_left_shift();
  p.diff_min = o.diff_min();
  return p;
}

void invoke(const Op& op) {
  kernels::softmax(int8_params(op), op.in_data<int8_t>(0), op.out_data<int8_t>());
}

// The 16x8 form: an int8 input to int16, or int16 to int16.
void invoke_int16(const Op& op) {
  const Tensor& x = op.in(0);
  if (x.type() == DataType::Int8) {
    kernels::softmax(int8_params(op), op.in_data<int8_t>(0), op.out_data<int16_t>());
    return;
  }
  const auto& o = op.options<schema::SoftmaxOptions>();
  kernels::Softmax16Params p{};
  p.row_size = dim(x, rank(x) - 1);
  p.rows = static_cast<int32_t>(element_count(x) / static_cast<size_t>(p.row_size));
  p.input_multiplier = o.input_multiplier();
  p.input_left_shift = o.input_left_shift();
  p.exp_lut = reinterpret_cast<const int16_t*>(op.constants() + o.exp_lut()->offset());
  p.one_over_one_plus_x_lut =
      reinterpret_cast<const int16_t*>(op.constants() + o.one_over_one_plus_x_lut()->offset());
  kernels::softmax(p, op.in_data<int16_t>(0), op.out_data<int16_t>());
}

}  // namespace

extern const OpRegistration kSoftmaxOp{
    takes(1, 1, schema::OpOptions::SoftmaxOptions), &check, /*required_scratch=*/nullptr,
    /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kSoftmaxPlain{&invoke};
extern const OpForm kSoftmaxInt16{&invoke_int16};

}  // namespace mote::runtime::internal
