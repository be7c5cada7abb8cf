#include "compiler/ops/validate.h"

#include <algorithm>

#include "compiler/ops/checker.h"
#include "compiler/ops/op_def.h"

namespace mote::ops {
namespace {

using ir::Graph;
using ir::kMaxRank;
using ir::kMaxTensorBytes;
using ir::Operator;

// `plain_int8`: the tensor is the output of an operator that writes plain integers of any type
// (OpDef::plain_output: CAST), so an int8 without quantization is a plain integer there.
void check_tensor(const Graph& g, int32_t index, bool plain_int8) {
  const Tensor& t = g.tensors[index];
  auto bad = [&](const std::string& why) {
    throw InputError(tensor_label(g, index) + ": " + why);
  };
  if (t.shape.size() > kMaxRank) {
    bad("rank " + std::to_string(t.shape.size()) + " exceeds " + std::to_string(kMaxRank));
  }
  // int16: an activation (16x8 models, quantized; only operators with
  // OpDef::int16_activations take one), a plain integer (no quantization: the signal operators'
  // samples), a constant or a state. uint32 and uint64: plain integers (the signal operators'
  // energies and filter-bank sums), never quantized. int64 as a constant (16x8 biases, slice
  // parameters) or a plain integer (ARG_MAX's indices).
  // uint8 as an activation only (QUANTIZE reads and writes it; every other operator checks for
  // int8). int4 only as a constant (packed weights). The operators that read them check their
  // types.
  const bool int64_ok = t.type == DataType::kInt64 && (t.is_constant || t.quantization.empty());
  const bool uint8_ok = t.type == DataType::kUInt8 && !t.is_constant;
  const bool int4_ok = t.type == DataType::kInt4 && t.is_constant;
  const bool plain_ok = (t.type == DataType::kUInt32 || t.type == DataType::kUInt64) &&
                        t.quantization.empty();
  // uint8 weights: TensorFlow 1's quantization (zero points around 128), which TFLM's kernels
  // no longer run either.
  if (t.type == DataType::kUInt8 && t.is_constant) {
    bad("uint8 constant (TensorFlow 1's uint8 quantization, which TensorFlow Lite Micro does not "
        "run either) not supported: convert the model again with full-integer int8 quantization "
        "(TFLite converter: optimizations = [tf.lite.Optimize.DEFAULT], a representative_dataset, "
        "target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8])");
  }
  if (t.type != DataType::kFloat32 && t.type != DataType::kInt8 && t.type != DataType::kInt32 &&
      t.type != DataType::kInt16 && !int64_ok && !uint8_ok && !int4_ok && !plain_ok) {
    bad("type " + std::string(to_string(t.type)) + " not supported" +
        (t.type == DataType::kInt4 ? " except as constant weights"
         : t.type == DataType::kUInt32 || t.type == DataType::kUInt64
             ? " with quantization (a plain integer only)"
             : ""));
  }
  int64_t elements = 1;
  for (int32_t d : t.shape) {
    if (d < 1) bad("shape " + shape_string(t.shape) + " has a dimension below 1");
    elements *= d;  // elements < 2^32 (int4), d < 2^31: no overflow before the check below
    if (storage_bytes(t.type, elements) > kMaxTensorBytes) {
      bad("shape " + shape_string(t.shape) + " is larger than 2 GiB");
    }
  }
  const int64_t bytes = storage_bytes(t.type, elements);

  const Quantization& q = t.quantization;
  if (q.scale.size() != q.zero_point.size()) {
    bad("quantization has " + std::to_string(q.scale.size()) + " scales but " +
        std::to_string(q.zero_point.size()) + " zero points");
  }
  if (q.scale.empty()) {
    if (q.quantized_dimension != 0) bad("quantized_dimension set without quantization");
    if ((t.type == DataType::kInt8 && !plain_int8) || t.type == DataType::kUInt8) {
      bad(std::string(to_string(t.type)) + " tensor without quantization");
    }
  } else {
    const int32_t rank = static_cast<int32_t>(t.shape.size());
    const int32_t qd = q.quantized_dimension;
    if (qd < 0 || (rank > 0 && qd >= rank) || (rank == 0 && qd != 0)) {
      bad("quantized_dimension " + std::to_string(qd) + " out of range for shape " +
          shape_string(t.shape));
    }
    if (q.scale.size() > 1 && (rank == 0 || q.scale.size() != static_cast<size_t>(t.shape[qd]))) {
      bad(std::to_string(q.scale.size()) + " scales for dimension " + std::to_string(qd) +
          " of shape " + shape_string(t.shape));
    }
    for (size_t c = 0; c < q.scale.size(); ++c) {
      if (!std::isfinite(q.scale[c]) || q.scale[c] <= 0.0f) {
        bad("scale[" + std::to_string(c) + "] " + num(q.scale[c]) +
            " is not a positive finite number");
      }
      const int64_t zp = q.zero_point[c];
      const bool in_range =
          t.type == DataType::kInt8    ? (zp >= -128 && zp <= 127)
          : t.type == DataType::kUInt8 ? (zp >= 0 && zp <= 255)
          : t.type == DataType::kInt16 ? (zp >= -32768 && zp <= 32767)
          : t.type == DataType::kInt4  ? (zp >= -8 && zp <= 7)
          : t.type == DataType::kInt32
              ? (zp >= std::numeric_limits<int32_t>::min() && zp <= std::numeric_limits<int32_t>::max())
              : true;
      if (!in_range) {
        bad("zero_point[" + std::to_string(c) + "] " + std::to_string(zp) + " out of range for " +
            std::string(to_string(t.type)));
      }
    }
  }

  if (t.is_constant) {
    if (static_cast<int64_t>(t.data.size()) != bytes) {
      bad("constant holds " + std::to_string(t.data.size()) + " bytes, " +
          std::string(to_string(t.type)) + " " + shape_string(t.shape) + " needs " +
          std::to_string(bytes));
    }
  } else if (!t.data.empty()) {
    bad("holds data but is not marked constant");
  }
  if (t.is_variable && t.is_constant) bad("a variable tensor cannot be constant");
}

// An operator without a 16x8 kernel that reads or writes a quantized int16 activation (not a
// constant, not a state, not a plain integer): one refusal naming it, rather than a type error
// of its own check. A plain int16 (no quantization) is each operator's check's to judge.
std::string int16_problem(const Graph& g, size_t index) {
  const Operator& op = g.operators[index];
  for (const std::vector<int32_t>* list : {&op.inputs, &op.outputs}) {
    for (int32_t t : *list) {
      if (t == kNoTensor) continue;
      const Tensor& tensor = g.tensors[t];
      if (tensor.type != DataType::kInt16 || tensor.is_constant || tensor.is_variable ||
          tensor.quantization.empty()) {
        continue;
      }
      return "operator " + std::to_string(index) + " (" + std::string(to_string(op.type)) +
             "): int16 activations (" + tensor_label(g, t) + ") are not yet supported for " +
             std::string(to_string(op.type)) +
             "; quantize the model with int8 activations (TFLITE_BUILTINS_INT8), or without "
             "this operator";
    }
  }
  return "";
}

// Where the rules' verdicts go: validate() throws at the first, validate_each() collects them.
class Verdicts {
 public:
  virtual ~Verdicts() = default;
  virtual void tensor(int32_t index, const std::string& why) = 0;
  virtual void graph(const std::string& why) = 0;
  virtual void op(size_t index, const std::string& why) = 0;
};

class ThrowFirst : public Verdicts {
 public:
  void tensor(int32_t, const std::string& why) override { throw InputError(why); }
  void graph(const std::string& why) override { throw InputError(why); }
  void op(size_t, const std::string& why) override { throw InputError(why); }
};

class Collect : public Verdicts {
 public:
  explicit Collect(ValidationReport& report) : report_(report) {}
  void tensor(int32_t, const std::string&) override {}  // reported with its readers, below
  void graph(const std::string& why) override { report_.graph.push_back(why); }
  void op(size_t index, const std::string& why) override {
    if (report_.operators[index].empty()) report_.operators[index] = why;
  }

