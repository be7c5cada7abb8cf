// PRELU: int8 input and alpha broadcast to the input's shape, TFLite's two requantizations; or
// 16x8 (int16 input and output, int8 alpha). May run in place over the input; int8 with a
// constant alpha that does not vary along H runs by rows in a stage.

#include "mote/kernels/prelu.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

kernels::PreluParams params_of(const schema::PreluOptions& o) {
  kernels::PreluParams p{};
  p.input_offset = o.input_offset();
  p.alpha_offset = o.alpha_offset();
  p.output_offset = o.output_offset();
  p.identity_multiplier = o.identity_requant()->multiplier();
  p.identity_shift = o.identity_requant()->shift();
  p.alpha_multiplier = o.alpha_requant()->multiplier();
  p.alpha_shift = o.alpha_requant()->shift();
  return p;
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::PreluOptions>();
  if (!same_shape(*c.in(0), c.out())) return c.bad("output shape must be the input's");
  if (!in_range(o.alpha_offset(), -127, 128)) return c.bad("alpha zero point outside int8");
  if (c.int16()) {
    if (o.input_offset() != 0 || o.output_offset() != 0) return c.bad("int16 zero point not 0");
    MOTE_TRY(c.requant(o.identity_requant(), 32768));
    return c.requant(o.alpha_requant(), int64_t{32768} * kMaxCenteredInput);
  }
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), -128, 127));
  MOTE_TRY(c.requant(o.identity_requant(), kMaxCenteredInput));
  // A negative centred input times a centred alpha: |x * alpha| <= 255 * 255.
  return c.requant(o.alpha_requant(), kMaxCenteredInput * kMaxCenteredInput);
}

void invoke(const Op& op) {
  const kernels::PreluParams p = params_of(op.options<schema::PreluOptions>());
  const kernels::BroadcastShape shape = broadcast_shape(op.in(0), op.in(1));
  if (op.in(0).type() == DataType::Int16) {
    kernels::prelu(p, shape, op.in_data<int16_t>(0), op.in_data<int8_t>(1),
                   op.out_data<int16_t>());
  } else {
    kernels::prelu(p, shape, op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.out_data<int8_t>());
  }
}

// In place over the input only (alpha is broadcast).
kernels::OverlapRule overlap(const schema::Program& p, const schema::Operator& op, size_t k) {
  return k == 0 ? elementwise_overlap(p, op, k) : kernels::kNoOverlap;
}

// Inside a row-streamed stage: an int8 [1, H, W, C] input of the output's shape, row y for row
// y; alpha a constant broadcast over H (the stage asks for no constant input's reach).
bool row_reach(const schema::Program& p, const schema::Operator& op, size_t k,
               StageRowReach* reach) {
  const Tensor& y = output_of(p, op);
  int32_t alpha_w = 0, alpha_c = 0;
  if (k != 0 || y.type() != DataType::Int8 || rank(y) != 4 || dim(y, 0) != 1 ||
      input_index(op, 0) < 0 || input_index(op, 1) < 0 || !same_shape(input_of(p, op, 0), y) ||
      !row_constant_extents(input_of(p, op, 1), &alpha_w, &alpha_c)) {
    return false;
  }
  return stage_window_reach(1, 1, 0, 1, reach);
}

// The row-call words: each row a [W, C] map by alpha [alpha_w, alpha_c] (each 1 or the row's),
// on the kernel the whole map runs (elementwise, so any grouping of the elements is bit for bit
// the same).
struct PreluRowArgs {
  kernels::PreluParams params;
  int32_t width, channels;
  int32_t alpha_width, alpha_channels;
  int32_t alpha;  // alpha's constant offset
  RowOperand input, output;
};

bool row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  PreluRowArgs r{};
  r.params = params_of(*op.options_as_PreluOptions());
  const Tensor& y = output_of(p, op);
  r.width = dim(y, 2);
  r.channels = dim(y, 3);
  if (!row_constant_extents(input_of(p, op, 1), &r.alpha_width, &r.alpha_channels) ||
      !row_constant(p, op, 1, &r.alpha) || !row_operand(p, input_index(op, 0), &r.input) ||
      !row_operand(p, output_index(op, 0), &r.output) || r.output.at < 0) {
    return false;
  }
  return write_row_args(r, words);
}

void invoke_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  const PreluRowArgs& r = row_args_of<PreluRowArgs>(words);
  kernels::BroadcastShape row{};
  const int32_t dims[2] = {r.width, r.channels};
  const int32_t alpha_dims[2] = {r.alpha_width, r.alpha_channels};
  kernels::prepare_broadcast_shape(dims, 2, alpha_dims, 2, &row);
  const int8_t* alpha = row_constant_data<int8_t>(env, r.alpha);
  const int32_t width = r.width * r.channels;
  for (int32_t y = y_begin; y < y_end; ++y) {
    kernels::prelu(r.params, row, row_of(row_input(env, r.input), r.input.rows, y, width), alpha,
                   row_of(row_output(env, r.output), r.output.rows, y, width));
  }
}

}  // namespace

extern const OpRegistration kPreluOp{
    takes(2, 2, schema::OpOptions::PreluOptions).int8(2).int16(1).broadcasting(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, &overlap};
extern const OpForm kPreluPlain{&invoke};
extern const OpRowForm kPreluRows{&row_reach, &row_args, kRowWords<PreluRowArgs>, &invoke_rows};

}  // namespace mote::runtime::internal
