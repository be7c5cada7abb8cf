// CONCATENATION: up to 16 int8 inputs along one axis, each optionally requantized to the
// output's scale; or int16 or plain int32 ones, copied. Int8 [1, H, W, C] maps joined along W or C run by rows
// in a stage.

#include "mote/kernels/concatenation.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

// Inputs the runtime accepts (their pointers and parameters sit on the stack).
constexpr size_t kMaxConcatenationInputs = 16;

Error check(const OpChecker& c) {
  const size_t n = num_inputs(c.op());
  MOTE_TRY(c.shape_of_op(n < 1 ? 1 : n, n, 1, schema::OpOptions::ConcatenationOptions));
  if (n > kMaxConcatenationInputs) {
    return c.bad("more than 16 concatenation inputs", Error::kUnsupported);
  }
  const auto& o = c.options<schema::ConcatenationOptions>();
  const Tensor& y = c.out();
  const size_t r = rank(y);
  if (y.type() != DataType::Int8 && y.type() != DataType::Int16 &&
      !(y.type() == DataType::Int32 && y.scale() == 0.0f)) {
    return c.bad("output must be int8, int16 or plain int32");
  }
  if (y.type() != DataType::Int8 && o.requant() != nullptr) {
    return c.bad("int16 and int32 inputs are copied, not requantized");
  }
  if (o.axis() < 0 || static_cast<size_t>(o.axis()) >= r) return c.bad("axis out of range");
  const size_t axis = static_cast<size_t>(o.axis());
  if (o.requant() != nullptr && o.requant()->size() != n) {
    return c.bad("requantization must have one entry per input");
  }
  if (o.requant() != nullptr && !in_range(y.zero_point(), -128, 127)) {
    return c.bad("output zero point outside int8");
  }
  int64_t total = 0;
  for (size_t k = 0; k < n; ++k) {
    const Tensor& x = *c.in(k);
    if (x.type() != y.type() || rank(x) != r ||
        (y.type() == DataType::Int32 && x.scale() != 0.0f)) {
      return c.bad("inputs differ in type or rank");
    }
    for (size_t d = 0; d < r; ++d) {
      if (d != axis && dim(x, d) != dim(y, d)) return c.bad("inputs differ off the axis");
    }
    total += dim(x, axis);
    if (o.requant() != nullptr) {
      const schema::ConcatRequant& q = *o.requant()->Get(static_cast<flatbuffers::uoffset_t>(k));
      if (q.requantize() && !in_range(q.input_offset(), -127, 128)) {
        return c.bad("input zero point outside int8");
      }
      if (q.requantize() &&
          !requant_ok(kMaxCenteredInput, q.requant().multiplier(), q.requant().shift())) {
        return c.bad("input requantization out of range", requant_error(q.requant().multiplier()));
      }
    }
  }
  if (total != dim(y, axis)) return c.bad("output size along the axis differs from the inputs'");
  return Error::kOk;
}

// Input k's parameters for the kernel, `copy_size` elements of it per outer index. Only a
// requantized input's are checked at load (and read by the kernel).
kernels::ConcatenationInput input_params(const schema::ConcatenationOptions& o, const Tensor& y,
                                         size_t k, int32_t copy_size) {
  kernels::ConcatenationInput in{};
  in.copy_size = copy_size;
  if (o.requant() != nullptr) {
    const schema::ConcatRequant& q = *o.requant()->Get(static_cast<flatbuffers::uoffset_t>(k));
    in.requantize = q.requantize();
    if (in.requantize) {
      in.input_zero_point = -q.input_offset();
      in.output_zero_point = y.zero_point();
      in.multiplier = q.requant().multiplier();
      in.shift = q.requant().shift();
    }
  }
  return in;
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::ConcatenationOptions>();
  const Tensor& y = op.out();
  const size_t n = num_inputs(op.op());
  const int32_t axis = o.axis();
  // int16 and int32: copied as bytes.
  const int32_t element_bytes = static_cast<int32_t>(element_size(y.type()));
  kernels::ConcatenationInput params[kMaxConcatenationInputs];
  const int8_t* inputs[kMaxConcatenationInputs];
  for (size_t k = 0; k < n; ++k) {
    const Tensor& x = op.in(k);
    int32_t copy_size = element_bytes;
    for (size_t i = static_cast<size_t>(axis); i < rank(x); ++i) copy_size *= dim(x, i);
    params[k] = input_params(o, y, k, copy_size);
    inputs[k] = op.in_data<int8_t>(k);
  }
  kernels::ConcatenationParams p{};
  p.num_inputs = static_cast<int32_t>(n);
  p.outer_size = 1;
  for (int32_t i = 0; i < axis; ++i) p.outer_size *= dim(y, static_cast<size_t>(i));
  kernels::concatenation(p, params, inputs, op.out_data<int8_t>());
}

