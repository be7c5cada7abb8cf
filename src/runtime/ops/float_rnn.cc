// MoteFloatRnn: ONNX's LSTM or GRU computed in float32 (mote/kernels/float_rnn.h). Inputs X
// [T, B, I], W float32 [D, G*H, I], R float32 [D, G*H, H], B float32 [D, 2*G*H] or -1,
// initial_h and initial_c [D, B, H] or -1, P float32 [D, 3*H] or -1 (LSTM); outputs
// Y [T, D, B, H], Y_h and Y_c [D, B, H]; batch_first (ONNX's layout 1): X [B, T, I],
// Y [B, T, D, H], the states [B, D, H]. Y may also have the next stacked layer's input shape,
// the same bytes ([T, B, D*H] when D or B is 1; [B, T, D*H] batch first). X, the states and the
// outputs are each int8 (one scale) or float32; float32 scratch.

#include "mote/kernels/float_rnn.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

constexpr size_t kW = 1, kR = 2, kBias = 3, kInitialH = 4, kInitialC = 5, kPeephole = 6;

bool is_lstm(const schema::FloatRnnOptions& o) { return o.cell() == schema::RnnCell::Lstm; }
int32_t directions(const schema::FloatRnnOptions& o) {
  return o.direction() == schema::RnnDirection::Bidirectional ? 2 : 1;
}

bool has_dims(const Tensor& t, int32_t a, int32_t b, int32_t c) {
  return rank(t) == 3 && dim(t, 0) == a && dim(t, 1) == b && dim(t, 2) == c;
}
// X's steps and batch rows: [T, B, I], or [B, T, I] batch first.
int32_t steps_of(const schema::FloatRnnOptions& o, const Tensor& x) {
  return dim(x, o.batch_first() ? 1 : 0);
}
int32_t batches_of(const schema::FloatRnnOptions& o, const Tensor& x) {
  return dim(x, o.batch_first() ? 0 : 1);
}
// int8 with a usable scale and zero point, or float32.
bool int8_or_float(const Tensor& t) {
  if (t.type() == DataType::Float32) return true;
  return t.type() == DataType::Int8 && t.scale() > 0.0f && t.scale() < 3.0e38f &&
         in_range(t.zero_point(), -128, 127);
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::FloatRnnOptions>();
  if (o.cell() > schema::RnnCell::MAX || o.direction() > schema::RnnDirection::MAX) {
    return c.bad("cell or direction out of range");
  }
  const bool lstm = is_lstm(o);
  const int32_t gates = lstm ? 4 : 3, d = directions(o);
  const Tensor &x = *c.in(0), &w = *c.in(kW), &r = *c.in(kR);
  if (rank(x) != 3 || !int8_or_float(x)) return c.bad("X must be 3-D, int8 or float32");
  if (w.type() != DataType::Float32 || r.type() != DataType::Float32 || rank(r) != 3) {
    return c.bad("W and R must be float32, R 3-D");
  }
  const int32_t steps = steps_of(o, x), batches = batches_of(o, x), input_size = dim(x, 2);
  const bool bf = o.batch_first();
  const int32_t hidden = dim(r, 2);
  // The scratch size stays far within 32 bits (a hostile shape must not wrap it).
  if (hidden < 1 || int64_t{hidden} * gates * 2 > INT32_MAX ||
      int64_t{batches} * hidden + input_size + 5 * int64_t{hidden} > (int64_t{1} << 26)) {
    return c.bad("hidden size, batch or input size out of range");
  }
  if (!has_dims(w, d, gates * hidden, input_size) || !has_dims(r, d, gates * hidden, hidden)) {
    return c.bad("W or R shape inconsistent with X and the cell");
  }
  if (const Tensor* b = c.in(kBias)) {
    if (b->type() != DataType::Float32 || rank(*b) != 2 || dim(*b, 0) != d ||
        dim(*b, 1) != 2 * gates * hidden) {
      return c.bad("B must be float32 [D, 2*G*H]");
    }
  }
  for (size_t k : {kInitialH, kInitialC}) {
    const Tensor* s = c.in(k);
    if (s == nullptr) continue;
    if (k == kInitialC && !lstm) return c.bad("a GRU has no initial cell state");
    if (!int8_or_float(*s) ||
        !(bf ? has_dims(*s, batches, d, hidden) : has_dims(*s, d, batches, hidden))) {
      return c.bad("initial state must be int8 or float32 [D, B, H] ([B, D, H] batch first)");
    }
  }
  if (const Tensor* p = c.in(kPeephole)) {
    if (!lstm || p->type() != DataType::Float32 || rank(*p) != 2 || dim(*p, 0) != d ||
        dim(*p, 1) != 3 * hidden) {
      return c.bad("P must be an LSTM's float32 [D, 3*H]");
    }
  }
  const size_t outputs = num_outputs(c.op());
  if (outputs > (lstm ? 3u : 2u)) return c.bad("too many outputs for the cell");
  for (size_t j = 0; j < outputs; ++j) {
    const Tensor& y = c.out(j);
    bool shape_ok;
    if (j == 0) {
      const int32_t first = bf ? batches : steps;
      const int32_t second = bf ? steps : d, third = bf ? d : batches;
      shape_ok = (rank(y) == 4 && dim(y, 0) == first && dim(y, 1) == second &&
                  dim(y, 2) == third && dim(y, 3) == hidden) ||
                 // The next stacked layer's X, the same bytes.
                 ((bf || d == 1 || batches == 1) &&
                  has_dims(y, first, bf ? steps : batches, d * hidden));
    } else {
      shape_ok = bf ? has_dims(y, batches, d, hidden) : has_dims(y, d, batches, hidden);
    }
    if (!shape_ok || !int8_or_float(y)) return c.bad("output must be int8 or float32 of its shape");
  }
  return Error::kOk;
}

