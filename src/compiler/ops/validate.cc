#include "compiler/ops/validate.h"

#include "compiler/ops/checker.h"
#include "compiler/ops/op_def.h"

namespace mote::ops {
namespace {

using ir::Graph;
using ir::kMaxRank;
using ir::kMaxTensorBytes;
using ir::Operator;

void check_tensor(const Graph& g, int32_t index) {
  const Tensor& t = g.tensors[index];
  auto bad = [&](const std::string& why) {
    throw InputError(tensor_label(g, index) + ": " + why);
  };
  if (t.shape.size() > kMaxRank) {
    bad("rank " + std::to_string(t.shape.size()) + " exceeds " + std::to_string(kMaxRank));
  }
  // int16 only as a constant or a state (SVDF's weights_time and state); the operators that
  // read it check its type.
  const bool int16_ok = t.type == DataType::kInt16 && (t.is_constant || t.is_variable);
  if (t.type != DataType::kFloat32 && t.type != DataType::kInt8 && t.type != DataType::kInt32 &&
      !int16_ok) {
    bad("type " + std::string(to_string(t.type)) + " not supported");
  }
  int64_t bytes = static_cast<int64_t>(element_size(t.type));
  for (int32_t d : t.shape) {
    if (d < 1) bad("shape " + shape_string(t.shape) + " has a dimension below 1");
    bytes *= d;  // both factors < 2^31: no overflow before the check below
    if (bytes > kMaxTensorBytes) bad("shape " + shape_string(t.shape) + " is larger than 2 GiB");
  }

  const Quantization& q = t.quantization;
  if (q.scale.size() != q.zero_point.size()) {
    bad("quantization has " + std::to_string(q.scale.size()) + " scales but " +
        std::to_string(q.zero_point.size()) + " zero points");
  }
  if (q.scale.empty()) {
    if (q.quantized_dimension != 0) bad("quantized_dimension set without quantization");
    if (t.type == DataType::kInt8) bad("int8 tensor without quantization");
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
          t.type == DataType::kInt8 ? (zp >= -128 && zp <= 127)
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

}  // namespace

void validate(const Graph& g) {
  const int64_t num_tensors = static_cast<int64_t>(g.tensors.size());
  if (num_tensors > std::numeric_limits<int32_t>::max()) throw InputError("too many tensors");
  for (int32_t i = 0; i < static_cast<int32_t>(num_tensors); ++i) check_tensor(g, i);

  auto in_range = [&](int32_t t) { return t >= 0 && t < num_tensors; };
  if (g.operators.empty()) throw InputError("graph has no operators");
  if (g.outputs.empty()) throw InputError("graph has no outputs");

  // Tensors readable so far: constants, graph inputs, then each operator's outputs.
  std::vector<bool> available(g.tensors.size(), false);
  // State (variable tensors) is there from the start, like constants, and read only where an
  // operator declares it (OpDef::state_inputs), by one operator.
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    available[i] = g.tensors[i].is_constant || g.tensors[i].is_variable;
  }
  std::vector<int32_t> state_user(g.tensors.size(), -1);
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    const int32_t t = g.inputs[k];
    if (!in_range(t)) {
      throw InputError("graph input " + std::to_string(k) + " refers to tensor " +
                       std::to_string(t) + ", out of range (" + std::to_string(num_tensors) +
                       " tensors)");
    }
    if (g.tensors[t].is_constant || g.tensors[t].is_variable) {
      throw InputError("graph input " + std::to_string(k) + ": " + tensor_label(g, t) + " is a " +
                       (g.tensors[t].is_constant ? "constant" : "variable tensor (state)"));
    }
    if (available[t]) {
      throw InputError("graph input " + std::to_string(k) + ": " + tensor_label(g, t) +
                       " is listed twice");
    }
    available[t] = true;
  }

  for (size_t i = 0; i < g.operators.size(); ++i) {
    const Operator& op = g.operators[i];
    auto where = [&] {
      return "operator " + std::to_string(i) + " (" + std::string(to_string(op.type)) + "): ";
    };
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const int32_t t = op.inputs[k];
      if (t == kNoTensor) continue;
      if (!in_range(t)) {
        throw InputError(where() + "input " + std::to_string(k) + " refers to tensor " +
                         std::to_string(t) + ", out of range (" + std::to_string(num_tensors) +
                         " tensors)");
      }
      if (!available[t]) {
        throw InputError(where() + "input " + std::to_string(k) + " (" + tensor_label(g, t) +
                         ") is read before any operator produces it");
      }
    }
    const OpDef& def = op_def(op.type);
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const int32_t t = op.inputs[k];
      const bool declared = std::find(def.state_inputs.begin(), def.state_inputs.end(),
                                      static_cast<int8_t>(k)) != def.state_inputs.end();
      const bool variable = t != kNoTensor && g.tensors[t].is_variable;
      if (declared && !variable) {
        throw InputError(where() + "input " + std::to_string(k) +
                         (t == kNoTensor ? " is absent"
                                         : " (" + tensor_label(g, t) + ") is not a variable tensor") +
                         "; it must be the operator's state");
      }
      if (variable && !declared) {
        throw InputError(where() + "input " + std::to_string(k) + " (" + tensor_label(g, t) +
                         ") is a variable tensor (state), which this operator does not keep");
      }
      if (variable) {
        if (state_user[t] != -1) {
          throw InputError(where() + "input " + std::to_string(k) + " (" + tensor_label(g, t) +
                           ") is the state of operator " + std::to_string(state_user[t]) +
                           " too; operators cannot share a state");
        }
        state_user[t] = static_cast<int32_t>(i);
      }
    }
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      const int32_t t = op.outputs[k];
      if (!in_range(t)) {
        throw InputError(where() + "output " + std::to_string(k) + " refers to tensor " +
                         std::to_string(t) + ", out of range (" + std::to_string(num_tensors) +
                         " tensors)");
      }
      if (g.tensors[t].is_variable) {
        throw InputError(where() + "output " + std::to_string(k) + " (" + tensor_label(g, t) +
                         ") is a variable tensor (state); an operator updates its state as an "
                         "input");
      }
      if (available[t]) {
        throw InputError(where() + "output " + std::to_string(k) + " (" + tensor_label(g, t) +
                         ") is a constant, a graph input or already produced");
      }
    }
    Checker checker(g, i);
    checker.arity(def.inputs.min, def.inputs.max, def.inputs.first_optional);
    def.check(checker);
    for (int32_t t : op.outputs) available[t] = true;
  }

  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const int32_t t = g.outputs[k];
    if (!in_range(t)) {
      throw InputError("graph output " + std::to_string(k) + " refers to tensor " +
                       std::to_string(t) + ", out of range (" + std::to_string(num_tensors) +
                       " tensors)");
    }
    if (!available[t] || g.tensors[t].is_constant || g.tensors[t].is_variable) {
      throw InputError("graph output " + std::to_string(k) + ": " + tensor_label(g, t) +
                       " is not produced by any operator or graph input");
    }
  }
}

}  // namespace mote::ops
