// TRANSPOSE: int8, any permutation of up to 6 dimensions; int16 of up to 5, moved as bytes with
// the element's two bytes a last dimension that stays last.

#include "mote/kernels/transpose.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::TransposeOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  const size_t r = rank(x);
  if (rank(y) != r || r < 1) return c.bad("input and output must be of the same rank");
  if (o.perm() == nullptr || o.perm()->size() != r) return c.bad("permutation size differs");
  if (c.int16() && r + 1 > static_cast<size_t>(kernels::kMaxTransposeRank)) {
    return c.bad("int16 transpose of rank 6", Error::kUnsupported);
  }
  uint32_t seen = 0;
  for (uint32_t d = 0; d < r; ++d) {
    const int32_t p = o.perm()->Get(d);
    if (p < 0 || static_cast<size_t>(p) >= r || (seen & (1u << p)) != 0) {
      return c.bad("not a permutation");
    }
    seen |= 1u << p;
    if (dim(y, d) != dim(x, static_cast<size_t>(p))) return c.bad("output shape inconsistent");
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::TransposeOptions>();
  const Tensor& x = op.in(0);
  kernels::TransposeParams p{};
  p.rank = static_cast<int32_t>(rank(x));
  for (size_t k = 0; k < rank(x); ++k) {
    p.input_dims[k] = dim(x, k);
    p.perm[k] = o.perm()->Get(static_cast<flatbuffers::uoffset_t>(k));
  }
  if (x.type() == DataType::Int16) {
    p.input_dims[p.rank] = 2;
    p.perm[p.rank] = p.rank;
    ++p.rank;
  }
  kernels::transpose(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
}

}  // namespace

extern const OpRegistration kTransposeOp{
    takes(1, 2, schema::OpOptions::TransposeOptions).int8(1).int16(1), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kTransposePlain{&invoke};

}  // namespace mote::runtime::internal
