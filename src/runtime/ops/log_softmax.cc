// LOG_SOFTMAX: over the last axis of an int8 input to int8 (TFLite's fixed-point exp and log).

#include "mote/kernels/log_softmax.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

kernels::LogSoftmaxParams params_of(const schema::LogSoftmaxOptions& o, const Tensor& x) {
  kernels::LogSoftmaxParams p{};
  p.row_size = dim(x, rank(x) - 1);
  p.rows = static_cast<int32_t>(element_count(x) / static_cast<size_t>(p.row_size));
  p.input_multiplier = o.input_multiplier();
  p.input_left_shift = o.input_left_shift();
  p.reverse_scaling_divisor = o.reverse_scaling_divisor();
  p.reverse_scaling_right_shift = o.reverse_scaling_right_shift();
  p.diff_min = o.diff_min();
  return p;
}

Error check(const OpChecker& c) {
  const Tensor &x = *c.in(0), &y = c.out();
  if (!same_shape(x, y) || rank(x) < 1) return c.bad("output shape differs from input");
  if (dim(x, rank(x) - 1) >= kernels::kLogSoftmaxMaxRow) {
    return c.bad("log_softmax row of 4096 or more", Error::kUnsupported);
  }
  if (!kernels::log_softmax_params_ok(params_of(c.options<schema::LogSoftmaxOptions>(), x))) {
    return c.bad("log_softmax parameters out of range");
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  kernels::log_softmax(params_of(op.options<schema::LogSoftmaxOptions>(), op.in(0)),
                       op.in_data<int8_t>(0), op.out_data<int8_t>());
}

}  // namespace

extern const OpRegistration kLogSoftmaxOp{
    takes(1, 1, schema::OpOptions::LogSoftmaxOptions).int8(1), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kLogSoftmaxPlain{&invoke};

}  // namespace mote::runtime::internal
