// PACK: int8 (or int16) inputs of one shape and type stacked along an axis of the output, each
// copied into its place by the strided-copy kernel.

#include "runtime/ops/strided_copy_ops.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const size_t n = num_inputs(c.op());
  MOTE_TRY(c.shape_of_op(n < 1 ? 1 : n, n, 1, schema::OpOptions::PackOptions));
  const auto& o = c.options<schema::PackOptions>();
  const Tensor& y = c.out();
  const size_t r = rank(y);
  if (y.type() != DataType::Int8 && y.type() != DataType::Int16) {
    return c.bad("output must be int8 or int16");
  }
  if (o.axis() < 0 || static_cast<size_t>(o.axis()) >= r) return c.bad("axis out of range");
  const size_t axis = static_cast<size_t>(o.axis());
  if (dim(y, axis) != static_cast<int64_t>(n)) return c.bad("output size along the axis differs");
  for (size_t k = 0; k < n; ++k) {
    const Tensor& x = *c.in(k);
    if (x.type() != y.type() || rank(x) + 1 != r) return c.bad("inputs differ in type or rank");
    for (size_t d = 0, e = 0; d < r; ++d) {
      if (d != axis && dim(x, e++) != dim(y, d)) return c.bad("input shape differs from the output's");
    }
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  const Tensor& y = op.out();
  const size_t axis = static_cast<size_t>(op.options<schema::PackOptions>().axis());
  const size_t n = num_inputs(op.op());
  const int64_t elements = row_major_stride(y, axis);
  const int64_t outer =
      static_cast<int64_t>(element_count(y)) / (elements * static_cast<int64_t>(n));
  // Bytes moved whole: an int16 element is two.
  const int64_t inner = elements * static_cast<int64_t>(element_size(y.type()));
  int8_t* output = op.out_data<int8_t>();
  for (size_t k = 0; k < n; ++k) {
    copy_rows(op.in_data<int8_t>(k), output + static_cast<int64_t>(k) * inner, outer, inner, inner,
              static_cast<int64_t>(n) * inner);
  }
}

}  // namespace

extern const OpRegistration kPackOp{
    takes(1, 255, schema::OpOptions::PackOptions), &check, /*required_scratch=*/nullptr,
    /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kPackPlain{&invoke};

}  // namespace mote::runtime::internal
