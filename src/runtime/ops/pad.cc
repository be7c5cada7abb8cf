// PAD: int8 or int16, ranks 1 to 5, constant padding before and after each dimension.

#include "mote/kernels/pad.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::PadOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  const size_t r = rank(x);
  if (r < 1 || r > static_cast<size_t>(kernels::kMaxPadRank)) {
    return c.bad("pad supports ranks 1 to 5", Error::kUnsupported);
  }
  if (rank(y) != r || o.before() == nullptr || o.after() == nullptr ||
      o.before()->size() != r || o.after()->size() != r) {
    return c.bad("paddings must have one entry per dimension");
  }
  for (size_t d = 0; d < r; ++d) {
    const auto k = static_cast<flatbuffers::uoffset_t>(d);
    const int32_t before = o.before()->Get(k), after = o.after()->Get(k);
    if (before < 0 || after < 0 || int64_t{dim(x, d)} + before + after != dim(y, d)) {
      return c.bad("output shape differs from input plus paddings");
    }
  }
  if (c.int16() ? o.pad_value() != 0 : !in_range(o.pad_value(), -128, 127)) {
    return c.bad(c.int16() ? "int16 pad value not 0" : "pad value outside int8");
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::PadOptions>();
  const Tensor& x = op.in(0);
  kernels::PadParams p{};
  p.rank = static_cast<int32_t>(rank(x));
  for (size_t k = 0; k < rank(x); ++k) {
    const auto i = static_cast<flatbuffers::uoffset_t>(k);
    p.input_dims[k] = dim(x, k);
    p.before[k] = o.before()->Get(i);
    p.after[k] = o.after()->Get(i);
  }
  p.pad_value = static_cast<int8_t>(o.pad_value());
  if (x.type() == DataType::Int16) {
    kernels::pad(p, op.in_data<int16_t>(0), op.out_data<int16_t>());
  } else {
    kernels::pad(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
  }
}

}  // namespace

extern const OpRegistration kPadOp{
    takes(1, 2, schema::OpOptions::PadOptions).int8(1).int16(1), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kPadPlain{&invoke};

}  // namespace mote::runtime::internal