 private:
  ValidationReport& report_;
};

// Every rule, each verdict to `verdicts`. Operators are judged on their own: one that reads a
// tensor with a problem is refused with that problem, and a refused operator's outputs count as
// produced for the operators after it.
void check_graph(const Graph& g, const std::vector<std::string>& tensor_problems,
                 const std::vector<int32_t>& produced_elsewhere, Verdicts& verdicts,
                 std::vector<std::string>& notes) {
  const int64_t num_tensors = static_cast<int64_t>(g.tensors.size());
  if (num_tensors > std::numeric_limits<int32_t>::max()) {
    verdicts.graph("too many tensors");
    return;
  }
  std::vector<std::string> bad(g.tensors.size());
  std::vector<bool> plain_int8(g.tensors.size(), false);
  for (const Operator& op : g.operators) {
    if (!op_def(op.type).plain_output) continue;
    for (int32_t t : op.outputs) {
      if (t >= 0 && t < num_tensors) plain_int8[t] = true;
    }
  }
  for (int32_t i = 0; i < static_cast<int32_t>(num_tensors); ++i) {
    if (static_cast<size_t>(i) < tensor_problems.size() && !tensor_problems[i].empty()) {
      bad[i] = tensor_problems[i];
    } else {
      try {
        check_tensor(g, i, plain_int8[i]);
      } catch (const InputError& e) {
        bad[i] = e.what();
      }
    }
    if (!bad[i].empty()) verdicts.tensor(i, bad[i]);
  }
  std::vector<bool> reported(g.tensors.size(), false);  // bad tensors named by an operator

  auto in_range = [&](int32_t t) { return t >= 0 && t < num_tensors; };
  if (g.operators.empty()) verdicts.graph("graph has no operators");
  const std::string float_model = float_model_problem(g);
  if (!float_model.empty()) verdicts.graph(float_model);
  if (g.outputs.empty()) verdicts.graph("graph has no outputs");

  // Tensors readable so far: constants, graph inputs, then each operator's outputs.
  std::vector<bool> available(g.tensors.size(), false);
  // State (variable tensors) is there from the start, like constants, and read only where an
  // operator declares it (OpDef::state_inputs), by one operator.
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    available[i] = g.tensors[i].is_constant || g.tensors[i].is_variable;
  }
  std::vector<int32_t> state_user(g.tensors.size(), -1);
  for (int32_t t : produced_elsewhere) {
    if (in_range(t)) available[t] = true;
  }
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    const int32_t t = g.inputs[k];
    if (!in_range(t)) {
      verdicts.graph("graph input " + std::to_string(k) + " refers to tensor " + std::to_string(t) +
                     ", out of range (" + std::to_string(num_tensors) + " tensors)");
    } else if (g.tensors[t].is_constant || g.tensors[t].is_variable) {
      verdicts.graph("graph input " + std::to_string(k) + ": " + tensor_label(g, t) + " is a " +
                     (g.tensors[t].is_constant ? "constant" : "variable tensor (state)"));
    } else if (available[t]) {
      verdicts.graph("graph input " + std::to_string(k) + ": " + tensor_label(g, t) +
                     " is listed twice");
    } else {
      available[t] = true;
    }
  }

