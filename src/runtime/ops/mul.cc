// MUL: two int8 (or int16) inputs broadcast to the output (TFLite's rule), one output
// requantization; runs in place, front to back, whole or (int8, equal shapes) by rows in a stage.

#include "mote/kernels/mul.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::MulOptions>();
  MOTE_TRY(check_binary_offsets(c, o));
  const schema::Requant* r = o.output_requant();
  if (r == nullptr) return c.bad("requantization missing");
  // The compiler's bound (ops/mul.cc checks the same).
  kernels::MulParams p{};
  p.output_multiplier = r->multiplier();
  p.output_shift = r->shift();
  if (c.int16() ? !kernels::mul_int16_fits(p) : !kernels::mul_fits(p)) {
    return c.bad("multiplier or shift out of range", requant_error(r->multiplier()));
  }
  return Error::kOk;
}

kernels::MulParams params_of(const schema::MulOptions& o) {
  kernels::MulParams p{};
  p.input1_offset = o.input1_offset();
  p.input2_offset = o.input2_offset();
  p.output_offset = o.output_offset();
  p.output_multiplier = o.output_requant()->multiplier();
  p.output_shift = o.output_requant()->shift();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  return p;
}

void invoke(const Op& op) {
  const kernels::MulParams p = params_of(op.options<schema::MulOptions>());
  const kernels::BroadcastShape shape = broadcast_shape(op.in(0), op.in(1));
  if (op.out().type() == DataType::Int16) {
    kernels::mul(p, shape, op.in_data<int16_t>(0), op.in_data<int16_t>(1), op.out_data<int16_t>());
  } else {
    kernels::mul(p, shape, op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.out_data<int8_t>());
  }
}

// Inside a row-streamed stage (int8, elementwise_row_reach): the row-call words, each row a
// one-dimensional product of width = W * C elements on the kernel the whole map runs (every
// variant takes equal shapes, bit for bit the portable kernel).
struct MulRowArgs {
  kernels::MulParams params;
  int32_t width;
  RowOperand a, b, output;
};

bool row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  MulRowArgs r{};
  r.params = params_of(*op.options_as_MulOptions());
  const Tensor& y = output_of(p, op);
  r.width = dim(y, 2) * dim(y, 3);
  if (!row_operand(p, input_index(op, 0), &r.a) || !row_operand(p, input_index(op, 1), &r.b) ||
      !row_operand(p, output_index(op, 0), &r.output) || r.output.at < 0) {
    return false;
  }
  return write_row_args(r, words);
}

void invoke_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  const MulRowArgs& r = row_args_of<MulRowArgs>(words);
  const kernels::BroadcastShape row{1, {r.width}, {r.width}, {r.width}};
  for (int32_t y = y_begin; y < y_end; ++y) {
    kernels::mul(r.params, row, row_of(row_input(env, r.a), r.a.rows, y, r.width),
                 row_of(row_input(env, r.b), r.b.rows, y, r.width),
                 row_of(row_output(env, r.output), r.output.rows, y, r.width));
  }
}

}  // namespace

extern const OpRegistration kMulOp{
    takes(2, 2, schema::OpOptions::MulOptions).int8(2).int16(2).broadcasting(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kMulPlain{&invoke};
extern const OpRowForm kMulRows{&elementwise_row_reach, &row_args, kRowWords<MulRowArgs>,
                                &invoke_rows};

}  // namespace mote::runtime::internal
