// ARG_MAX and ARG_MIN: int8 input, int32 or int64 indices along one axis (TFLite's rule, ties
// to the lowest index).

#include "mote/kernels/arg_min_max.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

inline constexpr size_t kMaxArgRank = 8;

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::ArgMinMaxOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  if (x.type() != DataType::Int8 || (y.type() != DataType::Int32 && y.type() != DataType::Int64)) {
    return c.bad("arg_max / arg_min take int8 and write int32 or int64 indices",
                 Error::kUnsupported);
  }
  const size_t r = rank(x);
  if (r < 1 || r > kMaxArgRank) return c.bad("arg_max / arg_min input rank not in [1, 8]");
  if (o.axis() < 0 || static_cast<size_t>(o.axis()) >= r) return c.bad("axis out of range");
  if (rank(y) + 1 != r) return c.bad("output shape inconsistent with axis");
  for (size_t d = 0, e = 0; d < r; ++d) {
    if (d == static_cast<size_t>(o.axis())) continue;
    if (dim(y, e++) != dim(x, d)) return c.bad("output shape inconsistent with axis");
  }
  if (dim(x, static_cast<size_t>(o.axis())) < 1) return c.bad("empty axis");
  return Error::kOk;
}

template <bool kArgMin>
void invoke(const Op& op) {
  const auto& o = op.options<schema::ArgMinMaxOptions>();
  const Tensor& x = op.in(0);
  int32_t dims[kMaxArgRank];
  for (size_t d = 0; d < rank(x); ++d) dims[d] = dim(x, d);
  const kernels::ArgMinMaxParams p =
      kernels::prepare_arg_min_max(static_cast<int32_t>(rank(x)), dims, o.axis(), kArgMin);
  if (op.out().type() == DataType::Int64) {
    kernels::arg_min_max(p, op.in_data<int8_t>(0), op.out_data<int64_t>());
  } else {
    kernels::arg_min_max(p, op.in_data<int8_t>(0), op.out_data<int32_t>());
  }
}

}  // namespace

extern const OpRegistration kArgMaxOp{
    takes(1, 2, schema::OpOptions::ArgMinMaxOptions), &check, /*required_scratch=*/nullptr,
    /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kArgMaxPlain{&invoke<false>};
extern const OpRegistration kArgMinOp{
    takes(1, 2, schema::OpOptions::ArgMinMaxOptions), &check, /*required_scratch=*/nullptr,
    /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kArgMinPlain{&invoke<true>};

}  // namespace mote::runtime::internal
