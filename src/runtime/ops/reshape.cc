// RESHAPE, SQUEEZE and EXPAND_DIMS: the same bytes under another shape. The compiler aliases the
// output to the input, which makes the kernel's move a no-op; it runs in place (memmove).

#include "mote/kernels/reshape.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const Tensor &x = *c.in(0), &y = c.out();
  if (x.type() != y.type() || x.size() != y.size()) return c.bad("reshape changes type or size");
  return Error::kOk;
}

void invoke(const Op& op) {
  kernels::reshape(op.in_data<uint8_t>(0), op.out_data<uint8_t>(), op.out().size());
}

}  // namespace

extern const OpRegistration kReshapeOp{
    takes(1, 2, schema::OpOptions::NONE), &check, /*required_scratch=*/nullptr,
    /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kReshapePlain{&invoke};
extern const OpRegistration kSqueezeOp{
    takes(1, 1, schema::OpOptions::NONE), &check, /*required_scratch=*/nullptr,
    /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kSqueezePlain{&invoke};
extern const OpRegistration kExpandDimsOp{
    takes(1, 1, schema::OpOptions::NONE), &check, /*required_scratch=*/nullptr,
    /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kExpandDimsPlain{&invoke};

}  // namespace mote::runtime::internal
