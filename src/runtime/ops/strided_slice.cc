// STRIDED_SLICE: int8, int16 or plain int32, up to 6 dimensions; the compiler resolved begin, end, strides and the
// masks into SliceOptions, walked by the strided-copy kernel.

#include "runtime/ops/strided_copy_ops.h"

namespace mote::runtime::internal {
namespace {

void invoke(const Op& op) { invoke_slice(op); }

}  // namespace

extern const OpRegistration kStridedSliceOp{
    takes(1, 1, schema::OpOptions::SliceOptions).int8(1).int16(1).int32(1), &check_slice,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kStridedSlicePlain{&invoke};

}  // namespace mote::runtime::internal