  for (size_t i = 0; i < g.operators.size(); ++i) {
    const Operator& op = g.operators[i];
    auto where = [&] {
      return "operator " + std::to_string(i) + " (" + std::string(to_string(op.type)) + "): ";
    };
    // The first problem of each tensor list, or "" when both are fine.
    auto tensors_problem = [&](const std::vector<int32_t>& list, const char* what, bool output) {
      for (size_t k = 0; k < list.size(); ++k) {
        const int32_t t = list[k];
        if (t == kNoTensor && !output) continue;
        if (!in_range(t)) {
          return where() + what + " " + std::to_string(k) + " refers to tensor " +
                 std::to_string(t) + ", out of range (" + std::to_string(num_tensors) + " tensors)";
        }
        if (!bad[t].empty()) {
          reported[t] = true;
          return bad[t];
        }
        if (!output && !available[t]) {
          return where() + what + " " + std::to_string(k) + " (" + tensor_label(g, t) +
                 ") is read before any operator produces it";
        }
        if (output && g.tensors[t].is_variable) {
          return where() + what + " " + std::to_string(k) + " (" + tensor_label(g, t) +
                 ") is a variable tensor (state); an operator updates its state as an input";
        }
        if (output && available[t]) {
          return where() + what + " " + std::to_string(k) + " (" + tensor_label(g, t) +
                 ") is a constant, a graph input or already produced";
        }
      }
      return std::string();
    };
    const OpDef& def = op_def(op.type);
    // Where the operator keeps state (OpDef::state_inputs), and only there, a variable tensor,
    // one operator's alone.
    auto state_problem = [&]() -> std::string {
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        const int32_t t = op.inputs[k];
        const bool declared = std::find(def.state_inputs.begin(), def.state_inputs.end(),
                                        static_cast<int8_t>(k)) != def.state_inputs.end();
        const bool variable = t != kNoTensor && g.tensors[t].is_variable;
        if (declared && !variable) {
          return where() + "input " + std::to_string(k) +
                 (t == kNoTensor ? " is absent"
                                 : " (" + tensor_label(g, t) + ") is not a variable tensor") +
                 "; it must be the operator's state";
        }
        if (variable && !declared) {
          return where() + "input " + std::to_string(k) + " (" + tensor_label(g, t) +
                 ") is a variable tensor (state), which this operator does not keep";
        }
        if (variable) {
          if (state_user[t] != -1) {
            return where() + "input " + std::to_string(k) + " (" + tensor_label(g, t) +
                   ") is the state of operator " + std::to_string(state_user[t]) +
                   " too; operators cannot share a state";
          }
          state_user[t] = static_cast<int32_t>(i);
        }
      }
      return std::string();
    };
    std::string problem = tensors_problem(op.inputs, "input", false);
    if (problem.empty()) problem = state_problem();
    if (problem.empty()) problem = tensors_problem(op.outputs, "output", true);
    if (problem.empty() && !def.int16_activations) problem = int16_problem(g, i);
    if (problem.empty()) {
      try {
        Checker checker(g, i, &notes);
        checker.arity(def.inputs.min, def.inputs.max, def.inputs.first_optional, def.outputs.min,
                      def.outputs.max);
        def.check(checker);
      } catch (const InputError& e) {
        problem = e.what();
      }
    }
    if (!problem.empty()) verdicts.op(i, problem);
    for (int32_t t : op.outputs) {
      if (in_range(t)) available[t] = true;
    }
  }
  for (size_t t = 0; t < bad.size(); ++t) {
    if (!bad[t].empty() && !reported[t]) verdicts.graph(bad[t]);
  }

  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const int32_t t = g.outputs[k];
    if (!in_range(t)) {
      verdicts.graph("graph output " + std::to_string(k) + " refers to tensor " +
                     std::to_string(t) + ", out of range (" + std::to_string(num_tensors) +
                     " tensors)");
    } else if (!available[t] || g.tensors[t].is_constant || g.tensors[t].is_variable) {
      verdicts.graph("graph output " + std::to_string(k) + ": " + tensor_label(g, t) +
                     " is not produced by any operator or graph input");
    }
  }
}

}  // namespace

