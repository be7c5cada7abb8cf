// PAD: int8 or int16, ranks 1 to 5, constant padding before and after each dimension. An int8
// [1, H, W, C] PAD without batch padding runs by rows in a stage.

#include <string.h>

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

// Inside a row-streamed stage: an int8 [1, H, W, C] input, no batch padding; output row y is
// input row y - top, a one-row window below `top` rows of padding.
bool row_reach(const schema::Program& p, const schema::Operator& op, size_t k,
               StageRowReach* reach) {
  const Tensor& y = output_of(p, op);
  const auto* o = op.options_as_PadOptions();
  if (k != 0 || o == nullptr || y.type() != DataType::Int8 || rank(y) != 4 || dim(y, 0) != 1 ||
      o->before() == nullptr || o->after() == nullptr || o->before()->size() != 4 ||
      o->after()->size() != 4 || o->before()->Get(0) != 0 || o->after()->Get(0) != 0) {
    return false;
  }
  return stage_window_reach(1, 1, o->before()->Get(1), 1, reach);
}

// The row-call words: each row of the input padded along W and C as a [W, C] map, on the
// kernel the whole map runs; the rows above and below the input are the pad value alone.
struct PadRowArgs {
  int32_t top, height;       // rows of padding above the input; its rows
  int32_t width, channels;   // the input's
  int32_t left, right, front, back;  // padding along W and C
  int32_t pad_value;
  RowOperand input, output;
};

bool row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  const auto& o = *op.options_as_PadOptions();
  const Tensor& x = input_of(p, op, 0);
  PadRowArgs r{};
  r.top = o.before()->Get(1);
  r.height = dim(x, 1);
  r.width = dim(x, 2);
  r.channels = dim(x, 3);
  r.left = o.before()->Get(2);
  r.right = o.after()->Get(2);
  r.front = o.before()->Get(3);
  r.back = o.after()->Get(3);
  r.pad_value = o.pad_value();
  if (!row_operand(p, input_index(op, 0), &r.input) ||
      !row_operand(p, output_index(op, 0), &r.output) || r.output.at < 0) {
    return false;
  }
  return write_row_args(r, words);
}

void invoke_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  const PadRowArgs& r = row_args_of<PadRowArgs>(words);
  const int32_t dims[2] = {r.width, r.channels};
  const int32_t before[2] = {r.left, r.front};
  const int32_t after[2] = {r.right, r.back};
  const kernels::PadParams row =
      kernels::prepare_pad(2, dims, before, after, static_cast<int8_t>(r.pad_value));
  const int32_t in_width = r.width * r.channels;
  const int32_t out_width = (r.left + r.width + r.right) * (r.front + r.channels + r.back);
  for (int32_t y = y_begin; y < y_end; ++y) {
    int8_t* out = row_of(row_output(env, r.output), r.output.rows, y, out_width);
    const int32_t iy = y - r.top;
    if (iy < 0 || iy >= r.height) {
      memset(out, r.pad_value, static_cast<size_t>(out_width));
    } else {
      kernels::pad(row, row_of(row_input(env, r.input), r.input.rows, iy, in_width), out);
    }
  }
}

}  // namespace

extern const OpRegistration kPadOp{
    takes(1, 2, schema::OpOptions::PadOptions).int8(1).int16(1), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kPadPlain{&invoke};
extern const OpRowForm kPadRows{&row_reach, &row_args, kRowWords<PadRowArgs>, &invoke_rows};

}  // namespace mote::runtime::internal
