// RSQRT: int8, TFLite's fixed-point 1/sqrt and one requantization; elementwise, so it may run in
// place.

#include "mote/kernels/rsqrt.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

kernels::RsqrtParams params_of(const schema::RsqrtOptions& o) {
  return {o.input_zero_point(), o.output_zero_point(), o.requant()->multiplier(),
          o.requant()->shift()};
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::RsqrtOptions>();
  if (!in_range(o.input_zero_point(), -128, 127) || !in_range(o.output_zero_point(), -128, 127)) {
    return c.bad("zero point outside int8");
  }
  if (o.requant() == nullptr) return c.bad("requantization missing");
  if (!kernels::rsqrt_fits(params_of(o))) {
    return c.bad("multiplier or shift out of range", requant_error(o.requant()->multiplier()));
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  kernels::rsqrt(params_of(op.options<schema::RsqrtOptions>()), op.in_data<int8_t>(0),
                 op.out_data<int8_t>(), element_count(op.in(0)));
}

}  // namespace

extern const OpRegistration kRsqrtOp{
    takes(1, 1, schema::OpOptions::RsqrtOptions).int8(1).one_to_one(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, &elementwise_overlap};
extern const OpForm kRsqrtPlain{&invoke};

}  // namespace mote::runtime::internal
