// CAST between plain int8, int16, int32 and uint32 (TFLM's cast.cc: static_cast per element).

#include "mote/kernels/integer.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

bool integer_type(DataType t, kernels::IntegerType* out) {
  switch (t) {
    case DataType::Int8: *out = kernels::IntegerType::kInt8; return true;
    case DataType::Int16: *out = kernels::IntegerType::kInt16; return true;
    case DataType::Int32: *out = kernels::IntegerType::kInt32; return true;
    case DataType::UInt32: *out = kernels::IntegerType::kUInt32; return true;
    default: return false;
  }
}

Error check(const OpChecker& c) {
  const Tensor &x = *c.in(0), &y = c.out();
  kernels::IntegerType t;
  if (!integer_type(x.type(), &t) || !integer_type(y.type(), &t) || x.scale() != 0.0f ||
      y.scale() != 0.0f) {
    return c.bad("input and output must be plain int8, int16, int32 or uint32");
  }
  if (element_count(x) != element_count(y)) return c.bad("input and output sizes differ");
  return Error::kOk;
}

void invoke(const Op& op) {
  kernels::IntegerType from{}, to{};
  integer_type(op.in(0).type(), &from);
  integer_type(op.out().type(), &to);
  kernels::cast(from, op.in_data<uint8_t>(0), to, op.out_data<uint8_t>(), element_count(op.out()));
}

}  // namespace

extern const OpRegistration kCastOp{takes(1, 1, schema::OpOptions::NONE), &check,
                                    /*required_scratch=*/nullptr, /*runs_in_place=*/false,
                                    /*overlap=*/nullptr};
extern const OpForm kCastPlain{&invoke};

}  // namespace mote::runtime::internal