std::vector<std::string> validate(const Graph& g) {
  ThrowFirst verdicts;
  std::vector<std::string> notes;
  check_graph(g, {}, {}, verdicts, notes);
  return notes;
}

ValidationReport validate_each(const Graph& g, const std::vector<std::string>& tensor_problems,
                               const std::vector<int32_t>& produced_elsewhere) {
  ValidationReport report;
  report.operators.assign(g.operators.size(), "");
  Collect verdicts(report);
  check_graph(g, tensor_problems, produced_elsewhere, verdicts, report.notes);
  return report;
}

// One message that says how to quantize the model, rather than a type error at every operator.
std::string float_model_problem(const Graph& g) {
  for (size_t i = 0; i < g.operators.size(); ++i) {
    const Operator& op = g.operators[i];
    if (op.type == ir::OpType::kQuantize || op.type == ir::OpType::kDequantize) continue;
    if (op_def(op.type).float_operands) continue;
    for (const std::vector<int32_t>* list : {&op.inputs, &op.outputs}) {
      for (int32_t t : *list) {
        if (t < 0 || static_cast<size_t>(t) >= g.tensors.size() ||
            g.tensors[t].type != DataType::kFloat32) {
          continue;
        }
        return "operator " + std::to_string(i) + " (" + std::string(to_string(op.type)) +
               ") computes in float32: Mote runs int8 (full integer) models only. Quantize the "
               "model with the TFLite converter: converter.optimizations = "
               "[tf.lite.Optimize.DEFAULT], converter.representative_dataset = a function "
               "yielding about 100 typical inputs, converter.target_spec.supported_ops = "
               "[tf.lite.OpsSet.TFLITE_BUILTINS_INT8] (and inference_input_type / "
               "inference_output_type = tf.int8 for int8 inputs and outputs)";
      }
    }
  }
  return "";
}

}  // namespace mote::ops
