#include "compiler/tflite/reader.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "compiler/ir/error.h"
#include "compiler/ir/label.h"
#include "compiler/ir/validate.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "compiler/ops/validate.h"
#include "compiler/tflite/builtin_codes.h"
#include "compiler/tflite/shape_folding.h"
#include "compiler/tflite/tflite_subset_generated.h"

namespace mote::tflite {
namespace {

constexpr uint32_t kSchemaVersion = 3;

[[noreturn]] void fail(const std::string& message) { throw InputError(message); }

// Copies the elements' bytes: the verifier aligns a vector's length to 4 bytes, not its
// elements to their size, so an int64 vector (zero points) may start 4 bytes off an 8-byte
// boundary, where a typed load is undefined behaviour.
template <typename T>
std::vector<T> to_vector(const flatbuffers::Vector<T>* v) {
  static_assert(FLATBUFFERS_LITTLEENDIAN, "copies FlatBuffers' little-endian scalars as they are");
  if (v == nullptr) return {};
  std::vector<T> out(v->size());
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

// Names come from the file: keep messages on one line whatever they hold.
std::string printable(const flatbuffers::String* s) {
  if (s == nullptr) return "";
  std::string out = s->str();
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

// Where a problem is ("tensor 5 (name): ", "operator 3 (CONV_2D): "), spelled out only when a
// message needs it: valid models should not pay for building strings.
class Place {
 public:
  static Place tensor(uint32_t index, const std::string* name) { return {index, name, nullptr}; }
  static Place op(uint32_t index, const fb::OperatorCode* code) { return {index, nullptr, code}; }

  std::string str() const {
    if (code_ == nullptr) return ir::tensor_label(index_, *name_) + ": ";
    const int32_t builtin =
        std::max<int32_t>(code_->deprecated_builtin_code(), code_->builtin_code());
    std::string name = builtin_operator_name(builtin);
    if (builtin == kBuiltinCustom) name += " '" + printable(code_->custom_code()) + "'";
    return "operator " + std::to_string(index_) + " (" + name + "): ";
  }

 private:
  Place(uint32_t index, const std::string* name, const fb::OperatorCode* code)
      : index_(index), name_(name), code_(code) {}
  uint32_t index_;
  const std::string* name_;
  const fb::OperatorCode* code_;
};

// What to do about an operator Mote does not have, where the operator tells: a Vela command
// stream only an Ethos-U NPU runs, a custom operator the application would have to supply.
std::string unsupported_hint(int32_t builtin, const fb::OperatorCode& code) {
  if (builtin != kBuiltinCustom) return "";
  const std::string name = code.custom_code() == nullptr ? "" : code.custom_code()->str();
  if (name.rfind("Signal", 0) == 0) {
    return ": TFLM's signal operator " + name + ", which Mote does not have (it compiles "
           "SignalWindow, SignalFftAutoScale, SignalRfft, SignalEnergy, SignalFilterBank, "
           "SignalFilterBankSquareRoot, SignalFilterBankSpectralSubtraction, SignalPCAN and "
           "SignalFilterBankLog)";
  }
  if (name == "ethos-u") {
    return ": this model was compiled by Vela for an Arm Ethos-U NPU, whose command stream only "
           "the NPU runs; give Mote the model as the TFLite converter wrote it, before Vela";
  }
  return ": a custom operator, which the application registers in TFLite Micro; Mote compiles "
         "TFLite's built-in operators and TFLM's signal operators only (run the custom part "
         "outside the model)";
}

// quantized_dimension names the axis of per-channel scales. With one scale, or on a rank-1
// tensor (a per-channel bias), an out-of-range value cannot mean anything else than 0: TOCO
// wrote 3 on the biases of some models, TensorFlow Lite Micro ignores it (its kernels never read
// a bias's quantized_dimension), TensorFlow Lite's interpreter refuses the file. Mote reads it as
// 0 and records what it ignored.
void ignore_meaningless_quantized_dimension(ir::Tensor& r, const Place& where,
                                            std::vector<std::string>& notes) {
  const int32_t qd = r.quantization.quantized_dimension;
  const auto rank = static_cast<int32_t>(r.shape.size());
  const bool in_range = qd == 0 || (qd > 0 && qd < rank);
  if (in_range || (r.quantization.scale.size() != 1 && rank != 1)) return;
  notes.push_back(where.str() + "quantized_dimension " + std::to_string(qd) + " beyond its rank " +
                  std::to_string(rank) + " ignored (read as 0; TensorFlow Lite Micro ignores it " +
                  "too, TensorFlow Lite's interpreter refuses the file)");
  r.quantization.quantized_dimension = 0;
}

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  ir::Graph run() {
    const fb::SubGraph& sg = open();
    ir::Graph g;
    const auto* tensors = sg.tensors();
    const std::vector<bool> used = used_tensors(sg);
    g.tensors.reserve(tensors->size());
    for (uint32_t i = 0; i < tensors->size(); ++i) {
      g.tensors.push_back(read_tensor_if_used(*tensors->Get(i), i, used, g.notes));
    }
    const std::vector<Folding> folded = fold_shapes(sg, g, {});

    const auto* operators = sg.operators();
    if (operators != nullptr) {
      g.operators.reserve(operators->size());
      for (uint32_t i = 0; i < operators->size(); ++i) {
        if (!folded[i].problem.empty()) fail(folded[i].problem);
        if (folded[i].done) continue;
        g.operators.push_back(read_operator(*operators->Get(i), i, g));
      }
    }
    g.inputs = to_vector(sg.inputs());
    g.outputs = to_vector(sg.outputs());
    for (std::string& note : ops::validate(g)) g.notes.push_back(std::move(note));
    return g;
  }

  // Every operator's verdict, reading past what Mote cannot take (see check_model).
  SupportReport check() {
    const fb::SubGraph& sg = open();
    ir::Graph g;
    std::vector<std::string> tensor_problems;
    {
      const auto* tensors = sg.tensors();
      const std::vector<bool> used = used_tensors(sg);
      for (uint32_t i = 0; i < tensors->size(); ++i) {
        try {
          g.tensors.push_back(read_tensor_if_used(*tensors->Get(i), i, used, g.notes));
        } catch (const InputError& e) {
          tensor_problems.resize(i + 1);
          tensor_problems[i] = e.what();
          ir::Tensor placeholder;
          placeholder.name = printable(tensors->Get(i)->name());
          g.tensors.push_back(std::move(placeholder));
        }
      }
    }
    const std::vector<Folding> folded = fold_shapes(sg, g, tensor_problems);
    SupportReport report;
    std::vector<int32_t> produced_elsewhere;
    std::vector<size_t> in_graph;  // report.operators index of each operator of g
    if (const auto* operators = sg.operators()) {
      const auto* codes = model_->operator_codes();
      for (uint32_t i = 0; i < operators->size(); ++i) {
        const fb::Operator& op = *operators->Get(i);
        OperatorVerdict verdict{i, "?", ""};
        if (codes != nullptr && op.opcode_index() < codes->size()) {
          const fb::OperatorCode& code = *codes->Get(op.opcode_index());
          const int32_t builtin =
              std::max<int32_t>(code.deprecated_builtin_code(), code.builtin_code());
          verdict.type = builtin == kBuiltinCustom && code.custom_code() != nullptr
                             ? printable(code.custom_code())
                             : builtin_operator_name(builtin);
        }
        try {
          if (!folded[i].problem.empty()) fail(folded[i].problem);
          if (!folded[i].done) {
            g.operators.push_back(read_operator(op, i, g));
            in_graph.push_back(report.operators.size());
          }
        } catch (const InputError& e) {
          verdict.problem = e.what();
          const std::vector<int32_t> outputs = to_vector(op.outputs());
          produced_elsewhere.insert(produced_elsewhere.end(), outputs.begin(), outputs.end());
        }
        report.operators.push_back(std::move(verdict));
      }
    }
    g.inputs = to_vector(sg.inputs());
    g.outputs = to_vector(sg.outputs());
    const ops::ValidationReport checked = ops::validate_each(g, tensor_problems, produced_elsewhere);
    for (size_t k = 0; k < in_graph.size(); ++k) {
      // The checks name operators by their index in `g`, which lacks the operators left out.
      std::string problem = checked.operators[k];
      const std::string said = "operator " + std::to_string(k) + " (";
      if (problem.rfind(said, 0) == 0) {
        problem = "operator " + std::to_string(in_graph[k]) + " (" + problem.substr(said.size());
      }
      report.operators[in_graph[k]].problem = std::move(problem);
    }
    report.model = checked.graph;
    report.float_model = !ops::float_model_problem(g).empty();
    report.notes = g.notes;
    report.notes.insert(report.notes.end(), checked.notes.begin(), checked.notes.end());
    return report;
  }

  // What fold_shapes did with one operator: evaluated it (its output is now a constant), or
  // found it inconsistent (`problem`), or neither.
  struct Folding {
    bool done = false;
    std::string problem;
  };

  // Evaluates, in order, the operators that only compute shapes (shape_folding.h) and makes
  // their outputs constants. Tensors with a problem in `unreadable` are left alone.
  std::vector<Folding> fold_shapes(const fb::SubGraph& sg, ir::Graph& g,
                                   const std::vector<std::string>& unreadable) const {
    const auto* operators = sg.operators();
    std::vector<Folding> folded(operators == nullptr ? 0 : operators->size());
    const auto* codes = model_->operator_codes();
    if (operators == nullptr || codes == nullptr) return folded;
    const std::vector<int32_t> graph_outputs = to_vector(sg.outputs());
    const auto num_tensors = static_cast<int32_t>(g.tensors.size());
    auto usable = [&](int32_t t) {
      return t >= 0 && t < num_tensors &&
             (static_cast<size_t>(t) >= unreadable.size() || unreadable[t].empty());
    };
    auto int32_constant = [&](int32_t t) -> std::optional<Int32Value> {
      if (!usable(t)) return std::nullopt;
      const ir::Tensor& x = g.tensors[t];
      if (!x.is_constant || x.type != ir::DataType::kInt32 ||
          x.data.size() != static_cast<size_t>(x.num_elements()) * sizeof(int32_t)) {
        return std::nullopt;
      }
      Int32Value v{x.shape, std::vector<int32_t>(static_cast<size_t>(x.num_elements()))};
      std::memcpy(v.values.data(), x.data.data(), x.data.size());
      return v;
    };
    for (uint32_t i = 0; i < operators->size(); ++i) {
      const fb::Operator& op = *operators->Get(i);
      if (op.opcode_index() >= codes->size()) continue;
      const fb::OperatorCode& code = *codes->Get(op.opcode_index());
      const auto builtin = static_cast<fb::BuiltinOperator>(
          std::max<int32_t>(code.deprecated_builtin_code(), code.builtin_code()));
      const std::vector<int32_t> in = to_vector(op.inputs()), out = to_vector(op.outputs());
      if (out.size() != 1 || !usable(out[0]) ||
          std::find(graph_outputs.begin(), graph_outputs.end(), out[0]) != graph_outputs.end()) {
        continue;
      }
      ir::Tensor& result = g.tensors[out[0]];
      if (result.is_constant || result.type != ir::DataType::kInt32) continue;
      std::vector<Int32Value> values;
      for (int32_t t : in) {
        std::optional<Int32Value> v = int32_constant(t);
        if (!v) break;
        values.push_back(std::move(*v));
      }
      const bool all_constant = !in.empty() && values.size() == in.size();
      std::optional<Int32Value> v;
      switch (builtin) {
        case fb::BuiltinOperator::SHAPE:
          if (in.size() == 1 && usable(in[0])) {
            const std::vector<int32_t>& shape = g.tensors[in[0]].shape;
            v = Int32Value{{static_cast<int32_t>(shape.size())}, shape};
          }
          break;
        case fb::BuiltinOperator::STRIDED_SLICE:
          if (all_constant && values.size() == 4) {
            StridedSliceMasks m;
            if (const auto* o = op.builtin_options_as_StridedSliceOptions()) {
              m = {o->begin_mask(),    o->end_mask(),         o->ellipsis_mask(),
                   o->new_axis_mask(), o->shrink_axis_mask(), o->offset()};
            }
            v = fold_strided_slice(values[0], values[1], values[2], values[3], m);
          }
          break;
        case fb::BuiltinOperator::PACK:
          if (all_constant) {
            const auto* o = op.builtin_options_as_PackOptions();
            v = fold_pack(values, o == nullptr ? 0 : o->axis());
          }
          break;
        case fb::BuiltinOperator::CONCATENATION:
          if (all_constant) {
            const auto* o = op.builtin_options_as_ConcatenationOptions();
            if (o == nullptr || o->fused_activation_function() == 0) {
              v = fold_concatenation(values, o == nullptr ? 0 : o->axis());
            }
          }
          break;
        case fb::BuiltinOperator::GATHER:
          if (all_constant && values.size() == 2) {
            const auto* o = op.builtin_options_as_GatherOptions();
            v = fold_gather(values[0], values[1], o == nullptr ? 0 : o->axis(),
                            o == nullptr ? 0 : o->batch_dims());
          }
          break;
        default:
          break;
      }
      if (!v) continue;
      const Place where = Place::op(i, &code);
      if (v->shape != result.shape) {
        folded[i].problem = where.str() + "computes " + ir::shape_string(v->values) +
                            " of shape " + ir::shape_string(v->shape) + ", but its output tensor " +
                            std::to_string(out[0]) + " has shape " + ir::shape_string(result.shape);
        continue;
      }
      result.data.resize(v->values.size() * sizeof(int32_t));
      if (!v->values.empty()) std::memcpy(result.data.data(), v->values.data(), result.data.size());
      result.is_constant = true;
      folded[i].done = true;
      g.notes.push_back(where.str() + "evaluated while compiling, as it only computes a shape: " +
                        ir::shape_string(v->values));
    }
    return folded;
  }

 private:
  // The checks before any tensor or operator is read; the subgraph to read.
  const fb::SubGraph& open() {
    // Below 8 bytes there is no root offset and file identifier to look at; at 2 GiB the
    // flatbuffers verifier stops working.
    if (bytes_.size() < 8) {
      fail("file too small for a TFLite model (" + std::to_string(bytes_.size()) + " bytes)");
    }
    if (bytes_.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) fail("file of 2 GiB or more not supported");
    if (!fb::ModelBufferHasIdentifier(bytes_.data())) {
      fail("not a TFLite model (file identifier is not TFL3)");
    }
    flatbuffers::Verifier verifier(bytes_.data(), bytes_.size());
    if (!fb::VerifyModelBuffer(verifier)) {
      fail("not a valid TFLite flatbuffer (verification failed: truncated or corrupt)");
    }
    model_ = fb::GetModel(bytes_.data());
    if (model_->version() != kSchemaVersion) {
      fail("schema version " + std::to_string(model_->version()) + " not supported (expected " +
           std::to_string(kSchemaVersion) + ")");
    }
    const auto* subgraphs = model_->subgraphs();
    if (subgraphs == nullptr || subgraphs->size() == 0) fail("model has no subgraphs");
    const fb::SubGraph& sg = *subgraphs->Get(0);
    if (sg.tensors() == nullptr || sg.tensors()->size() == 0) fail("subgraph 0 has no tensors");

    const auto* buffers = model_->buffers();
    if (buffers != nullptr && buffers->size() > 0) {
      const fb::Buffer& b0 = *buffers->Get(0);
      if ((b0.data() != nullptr && b0.data()->size() > 0) || b0.offset() > 1) {
        fail("buffer 0 must be empty (it stands for \"no data\")");
      }
    }

    return sg;
  }

  std::span<const uint8_t> buffer_data(uint32_t index, const Place& where) const {
    const auto* buffers = model_->buffers();
    const uint32_t count = buffers == nullptr ? 0 : buffers->size();
    if (index >= count) {
      fail(where.str() + "buffer index " + std::to_string(index) + " out of range (" +
           std::to_string(count) + " buffers)");
    }
    const fb::Buffer& b = *buffers->Get(index);
    const auto* data = b.data();
    // Offsets 0 and 1 mean "not stored outside" (1 is the converter's placeholder).
    if (b.offset() > 1) {
      if (data != nullptr && data->size() > 0) {
        fail(where.str() + "buffer " + std::to_string(index) + " has both inline data and an offset");
      }
      const uint64_t offset = b.offset(), size = b.size();
      if (offset > bytes_.size() || size > bytes_.size() - offset) {
        fail(where.str() + "buffer " + std::to_string(index) + " (offset " + std::to_string(offset) +
             ", size " + std::to_string(size) + ") lies outside the file (" +
             std::to_string(bytes_.size()) + " bytes)");
      }
      return bytes_.subspan(offset, size);
    }
    if (data == nullptr) return {};
    return {data->data(), data->size()};
  }

  // The tensors an operator reads or writes, or the graph takes or gives.
  static std::vector<bool> used_tensors(const fb::SubGraph& sg) {
    std::vector<bool> used(sg.tensors()->size(), false);
    auto mark = [&](const flatbuffers::Vector<int32_t>* list) {
      if (list == nullptr) return;
      for (int32_t t : *list) {
        if (t >= 0 && static_cast<size_t>(t) < used.size()) used[t] = true;
      }
    };
    mark(sg.inputs());
    mark(sg.outputs());
    if (const auto* operators = sg.operators()) {
      for (const fb::Operator* op : *operators) {
        mark(op->inputs());
        mark(op->outputs());
      }
    }
    return used;
  }

  // A tensor nothing uses cannot change a result: the converter leaves some behind (an LSTM's
  // intermediates, shape [0], which TFLM ignores too). One Mote cannot read becomes an unused
  // placeholder, with a note.
  ir::Tensor read_tensor_if_used(const fb::Tensor& t, uint32_t index, const std::vector<bool>& used,
                                 std::vector<std::string>& notes) const {
    if (used[index]) return read_tensor(t, static_cast<int32_t>(index), notes);
    try {
      return read_tensor(t, static_cast<int32_t>(index), notes);
    } catch (const InputError& e) {
      notes.push_back(std::string(e.what()) + ": ignored, as no operator uses the tensor");
      ir::Tensor placeholder;
      placeholder.name = printable(t.name());
      placeholder.type = ir::DataType::kInt8;
      placeholder.shape = {1};
      placeholder.quantization.scale = {1.0f};
      placeholder.quantization.zero_point = {0};
      return placeholder;
    }
  }

  ir::Tensor read_tensor(const fb::Tensor& t, int32_t index, std::vector<std::string>& notes) const {
    ir::Tensor r;
    r.name = printable(t.name());
    const Place where = Place::tensor(static_cast<uint32_t>(index), &r.name);

    const auto type = data_type_from_tensor_type(t.type());
    if (!type) fail(where.str() + "type " + tensor_type_name(t.type()) + " not supported");
    r.type = *type;

    r.shape = to_vector(t.shape());
    if (r.shape.size() > ir::kMaxRank) {
      fail(where.str() + "rank " + std::to_string(r.shape.size()) + " not supported (at most " +
           std::to_string(ir::kMaxRank) + ")");
    }
    for (int32_t d : r.shape) {
      if (d < 0) fail(where.str() + "shape " + ir::shape_string(r.shape) + " is dynamic");
      if (d == 0) fail(where.str() + "shape " + ir::shape_string(r.shape) + " has no elements");
    }
    // A signature with unknown (-1) dimensions is fine as long as the shape itself is concrete.
    if (const auto* sig = t.shape_signature()) {
      const std::vector<int32_t> s = to_vector(sig);
      bool matches = s.size() == r.shape.size();
      for (size_t i = 0; matches && i < s.size(); ++i) matches = s[i] == -1 || s[i] == r.shape[i];
      if (!matches) {
        fail(where.str() + "shape_signature " + ir::shape_string(s) + " does not match shape " +
             ir::shape_string(r.shape));
      }
    }
    if (t.sparsity() != nullptr) fail(where.str() + "sparse tensors not supported");

    if (const fb::QuantizationParameters* q = t.quantization()) {
      if (q->details_type() != fb::QuantizationDetails::NONE) {
        fail(where.str() + "custom quantization not supported");
      }
      if (q->scale() != nullptr && q->scale()->size() > 0) {
        r.quantization.scale = to_vector(q->scale());
        r.quantization.zero_point = to_vector(q->zero_point());
        r.quantization.quantized_dimension = q->quantized_dimension();
        ignore_meaningless_quantized_dimension(r, where, notes);
        if (r.quantization.zero_point.size() != r.quantization.scale.size()) {
          fail(where.str() + "quantization has " + std::to_string(r.quantization.scale.size()) +
               " scales but " + std::to_string(r.quantization.zero_point.size()) +
               " zero points");
        }
      }
    }

    const std::span<const uint8_t> data = buffer_data(t.buffer(), where);
    r.is_variable = t.is_variable();
    if (r.is_variable) {
      // TFLite resets a variable tensor to its zero point whatever its buffer holds.
      if (!data.empty()) {
        notes.push_back(where.str() + "variable tensor's buffer contents ignored: TFLite resets "
                        "it to its zero point");
      }
      return r;
    }
    r.data.assign(data.begin(), data.end());
    r.is_constant = !r.data.empty();
    return r;
  }

  // Reads operator `index`; the tensors of the state it keeps inside itself in TFLite
  // (OpDef::internal_state) are appended to `g`.
  ir::Operator read_operator(const fb::Operator& op, uint32_t index, ir::Graph& g) const {
    const auto* codes = model_->operator_codes();
    const uint32_t count = codes == nullptr ? 0 : codes->size();
    if (op.opcode_index() >= count) {
      fail("operator " + std::to_string(index) + ": opcode index " +
           std::to_string(op.opcode_index()) + " out of range (" + std::to_string(count) +
           " operator codes)");
    }
    const fb::OperatorCode& code = *codes->Get(op.opcode_index());
    // Old files only have the byte-sized field; new ones set both (the byte to 127 when the
    // code does not fit).
    const int32_t builtin = std::max<int32_t>(code.deprecated_builtin_code(), code.builtin_code());
    const Place where = Place::op(index, &code);
    const auto type = builtin == kBuiltinCustom && code.custom_code() != nullptr
                          ? ops::op_type_for_custom(code.custom_code()->string_view())
                          : ops::op_type_for_builtin(builtin);
    if (!type) fail(where.str() + "not supported" + unsupported_hint(builtin, code));

    ir::Operator r;
    r.type = *type;
    r.inputs = to_vector(op.inputs());
    r.outputs = to_vector(op.outputs());
    const ops::TfliteOptions options(op, [where] { return where.str(); });
    const ops::OpDef& def = ops::op_def(r.type);
    if (def.custom_code == nullptr && op.custom_options() != nullptr &&
        op.custom_options()->size() > 0) {
      fail(where.str() + "custom options on a builtin operator");
    }
    r.options = def.read_options(options);
    if (def.internal_state != nullptr) {
      for (ir::Tensor& t : def.internal_state(r)) {
        r.inputs.push_back(static_cast<int32_t>(g.tensors.size()));
        g.tensors.push_back(std::move(t));
      }
    }
    return r;
  }

  std::span<const uint8_t> bytes_;
  const fb::Model* model_ = nullptr;
};

// FlatBuffers accessors load scalars in place, which needs the buffer at an address aligned
// for its largest scalar (8 bytes); a span into a larger buffer may not be. Read a copy then.
template <typename Read>
auto read_aligned(std::span<const uint8_t> bytes, Read read) {
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(uint64_t) != 0) {
    std::vector<uint64_t> copy((bytes.size() + 7) / 8);
    std::memcpy(copy.data(), bytes.data(), bytes.size());
    Reader reader({reinterpret_cast<const uint8_t*>(copy.data()), bytes.size()});
    return read(reader);
  }
  Reader reader(bytes);
  return read(reader);
}

}  // namespace

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) fail("cannot open: no such file");
  if (!std::filesystem::is_regular_file(status)) fail("cannot open: not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(std::string("cannot open: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size < 0) fail("cannot read the file");
  if (static_cast<uint64_t>(size) >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    fail("file of 2 GiB or more not supported");
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (!bytes.empty() && !in.read(reinterpret_cast<char*>(bytes.data()), size)) {
    fail("cannot read the file");
  }
  return bytes;
}

ir::Graph read_model(std::span<const uint8_t> bytes) {
  return read_aligned(bytes, [](Reader& r) { return r.run(); });
}

ir::Graph read_model_file(const std::filesystem::path& path) { return read_model(read_file(path)); }

SupportReport check_model(std::span<const uint8_t> bytes) {
  return read_aligned(bytes, [](Reader& r) { return r.check(); });
}

SupportReport check_model_file(const std::filesystem::path& path) {
  return check_model(read_file(path));
}

bool SupportReport::compiles() const {
  if (!model.empty()) return false;
  for (const OperatorVerdict& op : operators) {
    if (!op.problem.empty()) return false;
  }
  return true;
}

}  // namespace mote::tflite
