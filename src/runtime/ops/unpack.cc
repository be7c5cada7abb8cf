// UNPACK: one output per index along the axis, which the outputs lack (int8 or int16; each
// output copied by the strided-copy kernel).

#include "runtime/ops/strided_copy_ops.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) { return check_parts(c, /*keeps_axis=*/false); }
void invoke(const Op& op) { invoke_parts(op, /*keeps_axis=*/false); }

}  // namespace

extern const OpRegistration kUnpackOp{
    takes(1, 1, schema::OpOptions::SplitOptions).int8(1).int16(1).outputs(255), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kUnpackPlain{&invoke};

}  // namespace mote::runtime::internal
