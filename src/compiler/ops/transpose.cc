// TRANSPOSE by a constant permutation.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/transpose.h"

namespace mote::ops {
namespace {

void check(Checker& c) {
  c.no_options();
  const DataType type = c.activation_type();
  const Tensor& input = c.data_input(0, type);
  c.data_output(type);
  // int16 runs as bytes with one more dimension (the element's two bytes), which must fit.
  if (type == DataType::kInt16 && input.shape.size() + 1 > kernels::kMaxTransposeRank) {
    c.fail(c.in_label(0) + " is int16 of rank " + std::to_string(input.shape.size()) +
           "; an int16 TRANSPOSE takes rank " + std::to_string(kernels::kMaxTransposeRank - 1) +
           " at most");
  }
  const Tensor& perm = c.param_input(1, DataType::kInt32);
  const std::vector<int32_t> expected_shape = {static_cast<int32_t>(input.shape.size())};
  if (perm.shape != expected_shape) {
    c.fail(c.in_label(1) + " (permutation) has shape " + shape_string(perm.shape) +
           ", expected " + shape_string(expected_shape));
  }
  const std::vector<int32_t> p = int32_values(perm);
  std::vector<bool> seen(p.size(), false);
  std::vector<int32_t> expected(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] < 0 || static_cast<size_t>(p[i]) >= p.size() || seen[p[i]]) {
      c.fail(c.in_label(1) + " " + shape_string(p) + " is not a permutation");
    }
    seen[p[i]] = true;
    expected[i] = input.shape[p[i]];
  }
  c.expect_output_shape(expected);
  c.expect_same_quantization(0);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  schema::TransposeOptionsT t;
  t.perm = int_values(ctx.in(1));
  out.options.Set(std::move(t));
}

constexpr int8_t kProgramInputs[] = {0};  // the permutation is an option

}  // namespace

extern const OpDef transpose{.builtin_code = builtin(tfl::BuiltinOperator::TRANSPOSE),
                             .read_options = read_empty<tfl::BuiltinOptions::TransposeOptions>,
                             .write_options = write_empty<tfl::TransposeOptionsT>, .inputs = {2, 2},
                             .check = check, .lower = lower, .program_inputs = kProgramInputs,
                             .int16_activations = true};

}  // namespace mote::ops
