// ARG_MAX and ARG_MIN: int8 input, int32 or int64 indices along one axis (TFLite's rule, ties
// to the lowest index).

#include <string.h>

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

// int64 indices: the kernel's int32 ones in the first half of the output, widened in place from
// the last (int64 k covers int32 2k and 2k+1, never one not yet read), rather than a second
// kernel for int64. Bytes through memcpy: the two views of one buffer alias.
void widen(int32_t* indices, int32_t count) {
  uint8_t* bytes = reinterpret_cast<uint8_t*>(indices);
  for (int32_t k = count - 1; k >= 0; --k) {
    int32_t narrow;
    memcpy(&narrow, bytes + 4 * static_cast<size_t>(k), 4);
    const int64_t wide = narrow;
    memcpy(bytes + 8 * static_cast<size_t>(k), &wide, 8);
  }
}

// One body for both operators (the kernel takes arg_min as a value), not one per form.
__attribute__((noinline)) void run(const Op& op, bool arg_min) {
  const auto& o = op.options<schema::ArgMinMaxOptions>();
  const Tensor& x = op.in(0);
  int32_t dims[kMaxArgRank];
  for (size_t d = 0; d < rank(x); ++d) dims[d] = dim(x, d);
  const kernels::ArgMinMaxParams p =
      kernels::prepare_arg_min_max(static_cast<int32_t>(rank(x)), dims, o.axis(), arg_min);
  int32_t* indices = op.out_data<int32_t>();
  kernels::arg_min_max(p, op.in_data<int8_t>(0), indices);
  if (op.out().type() == DataType::Int64) widen(indices, p.outer * p.inner);
}

template <bool kArgMin>
void invoke(const Op& op) {
  run(op, kArgMin);
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
