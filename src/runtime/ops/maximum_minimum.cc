// MAXIMUM and MINIMUM: two int8 (or int16) inputs broadcast to the output; run in place, front to
// back, whole or (int8: each input of the output's shape or a constant that does not vary along
// H) by rows in a stage.

#include "mote/kernels/maximum_minimum.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

template <typename T>
void extremum(const Op& op, bool maximum) {
  const kernels::BroadcastShape shape = broadcast_shape(op.in(0), op.in(1));
  if (maximum) {
    kernels::maximum(shape, op.in_data<T>(0), op.in_data<T>(1), op.out_data<T>());
  } else {
    kernels::minimum(shape, op.in_data<T>(0), op.in_data<T>(1), op.out_data<T>());
  }
}

void invoke(const Op& op, bool maximum) {
  if (op.in(0).type() == DataType::Int16) {
    extremum<int16_t>(op, maximum);
  } else {
    extremum<int8_t>(op, maximum);
  }
}
void invoke_maximum(const Op& op) { invoke(op, true); }
void invoke_minimum(const Op& op) { invoke(op, false); }

// Inside a row-streamed stage (int8, elementwise_row_reach): BinaryRows alone (no parameters:
// the raw values compared), each row on the kernel the whole map runs.
bool row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  BinaryRows r{};
  return binary_rows(p, op, &r) && write_row_args(r, words);
}

template <bool kMaximum>
void invoke_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  for_binary_rows(env, row_args_of<BinaryRows>(words), y_begin, y_end,
                  [](const kernels::BroadcastShape& row, const int8_t* a, const int8_t* b,
                     int8_t* out) {
                    if (kMaximum) {
                      kernels::maximum(row, a, b, out);
                    } else {
                      kernels::minimum(row, a, b, out);
                    }
                  });
}

}  // namespace

extern const OpRegistration kMaximumOp{
    takes(2, 2, schema::OpOptions::NONE).int8(2).int16(2).int32(2).broadcasting(),
    /*check=*/nullptr, /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kMaximumPlain{&invoke_maximum};
extern const OpForm kMaximumInt32{&invoke_int32<kernels::IntegerOp::kMaximum, void>};
extern const OpRowForm kMaximumRows{&elementwise_row_reach, &row_args, kRowWords<BinaryRows>,
                                    &invoke_rows<true>};
extern const OpRegistration kMinimumOp{
    takes(2, 2, schema::OpOptions::NONE).int8(2).int16(2).int32(2).broadcasting(),
    /*check=*/nullptr, /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kMinimumPlain{&invoke_minimum};
extern const OpForm kMinimumInt32{&invoke_int32<kernels::IntegerOp::kMinimum, void>};
extern const OpRowForm kMinimumRows{&elementwise_row_reach, &row_args, kRowWords<BinaryRows>,
                                    &invoke_rows<false>};

}  // namespace mote::runtime::internal
