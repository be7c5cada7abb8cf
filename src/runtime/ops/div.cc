// DIV: plain int32, TFLite's broadcasting, truncating (mote/kernels/integer.h: a zero divisor
// gives 0), then the clamp of MulOptions.

#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  if (!c.int32()) return c.bad("DIV takes plain int32 only");
  return check_int32_clamp(c, c.options<schema::MulOptions>());
}

}  // namespace

extern const OpRegistration kDivOp{
    takes(2, 2, schema::OpOptions::MulOptions).int32(2).broadcasting(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kDivPlain{&invoke_int32<kernels::IntegerOp::kDiv, schema::MulOptions>};

}  // namespace mote::runtime::internal