// Inside a row-streamed stage: an int8 [1, H, W, C] output joined along W (axis 2) or C (axis 3)
// from activations (no constant: a row call holds none), row y of each for row y.
bool by_rows(const schema::Program& p, const schema::Operator& op) {
  const Tensor& y = output_of(p, op);
  const int32_t axis = op.options_as_ConcatenationOptions()->axis();
  if (y.type() != DataType::Int8 || rank(y) != 4 || dim(y, 0) != 1 || (axis != 2 && axis != 3)) {
    return false;
  }
  for (size_t j = 0; j < num_inputs(op); ++j) {
    if (input_index(op, j) < 0) return false;
    const Tensor& x = input_of(p, op, j);
    if (x.location() == schema::Location::Constant || x.type() != DataType::Int8 ||
        rank(x) != 4 || dim(x, 1) != dim(y, 1)) {
      return false;
    }
  }
  return true;
}

bool row_reach(const schema::Program& p, const schema::Operator& op, size_t k,
               StageRowReach* reach) {
  return k < num_inputs(op) && by_rows(p, op) && stage_window_reach(1, 1, 0, 1, reach);
}

// The row-call words: row y of the output is `outer_size` runs (W along C, 1 along W), each of
// every input's copy_size elements in turn, on the kernel the whole map runs (a copy, or
// TFLite's requantization, element by element: bit for bit the whole-map result). Room for as
// many inputs as a stage member reads; `requantize` holds a bit per input.
struct ConcatenationRowInput {
  RowOperand x;
  int32_t copy_size;
  int32_t input_zero_point, multiplier, shift;
};
struct ConcatenationRowArgs {
  int32_t num_inputs, outer_size;
  int32_t output_zero_point, requantize;
  RowOperand output;
  ConcatenationRowInput inputs[kMaxStageReads];
};

bool row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  const auto& o = *op.options_as_ConcatenationOptions();
  const Tensor& y = output_of(p, op);
  const size_t n = num_inputs(op);
  ConcatenationRowArgs r{};
  if (n < 1 || n > static_cast<size_t>(kMaxStageReads) || !by_rows(p, op) ||
      !row_operand(p, output_index(op, 0), &r.output) || r.output.at < 0) {
    return false;
  }
  r.num_inputs = static_cast<int32_t>(n);
  r.outer_size = o.axis() == 3 ? dim(y, 2) : 1;
  r.output_zero_point = y.zero_point();
  for (size_t k = 0; k < n; ++k) {
    const Tensor& x = input_of(p, op, k);
    const int32_t copy_size = o.axis() == 3 ? dim(x, 3) : dim(x, 2) * dim(x, 3);
    const kernels::ConcatenationInput in = input_params(o, y, k, copy_size);
    ConcatenationRowInput& w = r.inputs[k];
    if (!row_operand(p, input_index(op, k), &w.x)) return false;
    w.copy_size = in.copy_size;
    if (in.requantize) {
      r.requantize |= 1 << k;
      w.input_zero_point = in.input_zero_point;
      w.multiplier = in.multiplier;
      w.shift = in.shift;
    }
  }
  return write_row_args(r, words);
}

void invoke_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  const ConcatenationRowArgs& r = row_args_of<ConcatenationRowArgs>(words);
  kernels::ConcatenationInput params[kMaxStageReads];
  const int8_t* rows[kMaxStageReads];
  int32_t width = 0;  // output elements per row
  for (int32_t k = 0; k < r.num_inputs; ++k) {
    const ConcatenationRowInput& w = r.inputs[k];
    params[k] = kernels::ConcatenationInput{};
    params[k].copy_size = w.copy_size;
    params[k].requantize = (r.requantize >> k & 1) != 0;
    params[k].input_zero_point = w.input_zero_point;
    params[k].output_zero_point = r.output_zero_point;
    params[k].multiplier = w.multiplier;
    params[k].shift = w.shift;
    width += r.outer_size * w.copy_size;
  }
  const kernels::ConcatenationParams p{r.num_inputs, r.outer_size};
  for (int32_t y = y_begin; y < y_end; ++y) {
    for (int32_t k = 0; k < r.num_inputs; ++k) {
      const ConcatenationRowInput& w = r.inputs[k];
      rows[k] = row_of(row_input(env, w.x), w.x.rows, y, r.outer_size * w.copy_size);
    }
    kernels::concatenation(p, params, rows, row_of(row_output(env, r.output), r.output.rows, y,
                                                   width));
  }
}

}  // namespace

extern const OpRegistration kConcatenationOp{
    takes(1, 255, schema::OpOptions::ConcatenationOptions), &check, /*required_scratch=*/nullptr,
    /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kConcatenationPlain{&invoke};
extern const OpRowForm kConcatenationRows{&row_reach, &row_args, kRowWords<ConcatenationRowArgs>,
                                          &invoke_rows};

}  // namespace mote::runtime::internal