kernels::FloatRnnParams params_of(const Op& op) {
  const auto& o = op.options<schema::FloatRnnOptions>();
  const Tensor& x = op.in(0);
  kernels::FloatRnnParams p{};
  p.cell = is_lstm(o) ? kernels::RnnCell::kLstm : kernels::RnnCell::kGru;
  p.directions = directions(o);
  p.reverse = o.direction() == schema::RnnDirection::Reverse;
  p.linear_before_reset = o.linear_before_reset();
  p.batch_first = o.batch_first();
  p.steps = steps_of(o, x);
  p.batches = batches_of(o, x);
  p.input_size = dim(x, 2);
  p.hidden_size = dim(op.in(kR), 2);
  return p;
}

kernels::RnnInput input(const Op& op, size_t k) {
  if (!op.has_in(k)) return {nullptr, nullptr, 0.0f, 0};
  const Tensor& t = op.in(k);
  if (t.type() == DataType::Float32) return {nullptr, op.in_data<float>(k), 0.0f, 0};
  return {op.in_data<int8_t>(k), nullptr, t.scale(), t.zero_point()};
}

kernels::RnnOutput output(const Op& op, size_t j) {
  if (j >= num_outputs(op.op())) return {nullptr, nullptr, 0.0f, 0};
  const Tensor& t = op.out(j);
  if (t.type() == DataType::Float32) return {nullptr, op.out_data<float>(j), 0.0f, 0};
  return {op.out_data<int8_t>(j), nullptr, t.scale(), t.zero_point()};
}

void invoke(const Op& op) {
  kernels::FloatRnnOperands o{};
  o.x = input(op, 0);
  o.w = op.in_data<float>(kW);
  o.r = op.in_data<float>(kR);
  o.bias = op.optional_in_data<float>(kBias);
  o.initial_h = input(op, kInitialH);
  o.initial_c = input(op, kInitialC);
  o.peephole = op.optional_in_data<float>(kPeephole);
  o.y = output(op, 0);
  o.y_h = output(op, 1);
  o.y_c = output(op, 2);
  kernels::float_rnn(params_of(op), o, reinterpret_cast<float*>(op.scratch().data));
}

size_t required_scratch(const schema::Program& p, const schema::Operator& op) {
  const auto& o = *op.options_as<schema::FloatRnnOptions>();
  const Tensor& x = input_of(p, op, 0);
  return kernels::float_rnn_scratch_bytes(
      is_lstm(o) ? kernels::RnnCell::kLstm : kernels::RnnCell::kGru, batches_of(o, x), dim(x, 2),
      dim(input_of(p, op, kR), 2));
}

}  // namespace

extern const OpRegistration kFloatRnnOp{
    takes(3, 7, schema::OpOptions::FloatRnnOptions).outputs(3), &check, &required_scratch,
    /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kFloatRnnPlain{&invoke};

}  // namespace mote::runtime::internal
