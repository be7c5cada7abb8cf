// SLICE of an int8 tensor by constant begin and size (int32 or int64; size -1 runs to the end),
// up to 5 dimensions: the program's SliceOptions with unit steps, walked by the strided-copy
// kernel as STRIDED_SLICE is.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/strided_slice.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

void check(Checker& c) {
  c.no_options();
  const DataType type = c.activation_type();  // int16 moves as int8 does
  const Tensor& input = c.data_input(0, type);
  ResolvedSlice r;
  const std::string why =
      resolve_slice(input.shape, constant_vector(c, 1, "begin"), constant_vector(c, 2, "size"), &r);
  if (!why.empty()) c.fail(why);
  c.data_output(type);
  c.expect_output_shape(r.output_shape);
  c.expect_same_quantization(0);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  ResolvedSlice r;
  resolve_slice(ctx.in(0).shape, int_values(ctx.in(1)), int_values(ctx.in(2)), &r);
  schema::SliceOptionsT s;
  s.begin = r.begin;
  s.stride = r.stride;
  s.count = r.count;
  out.options.Set(std::move(s));
}

constexpr int8_t kProgramInputs[] = {0};  // begin and size are options

}  // namespace

extern const OpDef slice{.builtin_code = builtin(tfl::BuiltinOperator::SLICE),
                         .read_options = read_empty<tfl::BuiltinOptions::SliceOptions>,
                         .write_options = write_empty<tfl::SliceOptionsT>, .inputs = {3, 3},
                         .check = check, .lower = lower, .program_inputs = kProgramInputs,
                         .int16_activations = true};

}  // namespace mote::ops
