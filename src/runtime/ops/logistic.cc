// LOGISTIC: int8, either TFLite's fixed-point sigmoid or a 256-byte lookup table the compiler
// computed, whole or by rows in a stage; or int16 (16x8), TFLite's int16 kernel.

#include "mote/kernels/activation16.h"
#include "mote/kernels/logistic.h"
#include "mote/kernels/lookup_table.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::LogisticOptions>();
  if (c.int16()) {
    // 16x8: the int16 kernel's scaling (kernels::Activation16Params) keeps x * multiplier in int32.
    if (!in_range(o.input_multiplier(), 0, 32767) || !in_range(o.input_left_shift(), 0, 31)) {
      return c.bad("int16 parameters out of range");
    }
    return Error::kOk;
  }
  if (has_lookup_table(o.table())) return c.lookup_table(o.table());
  const int32_t shift = o.input_left_shift();
  if (!in_range(o.input_zero_point(), -128, 127) || o.input_range_radius() < 0 ||
      o.input_multiplier() < 0 || !in_range(shift, -31, 30) ||
      (min64(kMaxCenteredInput, o.input_range_radius()) << (shift > 0 ? shift : 0)) > INT32_MAX) {
    return c.bad("logistic parameters out of range");
  }
  return Error::kOk;
}

kernels::LogisticParams params_of(const schema::LogisticOptions& o) {
  kernels::LogisticParams p{};
  p.input_zero_point = o.input_zero_point();
  p.input_range_radius = o.input_range_radius();
  p.input_multiplier = o.input_multiplier();
  p.input_left_shift = o.input_left_shift();
  return p;
}

// The int8 kernel of both forms: the compiler's table where the program holds one, else the
// fixed-point sigmoid (the two can differ in the last bit, so a row runs what the map would).
void logistic_int8(const kernels::LogisticParams& p, const int8_t* table, const int8_t* input,
                   int8_t* output, size_t count) {
  if (table != nullptr) {
    kernels::lookup_table(table, input, output, count);
  } else {
    kernels::logistic(p, input, output, count);
  }
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::LogisticOptions>();
  if (op.in(0).type() == DataType::Int16) {
    kernels::logistic(kernels::Activation16Params{o.input_multiplier(), o.input_left_shift()},
                      op.in_data<int16_t>(0), op.out_data<int16_t>(), element_count(op.in(0)));
    return;
  }
  logistic_int8(params_of(o), op.lookup_table(o.table()), op.in_data<int8_t>(0),
                op.out_data<int8_t>(), element_count(op.in(0)));
}

// Inside a row-streamed stage (int8, elementwise_row_reach): the row-call words, each row
// width = W * C elements.
struct LogisticRowArgs {
  kernels::LogisticParams params;
  int32_t table;  // the table's constant offset, or -1: the fixed-point sigmoid
  int32_t width;
  RowOperand input, output;
};

bool row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  const schema::LogisticOptions& o = *op.options_as_LogisticOptions();
  LogisticRowArgs r{};
  r.params = params_of(o);
  const Tensor& y = output_of(p, op);
  r.width = dim(y, 2) * dim(y, 3);
  if (!row_constant(o.table(), &r.table) || !row_operand(p, input_index(op, 0), &r.input) ||
      !row_operand(p, output_index(op, 0), &r.output) || r.output.at < 0) {
    return false;
  }
  return write_row_args(r, words);
}

void invoke_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  const LogisticRowArgs& r = row_args_of<LogisticRowArgs>(words);
  const int8_t* table = row_constant_data<int8_t>(env, r.table);
  for (int32_t y = y_begin; y < y_end; ++y) {
    logistic_int8(r.params, table, row_of(row_input(env, r.input), r.input.rows, y, r.width),
                  row_of(row_output(env, r.output), r.output.rows, y, r.width),
                  static_cast<size_t>(r.width));
  }
}

}  // namespace

extern const OpRegistration kLogisticOp{
    takes(1, 1, schema::OpOptions::LogisticOptions).int8(1).int16(1).one_to_one(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kLogisticPlain{&invoke};
extern const OpRowForm kLogisticRows{&elementwise_row_reach, &row_args, kRowWords<LogisticRowArgs>,
                                     &invoke_rows};

}  // namespace mote::runtime::internal
