// RESHAPE: no kernel work; the planner gives the output its input's bytes (an alias).
#include <cstring>

#include "compiler/ops/checker.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

template <typename T>
std::vector<T> to_vector(const flatbuffers::Vector<T>* v) {
  if (v == nullptr) return {};
  std::vector<T> out(v->size());
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

ir::Options read(const TfliteOptions& t) {
  ir::ReshapeOptions r;
  if (const auto* o = t.table<tfl::ReshapeOptions>(tfl::BuiltinOptions::ReshapeOptions, false)) {
    r.new_shape = to_vector(o->new_shape());
  }
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  tfl::ReshapeOptionsT t;
  t.new_shape = std::get<ir::ReshapeOptions>(op.options).new_shape;
  out.Set(std::move(t));
}

// Resolves a TFLite shape list (one entry may be -1) against `elements`; fails unless it equals
// the output shape. `what` names the list in messages.
void expect_target(const Checker& c, const std::vector<int32_t>& target, int64_t elements,
                   const std::string& what) {
  std::vector<int32_t> resolved = target;
  int64_t known = 1;
  int unknown = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1 && unknown < 0) {
      unknown = static_cast<int>(i);
    } else if (target[i] < 1) {
      c.fail(what + " " + shape_string(target) + " is not a valid shape");
    } else {
      known *= target[i];
      if (known > elements) break;
    }
  }
  if (unknown >= 0 && known > 0 && elements % known == 0) {
    resolved[unknown] = static_cast<int32_t>(elements / known);
  }
  if (resolved != c.out().shape) {
    c.fail(what + " " + shape_string(target) + " does not match " + c.out_label() + " shape " +
           shape_string(c.out().shape));
  }
}

void check(Checker& c) {
  const auto& o = c.options<ir::ReshapeOptions>();
  // int16 moves as int8 does; plain int16, int32 and int64 (ARG_MAX's indices, no
  // quantization) as they are.
  const bool plain = c.plain_move() ||
                     (c.out().type == DataType::kInt64 && c.out().quantization.empty());
  const DataType type = plain ? c.out().type : c.activation_type();
  const Tensor& input = plain ? c.plain(0, type) : c.data_input(0, type);
  if (!plain) c.data_output(type);
  if (c.out().num_elements() != input.num_elements()) {
    c.fail(c.out_label() + " shape " + shape_string(c.out().shape) +
           " holds a different number of elements than " + c.in_label(0) + " shape " +
           shape_string(input.shape));
  }
  if (!plain) c.expect_same_quantization(0);
  if (c.has_input(1)) {
    const Tensor& shape = c.param_input(1, DataType::kInt32);
    c.expect_rank(1, 1);
    expect_target(c, int32_values(shape), input.num_elements(), c.in_label(1) + " (shape)");
  } else if (!o.new_shape.empty()) {
    expect_target(c, o.new_shape, input.num_elements(), "new_shape");
  }
}

constexpr int8_t kProgramInputs[] = {0};  // the shape operand is folded into the output shape

}  // namespace

extern const OpDef reshape{.builtin_code = builtin(tfl::BuiltinOperator::RESHAPE),
                           .read_options = read, .write_options = write, .inputs = {1, 2, 1},
                           .check = check, .program_inputs = kProgramInputs,
                           .int16_activations = true, .output_aliases_input = true};

}  // namespace mote::ops
