// GATHER: int8 slices along an axis by int32 indices (a constant, checked here, or an int32
// tensor computed at run time, whose out-of-range entries give zero-point slices).

#include "mote/kernels/gather.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

struct Sizes {
  int64_t batch = 1, outer = 1, axis = 1, inner = 1, coords = 1;
};

Sizes sizes_of(const Tensor& x, const Tensor& indices, size_t axis, size_t batch_dims) {
  Sizes s;
  for (size_t d = 0; d < batch_dims; ++d) s.batch *= dim(x, d);
  for (size_t d = batch_dims; d < axis; ++d) s.outer *= dim(x, d);
  s.axis = dim(x, axis);
  for (size_t d = axis + 1; d < rank(x); ++d) s.inner *= dim(x, d);
  for (size_t d = batch_dims; d < rank(indices); ++d) s.coords *= dim(indices, d);
  return s;
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::GatherOptions>();
  const Tensor &x = *c.in(0), &indices = *c.in(1), &y = c.out();
  if (x.type() != DataType::Int8 || y.type() != DataType::Int8) {
    return c.bad("input 0 and the output must be int8");
  }
  if (indices.type() != DataType::Int32) return c.bad("indices must be int32", Error::kUnsupported);
  const size_t r = rank(x), ri = rank(indices);
  if (o.axis() < 0 || static_cast<size_t>(o.axis()) >= r) return c.bad("axis out of range");
  const size_t axis = static_cast<size_t>(o.axis());
  if (o.batch_dims() < 0 || static_cast<size_t>(o.batch_dims()) > axis ||
      static_cast<size_t>(o.batch_dims()) > ri) {
    return c.bad("batch_dims out of range");
  }
  const size_t bd = static_cast<size_t>(o.batch_dims());
  if (rank(y) != r - 1 + ri - bd) return c.bad("output rank inconsistent");
  size_t e = 0;
  for (size_t d = 0; d < axis; ++d) {
    if (dim(y, e++) != dim(x, d)) return c.bad("output shape inconsistent");
  }
  for (size_t d = 0; d < bd; ++d) {
    if (dim(indices, d) != dim(x, d)) return c.bad("batch dimensions differ");
  }
  for (size_t d = bd; d < ri; ++d) {
    if (dim(y, e++) != dim(indices, d)) return c.bad("output shape inconsistent");
  }
  for (size_t d = axis + 1; d < r; ++d) {
    if (dim(y, e++) != dim(x, d)) return c.bad("output shape inconsistent");
  }
  if (!in_range(y.zero_point(), -128, 127)) return c.bad("output zero point outside int8");
  const Sizes s = sizes_of(x, indices, axis, bd);
  if (s.batch * s.outer * s.axis * s.inner > 0x7fffffff) return c.bad("input too large", Error::kUnsupported);
  if (indices.offset() % 4 != 0) return c.bad("indices not 4-byte aligned");
  if (indices.location() == schema::Location::Constant) {
    for (size_t k = 0; k < element_count(indices); ++k) {
      const int32_t v = c.constant_i32(indices, k);
      if (v < 0 || v >= s.axis) return c.bad("constant index outside the axis");
    }
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::GatherOptions>();
  const Tensor &x = op.in(0), &indices = op.in(1);
  const Sizes s = sizes_of(x, indices, static_cast<size_t>(o.axis()),
                           static_cast<size_t>(o.batch_dims()));
  kernels::GatherParams p{};
  p.batch_size = static_cast<int32_t>(s.batch);
  p.outer_size = static_cast<int32_t>(s.outer);
  p.axis_size = static_cast<int32_t>(s.axis);
  p.inner_size = static_cast<int32_t>(s.inner);
  p.coord_size = static_cast<int32_t>(s.coords);
  p.fill = static_cast<int8_t>(op.out().zero_point());
  kernels::gather(p, op.in_data<int8_t>(0), op.in_data<int32_t>(1), op.out_data<int8_t>());
}

}  // namespace

extern const OpRegistration kGatherOp{
    takes(2, 2, schema::OpOptions::GatherOptions), &check, /*required_scratch=*/nullptr,
    /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kGatherPlain{&invoke};

}  // namespace mote::runtime::internal
