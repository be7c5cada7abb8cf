#include "compiler/onnx/reader.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "compiler/ir/error.h"
#include "compiler/ir/validate.h"
#include "compiler/ops/element_functions.h"
#include "compiler/ops/validate.h"

namespace mote::onnx {
namespace {

using ir::DataType;
using ir::OpType;

[[noreturn]] void fail(const std::string& message) { throw InputError(message); }

// The newest IR and operator set Debian's ONNX library (1.12) knows: its checker runs on models
// up to these; newer ones are read operator by operator, each by the meaning Mote knows.
constexpr int64_t kCheckedIrVersion = 8;
constexpr int64_t kCheckedOpset = 17;

const std::vector<int32_t> kNhwc = {0, 2, 3, 1};  // IR dimension i holds NCHW dimension kNhwc[i]
const std::vector<int32_t> kNlc = {0, 2, 1};      // [N, L, C] of ONNX's [N, C, L]

const char* const kUnsupported =
    "not supported; Mote reads QuantizeLinear, DequantizeLinear, Conv, Gemm, MatMul, Add, Sub, "
    "Mul, MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool, ReduceMean, ReduceMax, "
    "ReduceSum, Relu, Clip, Sigmoid, Tanh, HardSwish, HardSigmoid, LeakyRelu, PRelu, Softmax, "
    "LogSoftmax, Concat, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Pad, Resize, "
    "DepthToSpace, SpaceToDepth, Identity, Dropout, Constant, Slice, Split, Gather (constant "
    "indices), Max, Min, ConvTranspose, LSTM and GRU (computed in float between quantized "
    "layers), the elementwise functions Elu, Selu, Celu, ThresholdedRelu, Softplus, Softsign, "
    "Mish, Gelu, Exp, Log, Sqrt, Reciprocal, Abs, Neg, Erf, Sin, Cos, Floor, Ceil, Round and Sign "
    "between quantized values (as tables), shape arithmetic on constants (Shape, Cast, ...), and "
    "the QOperator forms QLinearConv, QLinearMatMul, QGemm, QLinearAdd, QLinearMul, "
    "QLinearAveragePool, QLinearGlobalAveragePool, QLinearSigmoid, QLinearLeakyRelu, "
    "QLinearConcat, QLinearSoftmax";

std::string printable(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

// a * b for a, b >= 0, capped at 2^62 (larger than any shape Mote takes, which is then refused)
// rather than overflowing.
int64_t capped_product(int64_t a, int64_t b) {
  int64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p) || p > (int64_t{1} << 62)) return int64_t{1} << 62;
  return p;
}

// The number of elements of `shape` (capped_product's cap), -1 when a dimension is negative.
int64_t shape_elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    n = capped_product(n, d);
  }
  return n;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

// A constant's contents (an initializer or a Constant node's value), as ONNX stores it.
struct Constant {
  int32_t elem_type = 0;  // TensorProto::DataType
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;  // little-endian elements

  int64_t count() const { return shape_elements(dims); }
  // What to subtract from an element to read it as int8: 128 for uint8, whose zero points are
  // moved by -128 too (QuantParams::zero_point); 0 otherwise.
  double uint8_shift() const { return elem_type == ::onnx::TensorProto::UINT8 ? 128 : 0; }
  size_t elem_size() const {
    switch (elem_type) {
      case ::onnx::TensorProto::INT8:
      case ::onnx::TensorProto::UINT8:
      case ::onnx::TensorProto::BOOL: return 1;
      case ::onnx::TensorProto::INT32:
      case ::onnx::TensorProto::FLOAT: return 4;
      case ::onnx::TensorProto::INT64:
      case ::onnx::TensorProto::DOUBLE: return 8;
      default: return 0;
    }
  }
  // Every element as a double (exact for all the integer types Mote meets).
  double at(int64_t i) const {
    const uint8_t* p = bytes.data() + static_cast<size_t>(i) * elem_size();
    switch (elem_type) {
      case ::onnx::TensorProto::INT8: return static_cast<int8_t>(*p);
      case ::onnx::TensorProto::UINT8:
      case ::onnx::TensorProto::BOOL: return *p;
      case ::onnx::TensorProto::INT32: {
        int32_t v;
        std::memcpy(&v, p, 4);
        return v;
      }
      case ::onnx::TensorProto::INT64: {
        int64_t v;
        std::memcpy(&v, p, 8);
        return static_cast<double>(v);
      }
      case ::onnx::TensorProto::FLOAT: {
        float v;
        std::memcpy(&v, p, 4);
        return v;
      }
      case ::onnx::TensorProto::DOUBLE: {
        double v;
        std::memcpy(&v, p, 8);
        return v;
      }
      default: return 0;
    }
  }
  std::vector<double> values() const {
    std::vector<double> out(static_cast<size_t>(count()));
    for (int64_t i = 0; i < count(); ++i) out[static_cast<size_t>(i)] = at(i);
    return out;
  }
  // An integer element exactly (int64's extremes, which Slice's "to the end" uses, do not
  // survive a double); a float one truncated, within int64.
  int64_t int_at(int64_t i) const {
    if (elem_type == ::onnx::TensorProto::INT64) {
      int64_t v;
      std::memcpy(&v, bytes.data() + static_cast<size_t>(i) * 8, 8);
      return v;
    }
    const double v = at(i);
    if (!(v > -9.2e18 && v < 9.2e18)) return v > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(v);
  }
};

// The quantization of the same real values held as uint8: each zero point moved by 128.
ir::Quantization uint8_quantization_of(ir::Quantization q) {
  for (auto& z : q.zero_point) z += 128;
  return q;
}

// A quantized value as int8, saturated as QuantizeLinear saturates; NaN (a NaN constant) is the
// lowest value, as ONNX Runtime's QuantizeLinear gives it.
int8_t saturated_int8(double v) {
  return std::isnan(v) ? int8_t{-128} : static_cast<int8_t>(std::clamp(v, -128.0, 127.0));
}

// A folded value as an integer type's bits: truncated toward zero, wrapped modulo 2^64 as
// integer arithmetic wraps (the caller keeps the low bits), 0 for NaN.
uint64_t integer_bits(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2e18) return static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (v <= -9.2e18) return static_cast<uint64_t>(std::numeric_limits<int64_t>::min());
  return static_cast<uint64_t>(static_cast<int64_t>(v));
}

// A constant of `elem_type` holding `values` (folded shape arithmetic).
Constant make_constant(int32_t elem_type, std::vector<int64_t> dims, const std::vector<double>& values) {
  Constant c;
  c.elem_type = elem_type;
  c.dims = std::move(dims);
  const size_t size = c.elem_size();
  c.bytes.resize(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t* p = c.bytes.data() + i * size;
    auto put = [&](auto v) { std::memcpy(p, &v, sizeof v); };
    switch (elem_type) {
      case ::onnx::TensorProto::INT8: put(static_cast<int8_t>(integer_bits(values[i]))); break;
      case ::onnx::TensorProto::UINT8: put(static_cast<uint8_t>(integer_bits(values[i]))); break;
      case ::onnx::TensorProto::BOOL: put(static_cast<uint8_t>(values[i] != 0)); break;
      case ::onnx::TensorProto::INT32: put(static_cast<int32_t>(integer_bits(values[i]))); break;
      case ::onnx::TensorProto::INT64: put(static_cast<int64_t>(integer_bits(values[i]))); break;
      case ::onnx::TensorProto::FLOAT: put(static_cast<float>(values[i])); break;
      default: put(values[i]); break;
    }
  }
  return c;
}
Constant int64_constant(const std::vector<int64_t>& values, std::vector<int64_t> dims) {
  Constant c;
  c.elem_type = ::onnx::TensorProto::INT64;
  c.dims = std::move(dims);
  c.bytes.resize(values.size() * 8);
  if (!values.empty()) std::memcpy(c.bytes.data(), values.data(), c.bytes.size());
  return c;
}

// ONNX's Slice along one dimension of size `dim` (negative indices count from the end; both
// clamped in the step's direction): the first index and how many are taken.
struct AxisSlice {
  int64_t begin = 0, step = 1, count = 0;
};
AxisSlice onnx_axis_slice(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  AxisSlice s;
  s.step = step;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    s.count = end > start ? (end - start + step - 1) / step : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    s.count = start > end ? (start - end - step - 1) / -step : 0;
  }
  s.begin = start;
  return s;
}

Constant read_constant(const ::onnx::TensorProto& t, const std::string& where) {
  Constant c;
  c.elem_type = t.data_type();
  c.dims.assign(t.dims().begin(), t.dims().end());
  const size_t size = c.elem_size();
  if (size == 0) {
    fail(where + "constant '" + printable(t.name()) + "' has element type " +
         ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(t.data_type())) +
         ", not supported");
  }
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
    fail(where + "constant '" + printable(t.name()) +
         "' is stored in an external file; save the model with its weights inside "
         "(onnx.save_model(model, path, save_as_external_data=False))");
  }
  for (int64_t d : c.dims) {
    if (d < 0 || d > (int64_t{1} << 31)) fail(where + "constant '" + printable(t.name()) + "' has shape " + shape_text(c.dims));
  }
  if (c.count() > (int64_t{1} << 31)) fail(where + "constant '" + printable(t.name()) + "' has shape " + shape_text(c.dims) + ": too many elements");
  const auto n = static_cast<size_t>(c.count());
  if (t.has_raw_data()) {
    if (t.raw_data().size() != n * size) {
      fail(where + "constant '" + printable(t.name()) + "' holds " +
           std::to_string(t.raw_data().size()) + " bytes, its shape " + shape_text(c.dims) +
           " needs " + std::to_string(n * size));
    }
    c.bytes.assign(t.raw_data().begin(), t.raw_data().end());
    return c;
  }
  c.bytes.resize(n * size);
  auto put = [&](auto source, auto convert) {
    if (static_cast<size_t>(source.size()) != n) {
      fail(where + "constant '" + printable(t.name()) + "' holds " + std::to_string(source.size()) +
           " values, its shape " + shape_text(c.dims) + " needs " + std::to_string(n));
    }
    for (size_t i = 0; i < n; ++i) {
      const auto v = convert(source[static_cast<int>(i)]);
      std::memcpy(c.bytes.data() + i * size, &v, size);
    }
  };
  switch (c.elem_type) {
    case ::onnx::TensorProto::FLOAT: put(t.float_data(), [](float v) { return v; }); break;
    case ::onnx::TensorProto::INT8: put(t.int32_data(), [](int32_t v) { return static_cast<int8_t>(v); }); break;
    case ::onnx::TensorProto::UINT8:
    case ::onnx::TensorProto::BOOL: put(t.int32_data(), [](int32_t v) { return static_cast<uint8_t>(v); }); break;
    case ::onnx::TensorProto::INT32: put(t.int32_data(), [](int32_t v) { return v; }); break;
    case ::onnx::TensorProto::INT64: put(t.int64_data(), [](int64_t v) { return v; }); break;
    case ::onnx::TensorProto::DOUBLE: put(t.double_data(), [](double v) { return v; }); break;
    default:
      fail(where + "constant '" + printable(t.name()) + "' stores its element type in a way Mote does not read");
  }
  return c;
}

// Per-tensor or per-axis affine quantization as QuantizeLinear / DequantizeLinear state it.
struct QuantParams {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;  // already moved to int8 for uint8 (zp - 128)
  int64_t axis = 1;
  bool from_uint8 = false;

  ir::Quantization ir(int32_t dimension = 0) const {
    return {scale, zero_point, scale.size() > 1 ? dimension : 0};
  }
};

// What an ONNX value stands for: an IR tensor (int8 activation, or a float graph input) whose
// dimension i holds the ONNX value's dimension perm[i] (empty: the same order).
struct Value {
  Value() = default;
  Value(int32_t t, std::vector<int32_t> p, std::vector<int32_t> hwc = {})
      : tensor(t), perm(std::move(p)), flattened_hwc(std::move(hwc)) {}
  int32_t tensor = -1;
  std::vector<int32_t> perm;
  // A Flatten of an NHWC tensor [N, H, W, C] taken in NHWC order: {H, W, C}, else empty. A fully
  // connected layer reads it as it is, its weight columns re-laid (the transpose folded away);
  // any other operator gets ONNX's order (activation()).
  std::vector<int32_t> flattened_hwc;
};

// A constant operand that a DequantizeLinear (or a QLinear operator) gives its meaning: the
// quantized data and its parameters.
struct QuantConstant {
  Constant data;
  QuantParams q;
};

// [outer, channels, inner] -> [outer, inner, channels]: channels last, as NCHW -> NHWC, or a
// convolution's weights [O, I, Kh, Kw] -> [O, Kh, Kw, I].
template <typename T>
std::vector<T> channels_last(const std::vector<T>& data, int64_t outer, int64_t channels,
                             int64_t inner) {
  std::vector<T> laid(data.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        laid[static_cast<size_t>((o * inner + i) * channels + c)] =
            data[static_cast<size_t>((o * channels + c) * inner + i)];
      }
  return laid;
}

bool is_identity(const std::vector<int32_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int32_t>(i)) return false;
  }
  return true;
}

std::vector<int32_t> identity(size_t rank) {
  std::vector<int32_t> p(rank);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

// The version of the default domain's operator set.
int64_t main_opset(const ::onnx::ModelProto& model) {
  int64_t opset = 0;
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  }
  return opset;
}

class Reader {
 public:
  Reader(const ::onnx::ModelProto& model, const ImportOptions& options)
      : model_(model), graph_(model.graph()), options_(options) {}

  ir::Graph run() {
    start();
    walk();
    node_ = nullptr;
    uint8_quantization();
    write_outputs();
    ops::validate(g_);
    return std::move(g_);
  }

  // Every node's verdict (check_model): a node read_model would refuse is recorded with its
  // message and undone, its outputs unavailable; the nodes that read them are not attempted.
  CheckReport check() {
    checking_ = true;
    start();
    report_.nodes.resize(static_cast<size_t>(graph_.node_size()));
    for (int i = 0; i < graph_.node_size(); ++i) {
      const auto& n = graph_.node(i);
      NodeVerdict& v = report_.nodes[static_cast<size_t>(i)];
      v.index = i;
      v.name = printable(n.name());
      v.type = printable(n.op_type());
      if (n.output_size() > 0) v.output = printable(n.output(0));
      v.domain = n.domain().empty() ? "ai.onnx" : printable(n.domain());
      v.opset = opset_of(n.domain());
    }
    walk();
    node_ = nullptr;
    try {
      uint8_quantization();
    } catch (const InputError& e) {
      report_.model.push_back(e.what());
    }
    for (const auto& out : graph_.output()) {
      // An output of a refused node: that node says why.
      if (unavailable_.count(out.name()) != 0) continue;
      try {
        write_output(out);
      } catch (const InputError& e) {
        report_.model.push_back(e.what());
      }
    }
    judge_operators();
    for (NodeVerdict& v : report_.nodes) {
      const std::string own = where_at(v.index);
      v.reason = v.problem.rfind(own, 0) == 0 ? v.problem.substr(own.size()) : v.problem;
    }
    node_ = nullptr;
    report_.notes.insert(report_.notes.begin(), g_.notes.begin(), g_.notes.end());
    return std::move(report_);
  }

 private:
  // Whole-model reading before the nodes: opsets, initializers, graph inputs.
  void start() {
    g_.round_once = !options_.tflite_rounding;  // the operator checks read it, as the lowering
    for (const auto& opset : model_.opset_import()) {
      if (opset.domain().empty() || opset.domain() == "ai.onnx") opset_ = opset.version();
      if (opset.domain() == "com.microsoft") ms_opset_ = opset.version();
    }
    for (const auto& init : graph_.initializer()) {
      constants_[init.name()] = read_constant(init, "");
    }
    for (int i = 0; i < graph_.node_size(); ++i) {
      for (const std::string& in : graph_.node(i).input()) consumers_[in].push_back(i);
    }
    for (const auto& out : graph_.output()) graph_outputs_.insert(out.name());
    bool quantized = false;
    for (const auto& node : graph_.node()) {
      const std::string& op = node.op_type();
      if (op == "QuantizeLinear" || op == "DequantizeLinear" || op.rfind("QLinear", 0) == 0 ||
          op == "QGemm" || op == "ConvInteger" || op == "MatMulInteger") {
        quantized = true;
      }
    }
    if (!quantized) {
      fail("a float model (no QuantizeLinear, DequantizeLinear or QLinear operator): Mote "
           "compiles int8 models; quantize it first, e.g. export a fake-quantized "
           "(quantization-aware) PyTorch model with torch.onnx.export, or run ONNX Runtime's "
           "onnxruntime.quantization.quantize_static(..., quant_format=QuantFormat.QDQ)");
    }
    read_inputs();
    consumed_.assign(static_cast<size_t>(graph_.node_size()), false);
  }

  void walk() {
    // Constant nodes read nothing, so they are read first: an operator's QuantizeLinear, which
    // it reads ahead of its turn, may take its scale from a Constant written after the operator
    // (PyTorch's fake-quantize exports).
    for (int i = 0; i < graph_.node_size(); ++i) {
      const auto& n = graph_.node(i);
      if (n.op_type() != "Constant" || (!n.domain().empty() && n.domain() != "ai.onnx")) continue;
      visit(i);
      consumed_[static_cast<size_t>(i)] = true;
    }
    for (int i = 0; i < graph_.node_size(); ++i) {
      if (consumed_[static_cast<size_t>(i)]) continue;
      visit(i);
    }
  }

  void visit(int i) {
    node_ = &graph_.node(i);
    node_index_ = i;
    if (checking_) return check_node(i);
    read_node();
  }

  // ---- check_model: reading past refused nodes

  // What reading one node may change, to undo it when the node is refused.
  struct Snapshot {
    size_t tensors = 0, operators = 0, notes = 0;
    std::vector<bool> consumed;
    std::map<int32_t, int32_t> narrowed;
    bool one_d = false;
    std::vector<ir::Quantization> inputs;  // a graph input takes its first DequantizeLinear's
  };
  Snapshot snapshot() const {
    Snapshot s{g_.tensors.size(), g_.operators.size(), g_.notes.size(), consumed_, narrowed_, one_d_, {}};
    for (int32_t t : g_.inputs) s.inputs.push_back(tensor(t).quantization);
    return s;
  }
  void restore(Snapshot& s) {
    const auto made = [&](int32_t t) { return t >= static_cast<int32_t>(s.tensors); };
    g_.tensors.erase(g_.tensors.begin() + static_cast<std::ptrdiff_t>(s.tensors), g_.tensors.end());
    g_.operators.erase(g_.operators.begin() + static_cast<std::ptrdiff_t>(s.operators), g_.operators.end());
    g_.notes.resize(s.notes);
    consumed_ = std::move(s.consumed);
    narrowed_ = std::move(s.narrowed);
    one_d_ = s.one_d;
    for (size_t k = 0; k < g_.inputs.size(); ++k) {
      g_.tensors[static_cast<size_t>(g_.inputs[k])].quantization = s.inputs[k];
    }
    // Names bound by the refused node stay (its outputs are unavailable, read by no one), but
    // no entry may name a tensor that is gone.
    std::erase_if(values_, [&](const auto& e) { return made(e.second.tensor); });
    std::erase_if(relaid_, [&](const auto& e) { return made(e.first.first) || made(e.second); });
    std::erase_if(unflattened_, [&](const auto& e) { return made(e.first) || made(e.second); });
    std::erase_if(widened_, [&](const auto& e) { return made(e.first) || made(e.second); });
  }

  void check_node(int i) {
    NodeVerdict& v = report_.nodes[static_cast<size_t>(i)];
    for (const std::string& in : node_->input()) {
      auto it = unavailable_.find(in);
      if (it == unavailable_.end()) continue;
      const NodeVerdict& root = report_.nodes[static_cast<size_t>(it->second)];
      v.blocked_by = it->second;
      v.problem = where() + "not checked: input '" + printable(in) + "' depends on node " +
                  std::to_string(root.index) + (root.name.empty() ? "" : " '" + root.name + "'") +
                  " (" + root.type + "), which Mote cannot compile";
      for (const std::string& out : node_->output()) unavailable_[out] = it->second;
      return;
    }
    Snapshot before = snapshot();
    try {
      read_node();
    } catch (const InputError& e) {
      restore(before);
      v.problem = e.what();
      for (const std::string& out : graph_.node(i).output()) unavailable_[out] = i;
      return;
    }
    origin_.resize(g_.operators.size(), i);
    for (size_t j = 0; j < consumed_.size(); ++j) {
      if (consumed_[j] && !before.consumed[j]) report_.nodes[j].folded_into = i;
    }
  }

  // The operator definitions' checks on what could be read, each IR operator's problem given to
  // the node it was made for.
  void judge_operators() {
    origin_.resize(g_.operators.size(), -1);  // made for the graph's outputs
    const ops::ValidationReport checked = ops::validate_each(g_);
    std::set<std::string> given;  // the problems given to nodes
    for (size_t k = 0; k < g_.operators.size(); ++k) {
      const std::string type(ir::to_string(g_.operators[k].type));
      const int node = origin_[k];
      if (node >= 0) report_.nodes[static_cast<size_t>(node)].becomes.push_back(type);
      std::string problem = checked.operators[k];
      if (problem.empty()) continue;
      if (node < 0) {
        // A tensor's problem is given to every operator touching it: once is enough.
        if (given.count(problem) == 0) report_.model.push_back(problem);
        continue;
      }
      given.insert(problem);
      // "operator 7 (CONV_2D): why" names an index the user does not see.
      const std::string said = "operator " + std::to_string(k) + " (" + type + "): ";
      if (problem.rfind(said, 0) == 0) problem = problem.substr(said.size());
      NodeVerdict& v = report_.nodes[static_cast<size_t>(node)];
      if (v.problem.empty()) v.problem = where_at(node) + "its " + type + ": " + problem;
    }
    const bool refused = !report_.compiles();
    for (const std::string& why : checked.graph) {
      // An empty graph follows from the refused nodes, which say why.
      if (refused && (why == "graph has no operators" || why == "graph has no outputs")) continue;
      report_.model.push_back(why);
    }
    report_.notes = checked.notes;
  }

  std::string where_at(int i) {
    node_ = &graph_.node(i);
    node_index_ = i;
    return where();
  }

  int64_t opset_of(const std::string& domain) const {
    const std::string d = domain == "ai.onnx" ? "" : domain;
    for (const auto& o : model_.opset_import()) {
      if ((o.domain() == "ai.onnx" ? "" : o.domain()) == d) return o.version();
    }
    return 0;
  }

  // ---- places and messages

  std::string where() const {
    if (node_ == nullptr) return "";
    const std::string domain = node_->domain().empty() ? "ai.onnx" : printable(node_->domain());
    const std::string name = !node_->name().empty() ? " '" + printable(node_->name()) + "'"
                              : node_->output_size() > 0 ? " (output '" + printable(node_->output(0)) + "')"
                                                         : "";
    return "node " + std::to_string(node_index_) + name + " (" + printable(node_->op_type()) +
           ", domain " + domain + ", opset " +
           std::to_string(node_->domain() == "com.microsoft" ? ms_opset_ : opset_) + "): ";
  }
  [[noreturn]] void bad(const std::string& why) const { fail(where() + why); }

  // ---- attributes and inputs

  const ::onnx::AttributeProto* attribute(const std::string& name) const {
    for (const auto& a : node_->attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }
  int64_t int_attr(const std::string& name, int64_t fallback) const {
    const auto* a = attribute(name);
    return a == nullptr ? fallback : a->i();
  }
  float float_attr(const std::string& name, float fallback) const {
    const auto* a = attribute(name);
    return a == nullptr ? fallback : a->f();
  }
  std::string string_attr(const std::string& name, const std::string& fallback) const {
    const auto* a = attribute(name);
    return a == nullptr ? fallback : a->s();
  }
  std::vector<int64_t> ints_attr(const std::string& name) const {
    const auto* a = attribute(name);
    if (a == nullptr) return {};
    return {a->ints().begin(), a->ints().end()};
  }

  bool has_input(int k) const {
    return k < node_->input_size() && !node_->input(k).empty();
  }
  const std::string& input_name(int k) const {
    if (!has_input(k)) bad("input " + std::to_string(k) + " is required but absent");
    return node_->input(k);
  }
  const Constant* constant(const std::string& name) const {
    auto it = constants_.find(name);
    return it == constants_.end() ? nullptr : &it->second;
  }
  const Constant& constant_input(int k) const {
    const Constant* c = constant(input_name(k));
    if (c == nullptr) bad("input " + std::to_string(k) + " '" + printable(input_name(k)) + "' must be a constant");
    return *c;
  }
  // Integer parameters (axes, shapes, pads) given as a constant input.
  std::vector<int64_t> ints_input(int k) const {
    const Constant& c = constant_input(k);
    std::vector<int64_t> out;
    for (int64_t i = 0; i < c.count(); ++i) out.push_back(c.int_at(i));
    return out;
  }

  // Scale and zero point given as inputs `scale_k` and `zp_k` (QuantizeLinear's 1 and 2).
  // `signed_data`: without a zero point input, the quantized data is int8 (a DequantizeLinear of
  // int8 data); else ONNX's default, uint8.
  QuantParams quant_params(int scale_k, int zp_k, int64_t axis = 1, bool signed_data = false) const {
    QuantParams q;
    q.axis = axis;
    for (double s : constant_input(scale_k).values()) {
      if (!(s > 0) || !(s <= std::numeric_limits<float>::max()) || !(static_cast<float>(s) > 0)) {
        bad("scale " + std::to_string(s) + " must be positive and finite in float32");
      }
      q.scale.push_back(static_cast<float>(s));
    }
    if (has_input(zp_k)) {
      const Constant& zp = constant_input(zp_k);
      if (zp.elem_type == ::onnx::TensorProto::UINT8) {
        q.from_uint8 = true;
      } else if (zp.elem_type != ::onnx::TensorProto::INT8 && zp.elem_type != ::onnx::TensorProto::INT32) {
        bad("zero point of type " + ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(zp.elem_type)) +
            " not supported (int8 or uint8)");
      }
      for (double z : zp.values()) q.zero_point.push_back(static_cast<int64_t>(z) - (q.from_uint8 ? 128 : 0));
      if (q.zero_point.size() != q.scale.size()) bad("scale and zero point differ in length");
    } else if (signed_data) {
      q.zero_point.assign(q.scale.size(), 0);
    } else {
      // An absent zero point is uint8 zero.
      q.from_uint8 = true;
      q.zero_point.assign(q.scale.size(), -128);
    }
    return q;
  }

  // ---- IR construction

  int32_t add_tensor(ir::Tensor t) {
    g_.tensors.push_back(std::move(t));
    return static_cast<int32_t>(g_.tensors.size() - 1);
  }
  int32_t add_activation(const std::string& name, std::vector<int32_t> shape, ir::Quantization q,
                         DataType type = DataType::kInt8) {
    ir::Tensor t;
    t.name = name;
    t.type = type;
    t.shape = std::move(shape);
    t.quantization = std::move(q);
    return add_tensor(std::move(t));
  }
  int32_t add_int32_constant(const std::string& name, const std::vector<int32_t>& values,
                             std::vector<int32_t> shape = {}) {
    ir::Tensor t;
    t.name = name;
    t.type = DataType::kInt32;
    t.shape = shape.empty() ? std::vector<int32_t>{static_cast<int32_t>(values.size())} : shape;
    t.data.resize(values.size() * 4);
    if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
    t.is_constant = true;
    return add_tensor(std::move(t));
  }
  void add_op(OpType type, std::vector<int32_t> inputs, int32_t output, ir::Options options = {}) {
    for (int32_t t : inputs) materialize(t);
    g_.operators.push_back({type, std::move(inputs), {output}, std::move(options)});
  }
  // Emits the RESHAPE that makes a 1-D window's [N, L, C] value (see windowed), once something
  // reads that form rather than the window's own [N, 1, L, C] output.
  void materialize(int32_t t) {
    auto it = narrowed_.find(t);
    if (it == narrowed_.end()) return;
    const int32_t source = it->second;
    narrowed_.erase(it);
    const int32_t shape = add_int32_constant(tensor(t).name + "/shape", tensor(t).shape);
    g_.operators.push_back({OpType::kReshape, {source, shape}, {t}, ir::ReshapeOptions{}});
  }
  const ir::Tensor& tensor(int32_t t) const { return g_.tensors[static_cast<size_t>(t)]; }

  // The ONNX shape of a value.
  std::vector<int64_t> onnx_shape(const Value& v) const {
    const auto& s = tensor(v.tensor).shape;
    std::vector<int64_t> out(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      out[v.perm.empty() ? i : static_cast<size_t>(v.perm[i])] = s[i];
    }
    return out;
  }
  static std::vector<int32_t> ir_shape(const std::vector<int64_t>& onnx, const std::vector<int32_t>& perm) {
    std::vector<int32_t> out(onnx.size());
    for (size_t i = 0; i < onnx.size(); ++i) {
      out[i] = static_cast<int32_t>(onnx[perm.empty() ? i : static_cast<size_t>(perm[i])]);
    }
    return out;
  }

  // The same value laid out as `target` (kNhwc, or empty for ONNX's own order): free when only
  // dimensions of size 1 move (a reshape), else a transpose.
  Value relayout(const Value& v, const std::vector<int32_t>& target, const std::string& name) {
    const size_t rank = tensor(v.tensor).shape.size();
    const std::vector<int32_t> from = v.perm.empty() ? identity(rank) : v.perm;
    const std::vector<int32_t> to = target.empty() ? identity(rank) : target;
    if (from == to) return v;
    // Each layout of a tensor is made once, however many operators read it.
    const auto key = std::make_pair(v.tensor, to);
    if (auto it = relaid_.find(key); it != relaid_.end()) return {it->second, target};
    std::vector<int32_t> position(rank);
    for (size_t i = 0; i < rank; ++i) position[static_cast<size_t>(from[i])] = static_cast<int32_t>(i);
    std::vector<int32_t> transpose(rank);
    for (size_t j = 0; j < rank; ++j) transpose[j] = position[static_cast<size_t>(to[j])];
    const ir::Tensor& in = tensor(v.tensor);
    std::vector<int32_t> shape(rank);
    for (size_t j = 0; j < rank; ++j) shape[j] = in.shape[static_cast<size_t>(transpose[j])];
    // Only size-1 dimensions move when the others keep their order.
    std::vector<int32_t> kept_from, kept_to;
    for (size_t i = 0; i < rank; ++i) {
      if (in.shape[i] != 1) kept_from.push_back(static_cast<int32_t>(i));
      if (shape[i] != 1) kept_to.push_back(transpose[i]);
    }
    const int32_t out = add_activation(name, shape, in.quantization, in.type);
    const std::string suffix = target.empty() ? "/to_nchw" : "/to_nhwc";
    g_.tensors[static_cast<size_t>(out)].name = tensor(v.tensor).name + suffix;
    if (kept_from == kept_to) {
      const int32_t s = add_int32_constant(tensor(out).name + "/shape", shape);
      add_op(OpType::kReshape, {v.tensor, s}, out, ir::ReshapeOptions{});
    } else {
      const int32_t p = add_int32_constant(tensor(out).name + "/perm", transpose);
      add_op(OpType::kTranspose, {v.tensor, p}, out);
    }
    relaid_[key] = out;
    return {out, target};
  }
  // Whether a value's bytes lie in ONNX's order: its dimensions larger than 1 keep their order.
  bool onnx_ordered(const Value& v) const {
    const auto& shape = tensor(v.tensor).shape;
    std::vector<int32_t> kept;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] != 1) kept.push_back(v.perm.empty() ? static_cast<int32_t>(i) : v.perm[i]);
    }
    return std::is_sorted(kept.begin(), kept.end());
  }
  Value as_nhwc(const Value& v) { return relayout(v, kNhwc, ""); }
  Value as_plain(const Value& v) { return relayout(v, {}, ""); }

  // ---- reading values

  // The int8 activation behind input k: the output of a DequantizeLinear (an alias of its
  // quantized input), or a value another operator left quantized.
  Value activation(int k, bool flattened_ok = false) {
    const std::string& name = input_name(k);
    auto it = values_.find(name);
    if (it == values_.end()) {
      if (constant(name) != nullptr) bad("input " + std::to_string(k) + " '" + printable(name) + "' is a constant where Mote expects an activation");
      bad("input " + std::to_string(k) + " '" + printable(name) + "' is produced by no node Mote read");
    }
    if (tensor(it->second.tensor).type == DataType::kInt64) {
      bad("input " + std::to_string(k) + " '" + printable(name) + "' holds the int64 indices of "
          "an ArgMax or ArgMin, which Mote gives only as a graph output: end the model there");
    }
    if (tensor(it->second.tensor).type != DataType::kInt8) {
      bad("input " + std::to_string(k) + " '" + printable(name) +
          "' is float, not dequantized from int8: the model must be quantized around this "
          "operator (QuantizeLinear and DequantizeLinear before it)");
    }
    if (!it->second.flattened_hwc.empty() && !flattened_ok) return unflatten(it->second);
    return it->second;
  }

  // A flattened NHWC value in ONNX's order: [N, H*W*C] -> [N, H, W, C] -> [N, C, H, W] ->
  // [N, C*H*W], the reshapes free; made once per tensor.
  Value unflatten(const Value& v) {
    if (auto it = unflattened_.find(v.tensor); it != unflattened_.end()) return {it->second, {}, {}};
    const ir::Tensor flat = tensor(v.tensor);
    const std::vector<int32_t>& hwc = v.flattened_hwc;
    const int32_t four = add_activation(flat.name + "/nhwc", {flat.shape[0], hwc[0], hwc[1], hwc[2]}, flat.quantization);
    add_op(OpType::kReshape, {v.tensor, add_int32_constant(flat.name + "/nhwc/shape", tensor(four).shape)}, four, ir::ReshapeOptions{});
    const Value nchw = as_plain({four, kNhwc, {}});
    const int32_t out = add_activation(flat.name + "/nchw", flat.shape, flat.quantization);
    add_op(OpType::kReshape, {nchw.tensor, add_int32_constant(flat.name + "/nchw/shape", flat.shape)}, out, ir::ReshapeOptions{});
    unflattened_[v.tensor] = out;
    return {out, {}, {}};
  }
  bool is_activation(int k) const { return has_input(k) && values_.count(node_->input(k)) != 0; }

  // The constant behind input k, through its DequantizeLinear.
  QuantConstant quant_constant(int k) const {
    const std::string& name = input_name(k);
    auto it = dq_constants_.find(name);
    if (it != dq_constants_.end()) return it->second;
    if (const Constant* c = constant(name)) {
      QuantConstant qc;
      qc.data = *c;
      return qc;  // a float constant, scale empty
    }
    bad("input " + std::to_string(k) + " '" + printable(name) + "' must be a (dequantized) constant");
  }

  // ---- what follows an operator: the QuantizeLinear that fixes its output's quantization,
  // perhaps through a Relu or Clip that then fuses into it.

  struct Sink {
    std::optional<QuantParams> q;
    ir::Activation activation = ir::Activation::kNone;
    std::string name;  // the ONNX value the operator's int8 output stands for
  };

  // Whether `value` is a graph output, perhaps through Identity nodes.
  bool is_graph_output(std::string value) const {
    for (;;) {
      if (graph_outputs_.count(value) != 0) return true;
      const int next = only_consumer(value);
      if (next < 0 || graph_.node(next).op_type() != "Identity") return false;
      value = graph_.node(next).output(0);
    }
  }

  int only_consumer(const std::string& value) const {
    if (graph_outputs_.count(value) != 0) return -1;
    auto it = consumers_.find(value);
    if (it == consumers_.end() || it->second.size() != 1) return -1;
    // A node without outputs is left to read_node, which refuses it.
    if (graph_.node(it->second[0]).output_size() < 1) return -1;
    return it->second[0];
  }
  // Clip's bounds (attributes before opset 11, inputs from it); nullopt when not constant.
  std::optional<std::pair<float, float>> clip_bounds(const ::onnx::NodeProto& n) const {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    for (const auto& a : n.attribute()) {
      if (a.name() == "min") lo = a.f();
      if (a.name() == "max") hi = a.f();
    }
    for (int k = 1; k < 3 && k < n.input_size(); ++k) {
      if (n.input(k).empty()) continue;
      const Constant* c = constant(n.input(k));
      if (c == nullptr || c->count() != 1) return std::nullopt;
      (k == 1 ? lo : hi) = static_cast<float>(c->at(0));
    }
    return std::make_pair(lo, hi);
  }
  std::optional<ir::Activation> fusable_activation(const ::onnx::NodeProto& n) const {
    if (n.op_type() == "Relu") return ir::Activation::kRelu;
    if (n.op_type() != "Clip") return std::nullopt;
    const auto bounds = clip_bounds(n);
    if (!bounds) return std::nullopt;
    if (bounds->first == 0 && bounds->second == 6) return ir::Activation::kRelu6;
    if (bounds->first == 0 && std::isinf(bounds->second)) return ir::Activation::kRelu;
    if (bounds->first == -1 && bounds->second == 1) return ir::Activation::kReluN1To1;
    return std::nullopt;
  }
  QuantParams quantize_node_params(int index) {
    const ::onnx::NodeProto* saved = node_;
    const int saved_index = node_index_;
    node_ = &graph_.node(index);
    node_index_ = index;
    QuantParams q = quant_params(1, 2, int_attr("axis", 1));
    if (q.scale.size() != 1) bad("a per-axis quantized activation is not supported");
    node_ = saved;
    node_index_ = saved_index;
    return q;
  }
  Sink sink(const std::string& output, bool fuse = true) {
    if (auto it = stated_sinks_.find(output); it != stated_sinks_.end()) return it->second;
    Sink s;
    s.name = output;
    int next = only_consumer(output);
    if (next < 0) return s;
    if (fuse) {
      if (const auto act = fusable_activation(graph_.node(next))) {
        const int after = only_consumer(graph_.node(next).output(0));
        if (after >= 0 && graph_.node(after).op_type() == "QuantizeLinear") {
          s.activation = *act;
          consumed_[static_cast<size_t>(next)] = true;
          next = after;
        }
      }
    }
    if (graph_.node(next).op_type() != "QuantizeLinear") return s;
    s.q = quantize_node_params(next);
    s.name = graph_.node(next).output(0);
    consumed_[static_cast<size_t>(next)] = true;
    return s;
  }
  // The output quantization an operator that computes new values needs.
  QuantParams required(const Sink& s, const std::string& output) const {
    if (!s.q) {
      bad("output '" + printable(output) + "' is not quantized (no QuantizeLinear follows it); "
          "Mote runs only int8 operators: quantize the model around this operator");
    }
    return *s.q;
  }

  // Binds `name` to an int8 result: when `wanted` differs from the tensor's quantization, a
  // QUANTIZE requantizes it.
  void bind(const std::string& name, Value v, const std::optional<QuantParams>& wanted) {
    if (wanted && tensor(v.tensor).quantization != wanted->ir()) {
      const ir::Tensor& in = tensor(v.tensor);
      const int32_t out = add_activation(name, in.shape, wanted->ir());
      add_op(OpType::kQuantize, {v.tensor}, out);
      v.tensor = out;
    }
    values_[name] = v;
  }

  // An operator's int8 output tensor, named after the value it stands for.
  int32_t output_tensor(const Sink& s, const std::vector<int32_t>& shape, const QuantParams& q) {
    return add_activation(s.name, shape, q.ir());
  }

  // ---- the graph's inputs and outputs

  void read_inputs() {
    for (const auto& in : graph_.input()) {
      if (constants_.count(in.name()) != 0) continue;  // an initializer listed as an input
      const std::string name = printable(in.name());
      if (!in.type().has_tensor_type()) fail("graph input '" + name + "' is not a tensor");
      const auto& tt = in.type().tensor_type();
      std::vector<int64_t> shape;
      bool dynamic = false;
      for (const auto& d : tt.shape().dim()) {
        shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
        if (!d.has_dim_value() || d.dim_value() <= 0) dynamic = true;
      }
      for (const auto& [given_name, given] : options_.input_shapes) {
        if (given_name == in.name() || (given_name.empty() && graph_.input_size() - graph_.initializer_size() <= 1)) {
          if (given.size() != shape.size()) {
            fail("--input-shape for '" + name + "' has " + std::to_string(given.size()) +
                 " dimensions, the model's input has " + std::to_string(shape.size()));
          }
          shape.assign(given.begin(), given.end());
          dynamic = false;
        }
      }
      if (dynamic) {
        std::string example;
        for (int64_t d : shape) example += (example.empty() ? "" : ",") + std::to_string(d > 0 ? d : 1);
        fail("graph input '" + name + "' has a dynamic shape " + shape_text(shape) +
             " (-1: symbolic); Mote plans fixed shapes: give them, e.g. --input-shape " + name +
             "=" + example + " (one size per dimension)");
      }
      if (shape.size() > ir::kMaxRank) fail("graph input '" + name + "' has rank " + std::to_string(shape.size()));
      DataType type;
      switch (tt.elem_type()) {
        case ::onnx::TensorProto::FLOAT: type = DataType::kFloat32; break;
        case ::onnx::TensorProto::INT8:
          type = DataType::kInt8;
          signed_inputs_.insert(in.name());
          break;
        case ::onnx::TensorProto::UINT8:
          type = DataType::kInt8;  // the operators' copy; the program's input stays uint8
          break;
        default:
          fail("graph input '" + name + "' has element type " +
               ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(tt.elem_type())) +
               " (Mote takes float, int8 or uint8 inputs)");
      }
      const bool nhwc = options_.input_nhwc && shape.size() == 4;
      const std::vector<int32_t> perm = nhwc ? kNhwc : std::vector<int32_t>{};
      const int32_t t = add_activation(in.name(), ir_shape(shape, perm), {}, type);
      g_.input_layouts.push_back(shape.size() == 4 ? (nhwc ? "NHWC" : "NCHW") : "");
      int32_t value = t;  // what the operators read
      if (tt.elem_type() == ::onnx::TensorProto::UINT8) {
        // The program takes the uint8 bytes as the model declares them; a QUANTIZE (in place)
        // moves them to the int8 the operators compute on, the zero point by -128. Both take
        // their quantization from the input's first DequantizeLinear (uint8_quantization).
        g_.tensors[static_cast<size_t>(t)].type = DataType::kUInt8;
        value = add_activation(in.name() + "/int8", tensor(t).shape, {}, DataType::kInt8);
        g_.operators.push_back({OpType::kQuantize, {t}, {value}, {}});
        uint8_inputs_.push_back({t, value});
      }
      if (shape.size() == 4) {
        g_.notes.push_back("graph input '" + name + "' " + ir::shape_string(tensor(t).shape) +
                           (nhwc ? " is NHWC (--input-layout nhwc)" : " is NCHW, as the model declares it (--input-layout nhwc takes NHWC)"));
      }
      g_.inputs.push_back(t);
      values_[in.name()] = {value, perm};
    }
  }

  // A uint8 graph input's quantization: its int8 copy's (from the first DequantizeLinear that
  // read it) with the zero point moved by 128.
  void uint8_quantization() {
    for (const auto& [bytes, int8] : uint8_inputs_) {
      if (tensor(int8).quantization.empty()) {
        fail("graph input '" + printable(tensor(bytes).name) + "' is uint8 but no "
             "DequantizeLinear reads it: Mote cannot tell its scale and zero point");
      }
      g_.tensors[static_cast<size_t>(bytes)].quantization = uint8_quantization_of(tensor(int8).quantization);
    }
  }

  void write_outputs() {
    for (const auto& out : graph_.output()) write_output(out);
  }
  void write_output(const ::onnx::ValueInfoProto& out) {
    const std::string name = printable(out.name());
    auto it = values_.find(out.name());
    if (it == values_.end() && dq_constants_.count(out.name()) != 0 &&
        out.type().tensor_type().elem_type() == ::onnx::TensorProto::FLOAT) {
      return write_constant_output(name, dq_constants_.at(out.name()));
    }
    if (it == values_.end() && (constants_.count(out.name()) != 0 || dq_constants_.count(out.name()) != 0)) {
      fail("graph output '" + name + "' is a constant (it depends on no input) that is not the "
           "float DequantizeLinear of int8 or uint8 values; a program computes its outputs: "
           "remove it from the model's outputs and keep the values beside the program");
    }
    if (it == values_.end()) fail("graph output '" + name + "' is produced by no node Mote read");
    Value v = it->second.flattened_hwc.empty() ? it->second : unflatten(it->second);
    const size_t rank = tensor(v.tensor).shape.size();
    v = relayout(v, options_.output_nhwc && rank == 4 ? kNhwc : std::vector<int32_t>{}, name);
    g_.output_layouts.push_back(rank == 4 ? (options_.output_nhwc ? "NHWC" : "NCHW") : "");
    if (rank == 4) {
      g_.notes.push_back("graph output '" + name + "' " + ir::shape_string(tensor(v.tensor).shape) +
                         (options_.output_nhwc ? " is NHWC (--output-layout nhwc)" : " is NCHW, as the model declares it (--output-layout nhwc gives NHWC)"));
    }
    const int32_t elem = out.type().tensor_type().elem_type();
    if (elem == ::onnx::TensorProto::FLOAT &&
        (tensor(v.tensor).type == DataType::kInt8 || tensor(v.tensor).type == DataType::kInt16)) {
      const int32_t f = add_activation(out.name(), tensor(v.tensor).shape, {}, DataType::kFloat32);
      add_op(OpType::kDequantize, {v.tensor}, f);
      v.tensor = f;
    } else if (elem == ::onnx::TensorProto::UINT8 && tensor(v.tensor).type == DataType::kInt8) {
      // uint8 as the model declares it: a last QUANTIZE moves the zero point by 128.
      materialize(v.tensor);
      g_.tensors[static_cast<size_t>(v.tensor)].name = out.name() + "/int8";
      const int32_t bytes = add_activation(out.name(), tensor(v.tensor).shape,
                                           uint8_quantization_of(tensor(v.tensor).quantization),
                                           DataType::kUInt8);
      add_op(OpType::kQuantize, {v.tensor}, bytes);
      v.tensor = bytes;
    }
    materialize(v.tensor);
    g_.outputs.push_back(v.tensor);
  }

  // A float graph output that depends on no input, the DequantizeLinear of a quantized constant
  // (an SSD's anchors): the int8 values stay constant, a DEQUANTIZE writes them into the output.
  void write_constant_output(const std::string& name, const QuantConstant& qc) {
    const Constant& c = qc.data;
    if (c.elem_type != ::onnx::TensorProto::INT8 && c.elem_type != ::onnx::TensorProto::UINT8) {
      fail("graph output '" + name + "' is a constant dequantized from " +
           ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(c.elem_type)) +
           " (Mote dequantizes int8 or uint8 constants)");
    }
    if (qc.q.scale.size() != 1) {
      fail("graph output '" + name + "' is a constant dequantized per axis; Mote dequantizes "
           "a constant output with one scale and zero point");
    }
    if (c.dims.size() > ir::kMaxRank) fail("graph output '" + name + "' has rank " + std::to_string(c.dims.size()));
    std::vector<int32_t> dims;
    for (int64_t d : c.dims) dims.push_back(static_cast<int32_t>(d));
    std::vector<uint8_t> bytes = c.bytes;
    if (c.elem_type == ::onnx::TensorProto::UINT8) {
      for (uint8_t& b : bytes) b ^= 0x80;  // int8 q = uint8 q - 128, as the zero point
    }
    const bool nhwc = options_.output_nhwc && dims.size() == 4;
    std::vector<int32_t> shape = dims;
    if (nhwc) {  // NCHW -> NHWC, once, at compile time
      shape = {dims[0], dims[2], dims[3], dims[1]};
      bytes = channels_last(bytes, dims[0], dims[1], int64_t{dims[2]} * dims[3]);
    }
    ir::Tensor t;
    t.name = name + "/quantized";
    t.type = DataType::kInt8;
    t.shape = shape;
    t.data = std::move(bytes);
    t.is_constant = true;
    t.quantization = qc.q.ir();
    const int32_t values = add_tensor(std::move(t));
    const int32_t f = add_activation(name, shape, {}, DataType::kFloat32);
    add_op(OpType::kDequantize, {values}, f);
    g_.output_layouts.push_back(dims.size() == 4 ? (nhwc ? "NHWC" : "NCHW") : "");
    g_.notes.push_back("graph output '" + name + "' depends on no input (an SSD's anchors, say): "
                       "its " + std::to_string(tensor(values).num_elements()) + " int8 values "
                       "are constants, dequantized into the output on each run");
    g_.outputs.push_back(f);
  }

  // ---- nodes

  void read_node() {
    if (node_->output_size() < 1 || node_->output(0).empty()) bad("has no output");
    const std::string& op = node_->op_type();
    const std::string& domain = node_->domain();
    if (!domain.empty() && domain != "ai.onnx" && domain != "com.microsoft") {
      bad("operator domain '" + printable(domain) + "' not supported");
    }
    if (op.rfind("QLinear", 0) == 0 || op == "QGemm") return qlinear();
    if (op == "ConvInteger" || op == "MatMulInteger" || op == "DynamicQuantizeLinear") {
      bad("dynamic quantization (int32 results rescaled in float at run time) is not supported: "
          "quantize the model statically, with activation scales fixed ahead of time "
          "(onnxruntime.quantization.quantize_static)");
    }
    if (domain == "com.microsoft") bad(kUnsupported);
    if (fold_constant_node()) return;
    if (op == "QuantizeLinear") return quantize_linear();
    if (op == "DequantizeLinear") return dequantize_linear();
    if (op == "Conv") return conv();
    if (op == "Gemm") return gemm();
    if (op == "MatMul") return matmul();
    if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow") &&
        constant_arithmetic()) {
      return;
    }
    if (op == "Div" || op == "Pow") {
      bad("supported only with an int8 value and a constant of one value (all its elements "
          "equal), not with two values or a constant of several");
    }
    if (op == "Add") return binary(OpType::kAdd);
    if (op == "Sub") return binary(OpType::kSub);
    if (op == "Mul") return binary(OpType::kMul);
    if (op == "MaxPool") return pool(OpType::kMaxPool2D);
    if (op == "AveragePool") return pool(OpType::kAveragePool2D);
    if (op == "GlobalAveragePool") return global_average_pool();
    if (op == "GlobalMaxPool") return global_pool(OpType::kReduceMax);
    if (op == "DepthToSpace" || op == "SpaceToDepth") return block_rearrange(op == "DepthToSpace");
    if (op == "ReduceMean") return reduce(OpType::kMean);
    if (op == "Relu" || op == "Clip") return activation_node();
    if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") return reshape();
    if (op == "Transpose") return transpose();
    if (op == "Softmax") return softmax(false, opset_);
    if (op == "LogSoftmax") return softmax(true, opset_);
    if (op == "Concat") return concat();
    if (op == "Identity" || op == "Dropout") return identity_node();
    if (op == "Sigmoid") return sigmoid();
    if (op == "Tanh") return table_unary(OpType::kTanh, ir::Quantization{{1.0f / 128}, {0}, 0});
    if (op == "HardSwish") return unary(OpType::kHardSwish);
    if (op == "HardSigmoid") return hard_sigmoid();
    if (op == "LeakyRelu") return leaky_relu();
    if (op == "PRelu") return prelu();
    if (op == "Pad") return pad();
    if (op == "Resize" || op == "Upsample") return resize();
    if (op == "Constant") return constant_node();
    if (op == "Slice") return slice();
    if (op == "Split") return split();
    if (op == "Gather") return gather();
    if (op == "Max") return max_min(OpType::kMaximum);
    if (op == "Min") return max_min(OpType::kMinimum);
    if (op == "ReduceMax") return reduce(OpType::kReduceMax);
    if (op == "ReduceSum") return reduce(OpType::kSum);
    if (op == "ArgMax" || op == "ArgMin") return arg_min_max(op == "ArgMin");
    if (op == "NonMaxSuppression" || op == "TopK") {
      bad("detection post-processing is not supported: export the model up to its raw boxes and "
          "scores (before " + op + ") and run the post-processing on the application's CPU");
    }
    if (op == "ConvTranspose") return conv_transpose();
    if (op == "LSTM" || op == "GRU") return recurrent();
    if (const ops::ElementFunctionInfo* f = ops::element_function(op)) return table_lookup(*f);
    bad(kUnsupported);
  }

  // ---- the QOperator form: each QLinear node is read as the QDQ form of its float operator,
  // its operands stated by scale and zero point inputs instead of DequantizeLinear nodes.

  // Input k, quantized by inputs scale_k and zp_k, under a name of its own for the QDQ reader.
  std::string stated_operand(int k, int scale_k, int zp_k, int64_t axis = 0) {
    const std::string name = node_->output(0) + "/input" + std::to_string(k);
    const Constant* c = constant(input_name(k));
    QuantParams q = quant_params(scale_k, zp_k, axis,
                                 c != nullptr && c->elem_type != ::onnx::TensorProto::UINT8);
    if (c != nullptr) {
      dq_constants_[name] = {*c, q};
      return name;
    }
    if (q.scale.size() != 1) bad("a per-axis quantized activation is not supported");
    Value v = activation(k, true);
    ir::Tensor& t = g_.tensors[static_cast<size_t>(v.tensor)];
    if (t.quantization.empty()) t.quantization = q.ir();  // an int8 or uint8 graph input
    bind(name, v, q);
    return name;
  }
  // The int32 bias (input k) of a QLinearConv or QGemm: scale input x weight, zero point 0.
  std::string stated_bias(int k, const std::string& input, const std::string& weights) {
    const std::string name = node_->output(0) + "/input" + std::to_string(k);
    const float input_scale = tensor(values_.at(input).tensor).quantization.scale[0];
    QuantConstant b{constant_input(k), {}};
    for (float ws : dq_constants_.at(weights).q.scale) b.q.scale.push_back(input_scale * ws);
    b.q.zero_point.assign(b.q.scale.size(), 0);
    dq_constants_[name] = b;
    return name;
  }

  void qlinear() {
    const ::onnx::NodeProto& original = *node_;
    const std::string& op = original.op_type();
    ::onnx::NodeProto node = original;  // keeps name, domain, type and attributes for messages
    node.clear_input();
    node.clear_output();
    const std::string output = original.output(0) + "/float";
    node.add_output(output);
    auto out_quant = [&](int scale_k, int zp_k) {
      if (!has_input(scale_k)) bad("a float output (no output scale) is not supported");
      Sink s;
      s.q = quant_params(scale_k, zp_k);
      s.name = original.output(0);
      stated_sinks_[output] = s;
    };
    void (Reader::*read)() = nullptr;
    if (op == "QLinearConv") {
      const std::string x = stated_operand(0, 1, 2), w = stated_operand(3, 4, 5, 0);
      for (const std::string& in : {x, w}) node.add_input(in);
      if (has_input(8)) node.add_input(stated_bias(8, x, w));
      out_quant(6, 7);
      read = &Reader::conv;
    } else if (op == "QLinearMatMul") {
      node.add_input(stated_operand(0, 1, 2));
      node.add_input(stated_operand(3, 4, 5, 1));
      out_quant(6, 7);
      read = &Reader::matmul;
    } else if (op == "QGemm") {
      const std::string a = stated_operand(0, 1, 2);
      const std::string b = stated_operand(3, 4, 5, int_attr("transB", 0) != 0 ? 0 : 1);
      node.add_input(a);
      node.add_input(b);
      if (has_input(6)) node.add_input(stated_bias(6, a, b));
      out_quant(7, 8);
      read = &Reader::gemm;
    } else if (op == "QLinearAdd" || op == "QLinearMul") {
      node.add_input(stated_operand(0, 1, 2));
      node.add_input(stated_operand(3, 4, 5));
      out_quant(6, 7);
      read = op == "QLinearAdd" ? &Reader::add : &Reader::mul;
    } else if (op == "QLinearAveragePool" || op == "QLinearGlobalAveragePool") {
      if (int_attr("channels_last", 0) != 0) bad("channels_last 1 not supported");
      node.add_input(stated_operand(0, 1, 2));
      out_quant(3, 4);
      read = op == "QLinearAveragePool" ? &Reader::average_pool : &Reader::global_average_pool;
    } else if (op == "QLinearSoftmax") {
      node.add_input(stated_operand(0, 1, 2));
      out_quant(3, 4);
      read = &Reader::qlinear_softmax;
    } else if (op == "QLinearSigmoid") {
      node.add_input(stated_operand(0, 1, 2));
      out_quant(3, 4);
      read = &Reader::sigmoid;
    } else if (op == "QLinearLeakyRelu") {
      node.add_input(stated_operand(0, 1, 2));
      out_quant(3, 4);
      read = &Reader::leaky_relu;
    } else if (op == "QLinearConcat") {
      for (int k = 2; k + 2 < original.input_size(); k += 3) node.add_input(stated_operand(k, k + 1, k + 2));
      out_quant(0, 1);
      read = &Reader::concat;
    } else {
      bad(kUnsupported);
    }
    node_ = &node;
    (this->*read)();
    node_ = &original;
  }
  void add() { binary(OpType::kAdd); }
  void mul() { binary(OpType::kMul); }
  void average_pool() { pool(OpType::kAveragePool2D); }

  // An elementwise operator of one input: the output quantization is the QuantizeLinear's, or a
  // fixed one the int8 kernel writes (requantized to the QuantizeLinear's where they differ).
  // `input`: which input is the value (the other a constant the options hold).
  void unary(OpType type, std::optional<ir::Quantization> fixed = std::nullopt, ir::Options options = {},
             int input = 0) {
    const Value x = activation(input);
    const Sink s = sink(node_->output(0), false);
    const ir::Quantization q = fixed ? *fixed : required(s, node_->output(0)).ir();
    const int32_t out = add_activation(fixed ? node_->output(0) : s.name, tensor(x.tensor).shape, q);
    add_op(type, {x.tensor}, out, std::move(options));
    bind(s.name, {out, x.perm, {}}, s.q);
  }
  // x * HardSigmoid(x) with alpha 1/6, beta 1/2 is HardSwish as exported before opset 14
  // (PyTorch's nn.Hardswish at opset 13): one HARD_SWISH, the product quantized once. Any other
  // HardSigmoid (MobileNetV3's squeeze-excite gate) is a table.
  void hard_sigmoid() {
    const int mul = only_consumer(node_->output(0));
    const bool swish_parameters = std::abs(float_attr("alpha", 0.2f) - 1.0f / 6) < 1e-6f &&
                                  float_attr("beta", 0.5f) == 0.5f;
    if (mul < 0 || !swish_parameters || graph_.node(mul).op_type() != "Mul" ||
        graph_.node(mul).input_size() != 2) {
      return table_lookup(*ops::element_function("HardSigmoid"));
    }
    const ::onnx::NodeProto& product = graph_.node(mul);
    const std::string& other = product.input(0) == node_->output(0) ? product.input(1) : product.input(0);
    if (other != input_name(0)) return table_lookup(*ops::element_function("HardSigmoid"));
    consumed_[static_cast<size_t>(mul)] = true;
    ::onnx::NodeProto swish = *node_;
    swish.set_output(0, product.output(0));
    const ::onnx::NodeProto* original = node_;
    node_ = &swish;
    unary(OpType::kHardSwish);
    node_ = original;
  }

  // An elementwise function between a DequantizeLinear and a QuantizeLinear: MoteTableLookup,
  // the table of ONNX's definition.
  void table_lookup(const ops::ElementFunctionInfo& f) {
    ir::TableLookupOptions o{f.function, f.alpha, f.beta};
    if (f.alpha_attribute != nullptr) o.alpha = float_attr(f.alpha_attribute, f.alpha);
    if (f.beta_attribute != nullptr) o.beta = float_attr(f.beta_attribute, f.beta);
    if (f.function == ir::ElementFunction::kGelu) {
      const std::string approximate = string_attr("approximate", "none");
      if (approximate == "tanh") o.function = ir::ElementFunction::kGeluTanh;
      else if (approximate != "none") bad("approximate '" + printable(approximate) + "' not supported (none or tanh)");
    }
    unary(OpType::kTableLookup, std::nullopt, o);
  }

  // Add, Sub, Mul, Div or Pow of an int8 value and a constant whose elements are all one value c
  // (a plain float, as PyTorch exports x * 0.5 or x / 6; for Div and Pow a dequantized one too),
  // the result quantized: a function of the value alone, a MoteTableLookup of ONNX's float32
  // arithmetic. False when the node is not of that form: Add, Sub and Mul of two values or of a
  // quantized constant are Mote's binary kernels.
  bool constant_arithmetic() {
    const std::string& op = node_->op_type();
    if (node_->input_size() != 2 || is_activation(0) == is_activation(1)) return false;
    const int k = is_activation(0) ? 1 : 0;  // the constant's input
    const bool dequantized = dq_constants_.count(input_name(k)) != 0;
    if (!dequantized && constant(input_name(k)) == nullptr) return false;
    if (dequantized && (op == "Add" || op == "Sub" || op == "Mul")) return false;
    const QuantConstant c = quant_constant(k);
    if (c.q.scale.size() > 1 || c.data.count() < 1) return false;
    const std::vector<float> reals = real_values(c);
    const float value = reals[0];
    for (float v : reals) {
      if (v != value) return false;
    }
    // The constant broadcasts without growing the value: its dimensions, from the right, 1 or
    // the value's.
    const std::vector<int64_t> xs = onnx_shape(activation(1 - k));
    const std::vector<int64_t>& cs = c.data.dims;
    if (cs.size() > xs.size()) return false;
    for (size_t i = 1; i <= cs.size(); ++i) {
      if (cs[cs.size() - i] != 1 && cs[cs.size() - i] != xs[xs.size() - i]) return false;
    }
    using F = ir::ElementFunction;
    ir::TableLookupOptions o{F::kAddConstant, value, 0};
    if (op == "Sub") o = k == 1 ? ir::TableLookupOptions{F::kAddConstant, -value, 0}
                                : ir::TableLookupOptions{F::kConstantSub, value, 0};
    if (op == "Mul") o.function = F::kMulConstant;
    if (op == "Div") o.function = k == 1 ? F::kDivByConstant : F::kConstantDivBy;
    if (op == "Pow") {
      if (k == 0) bad("Pow of a constant base not supported (only a value to a constant power)");
      o.function = F::kPowConstant;
    }
    unary(OpType::kTableLookup, std::nullopt, o, 1 - k);
    return true;
  }

  void sigmoid() { table_unary(OpType::kLogistic, ir::Quantization{{1.0f / 256}, {-128}, 0}); }
  // Sigmoid and Tanh: quantized straight to the QuantizeLinear after them, a table of ONNX's float
  // function (rounding once); else (TFLite's rounding, or a float result) TFLite's integer kernel
  // and its fixed output quantization, requantized where needed.
  void table_unary(OpType type, const ir::Quantization& fixed) {
    const std::string& output = node_->output(0);
    const int next = only_consumer(output);
    const bool quantized = stated_sinks_.count(output) != 0 ||
                           (next >= 0 && graph_.node(next).op_type() == "QuantizeLinear");
    if (g_.round_once && quantized) return unary(type);
    if (g_.round_once && is_graph_output(output)) return float_output16(type);
    unary(type, fixed);
  }
  // Sigmoid or Tanh that is itself a float graph output: TFLite's int16 kernel (output step
  // 2^-15, 128 times finer than the int8 one's) on the int8 value widened exactly (the same
  // scale, zero point 0), then a DEQUANTIZE.
  void float_output16(OpType type) {
    const Value x = activation(0);
    const ir::Tensor in = tensor(x.tensor);  // a copy: tensors grow below
    const std::string& name = node_->output(0);
    const int32_t wide = add_activation(name + "/int16", in.shape, {in.quantization.scale, {0}, 0},
                                        DataType::kInt16);
    add_op(OpType::kQuantize, {x.tensor}, wide);
    const int32_t out = add_activation(name, in.shape, {{1.0f / 32768}, {0}, 0}, DataType::kInt16);
    add_op(type, {wide}, out);
    values_[name] = {out, x.perm};
  }
  void leaky_relu() { unary(OpType::kLeakyRelu, std::nullopt, ir::LeakyReluOptions{float_attr("alpha", 0.01f)}); }

  void prelu() {
    const Value x = activation(0);
    const size_t rank = tensor(x.tensor).shape.size();
    // ONNX's slope broadcasts from the right; PyTorch writes [C, 1, 1] for NCHW.
    const int32_t alpha = binary_constant(1, x, rank);
    const Sink s = sink(node_->output(0), false);
    const int32_t out = output_tensor(s, tensor(x.tensor).shape, required(s, node_->output(0)));
    add_op(OpType::kPrelu, {x.tensor, alpha}, out);
    values_[s.name] = {out, x.perm, {}};
  }

  void pad() {
    const Value x = activation(0);
    if (string_attr("mode", "constant") != "constant") bad("mode '" + printable(string_attr("mode", "")) + "' not supported (constant only)");
    std::vector<int64_t> pads = opset_ >= 11 ? ints_input(1) : ints_attr("pads");
    const size_t rank = tensor(x.tensor).shape.size();
    if (opset_ >= 18 && has_input(3)) {
      // Opset 18's axes: the pads are those axes' (begins, then ends); the others' are 0.
      std::vector<int64_t> axes = ints_input(3);
      resolve_axes(axes, static_cast<int64_t>(rank));
      if (pads.size() != 2 * axes.size()) bad("pads do not match the axes");
      std::vector<int64_t> full(2 * rank, 0);
      for (size_t i = 0; i < axes.size(); ++i) {
        full[static_cast<size_t>(axes[i])] = pads[i];
        full[static_cast<size_t>(axes[i]) + rank] = pads[i + axes.size()];
      }
      pads = full;
    }
    if (pads.size() != 2 * rank) bad("pads do not match the input's rank");
    if (opset_ >= 11 && has_input(2)) {
      const QuantConstant value = quant_constant(2);
      if (value.data.count() != 1) bad("the constant value must be one value");
      const double raw = value.data.at(0) - value.data.uint8_shift();
      if (!value.q.scale.empty()) {
        if ((raw - static_cast<double>(value.q.zero_point[0])) * value.q.scale[0] != 0) {
          bad("a constant value other than 0 is not supported");
        }
      } else if (value.data.elem_type == ::onnx::TensorProto::UINT8 ||
                 value.data.elem_type == ::onnx::TensorProto::INT8) {
        // The QOperator form pads the quantized tensor itself: its zero point is the real 0.
        const ir::Quantization& xq = tensor(x.tensor).quantization;
        if (xq.zero_point.size() != 1 || raw != static_cast<double>(xq.zero_point[0])) {
          bad("a constant value other than the input's zero point (real 0) is not supported");
        }
      } else if (value.data.at(0) != 0) {
        bad("a constant value other than 0 is not supported");
      }
    } else if (float_attr("value", 0) != 0) {
      bad("a constant value other than 0 is not supported");
    }
    std::vector<int32_t> paddings;
    std::vector<int32_t> shape = tensor(x.tensor).shape;
    for (size_t i = 0; i < rank; ++i) {
      const size_t d = x.perm.empty() ? i : static_cast<size_t>(x.perm[i]);
      if (pads[d] < 0 || pads[d + rank] < 0) bad("negative pads (cropping) not supported");
      if (pads[d] > (1 << 16) || pads[d + rank] > (1 << 16)) bad("pads " + shape_text(pads) + " out of range");
      paddings.push_back(static_cast<int32_t>(pads[d]));
      paddings.push_back(static_cast<int32_t>(pads[d + rank]));
      shape[i] += static_cast<int32_t>(pads[d] + pads[d + rank]);
    }
    const Sink s = sink(node_->output(0), false);
    const int32_t p = add_int32_constant(node_->output(0) + "/paddings", paddings, {static_cast<int32_t>(rank), 2});
    const int32_t out = add_activation(node_->output(0), shape, tensor(x.tensor).quantization);
    add_op(OpType::kPad, {x.tensor, p}, out);
    bind(s.name, {out, x.perm, {}}, s.q);
  }

  void resize() {
    const Value x = spatial_input(0);
    if (one_d_) bad("a 1-D resize ([N,C,L]) is not supported; resize a [N,C,1,L] tensor instead");
    const std::vector<int64_t> xs = onnx_shape(x);
    const std::string mode = string_attr("mode", "nearest");
    // Opset 18's additions change the result when set.
    if (int_attr("antialias", 0) != 0) bad("antialias 1 not supported");
    if (attribute("axes") != nullptr) bad("the axes attribute is not supported");
    if (string_attr("keep_aspect_ratio_policy", "stretch") != "stretch") bad("keep_aspect_ratio_policy other than stretch not supported");
    const std::string coordinates = string_attr("coordinate_transformation_mode", opset_ >= 11 ? "half_pixel" : "asymmetric");
    // The output size: the sizes input, else the scales (input 1 before opset 11, 2 from it).
    std::vector<int64_t> out = xs;
    const int scales_k = opset_ >= 11 ? 2 : 1;
    if (opset_ >= 11 && has_input(3) && constant(node_->input(3)) != nullptr && constant(node_->input(3))->count() > 0) {
      out = ints_input(3);
    } else if (has_input(scales_k) && constant(node_->input(scales_k)) != nullptr && constant(node_->input(scales_k))->count() > 0) {
      const std::vector<double> scales = constant_input(scales_k).values();
      if (scales.size() != 4) bad("scales do not match the input's rank");
      for (size_t i = 0; i < 4; ++i) {
        const double size = std::floor(static_cast<double>(xs[i]) * scales[i]);
        // Sizes past 2^20 are refused below; NaN and infinities become 0 and are too.
        out[i] = size >= 1 ? static_cast<int64_t>(std::min(size, 1e9)) : 0;
      }
    } else {
      bad("needs constant scales or sizes");
    }
    if (out.size() != 4 || out[0] != xs[0] || out[1] != xs[1]) bad("only the spatial dimensions may be resized");
    if (out[2] < 1 || out[3] < 1 || out[2] > (1 << 20) || out[3] > (1 << 20)) {
      bad("output size " + shape_text(out) + " not supported (each spatial size from 1 to 2^20)");
    }
    ir::ResizeNearestNeighborOptions o;
    OpType type;
    if (mode == "nearest") {
      type = OpType::kResizeNearestNeighbor;
      const std::string rounding = string_attr("nearest_mode", "round_prefer_floor");
      // TFLite's nearest neighbour: floor(out * scale), or floor((out + 0.5) * scale) with
      // half_pixel_centers, which ONNX's half_pixel with round_prefer_ceil computes too.
      if (coordinates == "asymmetric" && (rounding == "floor" || opset_ < 11)) {
      } else if ((coordinates == "half_pixel" || coordinates == "tf_half_pixel_for_nn") && rounding == "round_prefer_ceil") {
        o.half_pixel_centers = true;
      } else if (out[2] % xs[2] == 0 && out[3] % xs[3] == 0 && coordinates != "align_corners") {
        // An integer factor: every ONNX rounding picks floor(out / factor).
      } else {
        bad("nearest resize with coordinate_transformation_mode '" + printable(coordinates) + "' and nearest_mode '" + printable(rounding) + "' not supported");
      }
    } else if (mode == "linear" || mode == "bilinear") {
      type = OpType::kResizeBilinear;
      if (coordinates == "half_pixel" || coordinates == "pytorch_half_pixel") {
        o.half_pixel_centers = true;
      } else if (coordinates == "align_corners") {
        o.align_corners = true;
      } else if (coordinates != "asymmetric") {
        bad("linear resize with coordinate_transformation_mode '" + printable(coordinates) + "' not supported");
      }
    } else {
      bad("mode '" + printable(mode) + "' not supported");
    }
    const Sink s = sink(node_->output(0), false);
    const std::vector<int32_t> size = {static_cast<int32_t>(out[2]), static_cast<int32_t>(out[3])};
    const int32_t sz = add_int32_constant(node_->output(0) + "/size", size);
    const ir::Tensor in = tensor(x.tensor);
    const int32_t y = add_activation(node_->output(0), {in.shape[0], size[0], size[1], in.shape[3]}, in.quantization);
    add_op(type, {x.tensor, sz}, y, o);
    bind(s.name, {y, kNhwc, {}}, s.q);
  }

  void constant_node() {
    const auto* value = attribute("value");
    if (value == nullptr || !value->has_t()) bad("only a Constant with a 'value' tensor is supported");
    constants_[node_->output(0)] = read_constant(value->t(), where());
  }

  void identity_node() {
    const std::string& in = input_name(0);
    if (auto it = values_.find(in); it != values_.end()) {
      values_[node_->output(0)] = it->second;
    } else if (auto c = dq_constants_.find(in); c != dq_constants_.end()) {
      dq_constants_[node_->output(0)] = c->second;
    } else if (const Constant* k = constant(in)) {
      constants_[node_->output(0)] = *k;
    } else {
      bad("input '" + printable(in) + "' is produced by no node Mote read");
    }
  }

  void quantize_linear() {
    const std::string& in = input_name(0);
    QuantParams q = quant_params(1, 2, int_attr("axis", 1));
    if (const Constant* c = constant(in)) {
      // A float constant quantized in the graph (weights stored as float): quantize it here.
      QuantConstant qc;
      qc.q = q;
      qc.data.elem_type = ::onnx::TensorProto::INT8;
      qc.data.dims = c->dims;
      const int64_t n = c->count();
      qc.data.bytes.resize(static_cast<size_t>(n));
      const int64_t per = q.scale.size() > 1 ? inner_count(c->dims, q.axis) : n;
      for (int64_t i = 0; i < n; ++i) {
        const size_t ch = q.scale.size() > 1 ? static_cast<size_t>((i / per) % static_cast<int64_t>(q.scale.size())) : 0;
        const double v = std::nearbyint(c->at(i) / q.scale[ch]) + static_cast<double>(q.zero_point[ch]);
        qc.data.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(saturated_int8(v));
      }
      pending_quantized_[node_->output(0)] = qc;
      return;
    }
    if (q.scale.size() != 1) bad("a per-axis quantized activation is not supported");
    auto it = values_.find(in);
    if (it == values_.end()) bad("input '" + printable(in) + "' is produced by no node Mote read");
    const Value v = it->second;
    const ir::Tensor& t = tensor(v.tensor);
    if (t.type == DataType::kFloat32) {
      const int32_t out = add_activation(node_->output(0), t.shape, q.ir());
      add_op(OpType::kQuantize, {v.tensor}, out);
      values_[node_->output(0)] = {out, v.perm};
      return;
    }
    bind(node_->output(0), v, q);
  }

  static int64_t inner_count(const std::vector<int64_t>& dims, int64_t axis) {
    int64_t n = 1;
    for (size_t i = static_cast<size_t>(axis) + 1; i < dims.size(); ++i) n *= dims[i];
    return n;
  }

  void dequantize_linear() {
    const std::string& in = input_name(0);
    const int64_t axis = int_attr("axis", 1);
    if (const Constant* c = constant(in); c != nullptr || pending_quantized_.count(in) != 0) {
      QuantConstant qc;
      if (c != nullptr) {
        qc.data = *c;
        qc.q = quant_params(1, 2, axis < 0 ? axis + static_cast<int64_t>(c->dims.size()) : axis,
                            c->elem_type != ::onnx::TensorProto::UINT8);
        if (c->elem_type == ::onnx::TensorProto::INT32) {
          qc.q.from_uint8 = false;  // a bias: its zero point is zero whatever the absent input's type
          std::fill(qc.q.zero_point.begin(), qc.q.zero_point.end(), 0);
        }
      } else {
        qc = pending_quantized_[in];
      }
      dq_constants_[node_->output(0)] = qc;
      return;
    }
    auto it = values_.find(in);
    if (it == values_.end()) bad("input '" + printable(in) + "' is produced by no node Mote read");
    const QuantParams q = quant_params(1, 2, axis, signed_inputs_.count(in) != 0);
    if (q.scale.size() != 1) bad("a per-axis quantized activation is not supported");
    ir::Tensor& t = g_.tensors[static_cast<size_t>(it->second.tensor)];
    if (t.quantization.empty()) t.quantization = q.ir();  // an int8 or uint8 graph input
    if (t.quantization != q.ir()) {
      bad("dequantizes '" + printable(in) + "' with scale " + std::to_string(q.scale[0]) +
          " and zero point " + std::to_string(q.zero_point[0]) +
          ", not the quantization it was written with");
    }
    values_[node_->output(0)] = it->second;
  }

  // ---- weights and biases

  // Weights as int8 with zero point 0 (uint8 weights are moved to int8 when they fit).
  std::vector<int8_t> int8_weights(const QuantConstant& w, const std::string& what) const {
    if (w.q.scale.empty()) {
      bad(what + " '" + printable(input_name(1)) + "' is float, not quantized: quantize the weights "
          "too (a DequantizeLinear of int8 weights)");
    }
    const auto values = w.data.values();
    const int64_t per = w.q.scale.size() > 1 ? inner_count(w.data.dims, w.q.axis) : 1;
    std::vector<int8_t> out(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const size_t ch = w.q.scale.size() > 1 ? static_cast<size_t>((static_cast<int64_t>(i) / per) % static_cast<int64_t>(w.q.scale.size())) : 0;
      // The stored zero point is moved by -128 for uint8; the raw value by the same.
      const double raw = values[i] - w.data.uint8_shift();
      const double v = raw - static_cast<double>(w.q.zero_point[ch]);
      if (v < -128 || v > 127) {
        bad(what + " have a zero point of " + std::to_string(w.q.zero_point[ch]) +
            " that puts them outside int8; Mote's kernels take symmetric int8 weights "
            "(quantize_static(..., weight_type=QuantType.QInt8))");
      }
      out[i] = static_cast<int8_t>(v);
    }
    return out;
  }

  // Per output channel weight scales (one repeated when per-tensor).
  std::vector<float> channel_scales(const QuantConstant& w, int64_t channels, int64_t axis) const {
    if (w.q.scale.size() == 1) return std::vector<float>(static_cast<size_t>(channels), w.q.scale[0]);
    if (static_cast<int64_t>(w.q.scale.size()) != channels || w.q.axis != axis) {
      bad("weights have " + std::to_string(w.q.scale.size()) + " scales on axis " +
          std::to_string(w.q.axis) + ", expected one per output channel (" +
          std::to_string(channels) + ") on axis " + std::to_string(axis));
    }
    return w.q.scale;
  }

  // The int32 bias of scale input_scale * weight_scale[c], as TFLite's kernels take it. A bias
  // quantized with another scale is rescaled; a float bias is quantized.
  int32_t bias_tensor(int k, float input_scale, const std::vector<float>& weight_scales,
                      const std::string& name) {
    const QuantConstant b = quant_constant(k);
    const size_t channels = weight_scales.size();
    if (static_cast<size_t>(b.data.count()) != channels) {
      bad("bias has " + std::to_string(b.data.count()) + " values, expected " + std::to_string(channels));
    }
    std::vector<int32_t> values(channels);
    for (size_t c = 0; c < channels; ++c) {
      const double expected = static_cast<double>(input_scale) * weight_scales[c];
      double real = b.data.at(static_cast<int64_t>(c));
      bool rescale = true;  // false: quantized at input x weight already, taken as it is
      if (!b.q.scale.empty()) {
        const size_t bc = b.q.scale.size() > 1 ? c : 0;
        const float bs = b.q.scale[bc];
        real -= static_cast<double>(b.q.zero_point[bc]);
        rescale = std::abs(bs / expected - 1) >= 1e-6;
        if (rescale) real *= bs;
      }
      const double q = rescale ? std::nearbyint(real / expected) : real;
      if (!(q >= INT32_MIN && q <= INT32_MAX)) bad("bias overflows int32 at scale input x weight");
      values[c] = static_cast<int32_t>(q);
    }
    ir::Tensor t;
    t.name = name;
    t.type = DataType::kInt32;
    t.shape = {static_cast<int32_t>(channels)};
    t.data.resize(channels * 4);
    std::memcpy(t.data.data(), values.data(), t.data.size());
    t.is_constant = true;
    std::vector<float> scales;
    for (size_t c = 0; c < channels; ++c) scales.push_back(input_scale * weight_scales[c]);
    t.quantization = symmetric(scales, 0);
    return add_tensor(std::move(t));
  }

  // Zero points 0; one scale when every channel has the same (per-tensor weights).
  static ir::Quantization symmetric(const std::vector<float>& scales, int32_t dimension) {
    const bool same = std::all_of(scales.begin(), scales.end(), [&](float s) { return s == scales[0]; });
    ir::Quantization q;
    q.scale = same ? std::vector<float>{scales[0]} : scales;
    q.zero_point.assign(q.scale.size(), 0);
    q.quantized_dimension = same ? 0 : dimension;
    return q;
  }

  int32_t weights_tensor(const std::string& name, std::vector<int32_t> shape, std::vector<int8_t> data,
                         const std::vector<float>& scales, int32_t dimension) {
    ir::Tensor t;
    t.name = name;
    t.type = DataType::kInt8;
    t.shape = std::move(shape);
    t.data.assign(reinterpret_cast<const uint8_t*>(data.data()),
                  reinterpret_cast<const uint8_t*>(data.data()) + data.size());
    t.is_constant = true;
    t.quantization = symmetric(scales, dimension);
    return add_tensor(std::move(t));
  }

  // ---- windows (convolutions and pools)

  struct Window {
    std::vector<int64_t> kernel, strides, dilations, pads;  // pads: begins then ends
  };
  Window window(const std::vector<int64_t>& spatial, std::vector<int64_t> kernel) const {
    Window w;
    const size_t n = spatial.size();
    w.kernel = std::move(kernel);
    w.strides = ints_attr("strides");
    w.dilations = ints_attr("dilations");
    w.pads = ints_attr("pads");
    if (one_d_) {
      // A 1-D window's attributes, widened to the [1, L] window the 2-D kernels run.
      for (auto* v : {&w.kernel, &w.strides, &w.dilations}) {
        if (v->size() == 1) v->insert(v->begin(), 1);
      }
      if (w.pads.size() == 2) w.pads = {0, w.pads[0], 0, w.pads[1]};
    }
    if (w.strides.empty()) w.strides.assign(n, 1);
    if (w.dilations.empty()) w.dilations.assign(n, 1);
    if (w.pads.empty()) w.pads.assign(2 * n, 0);
    if (w.kernel.size() != n || w.strides.size() != n || w.dilations.size() != n || w.pads.size() != 2 * n) {
      bad("kernel_shape, strides, dilations or pads do not match the input's rank");
    }
    // Sizes a window cannot have (a stride of 0 would divide by zero below).
    for (size_t i = 0; i < n; ++i) {
      if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1 || w.kernel[i] > (1 << 16) ||
          w.strides[i] > (1 << 16) || w.dilations[i] > (1 << 16)) {
        bad("kernel_shape " + shape_text(w.kernel) + ", strides " + shape_text(w.strides) +
            " or dilations " + shape_text(w.dilations) + " out of range");
      }
    }
    for (int64_t p : w.pads) {
      if (p < 0 || p > (1 << 16)) bad("pads " + shape_text(w.pads) + " out of range");
    }
    const std::string auto_pad = string_attr("auto_pad", "NOTSET");
    for (size_t i = 0; i < n; ++i) {
      const int64_t effective = (w.kernel[i] - 1) * w.dilations[i] + 1;
      if (auto_pad == "VALID") {
        w.pads[i] = w.pads[i + n] = 0;
      } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        const int64_t out = (spatial[i] + w.strides[i] - 1) / w.strides[i];
        const int64_t total = std::max<int64_t>((out - 1) * w.strides[i] + effective - spatial[i], 0);
        const int64_t small = total / 2;
        w.pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
        w.pads[i + n] = total - w.pads[i];
      } else if (auto_pad != "NOTSET") {
        bad("auto_pad '" + printable(auto_pad) + "' not supported");
      }
      if (spatial[i] + w.pads[i] + w.pads[i + n] < effective) bad("the window is larger than its padded input");
    }
    if (int_attr("ceil_mode", 0) != 0) {
      // A max pool's sizes rounded up are more padding at the end (a window whose start lies
      // beyond the input and its begin padding is left out, as ONNX and PyTorch do).
      if (node_->op_type() != "MaxPool") bad("ceil_mode 1 not supported (output sizes rounded up)");
      for (size_t i = 0; i < n; ++i) {
        const int64_t effective = (w.kernel[i] - 1) * w.dilations[i] + 1;
        const int64_t span = spatial[i] + w.pads[i] + w.pads[i + n] - effective;
        int64_t out = (span + w.strides[i] - 1) / w.strides[i] + 1;
        if ((out - 1) * w.strides[i] >= spatial[i] + w.pads[i]) --out;
        w.pads[i + n] += std::max<int64_t>((out - 1) * w.strides[i] - span, 0);
      }
    }
    return w;
  }
  // TFLite's SAME or VALID when the window's pads are those; nullopt when only an explicit PAD
  // gives them.
  static std::optional<ir::Padding> tflite_padding(const Window& w, const std::vector<int64_t>& spatial) {
    const size_t n = spatial.size();
    bool zero = true, same = true;
    for (size_t i = 0; i < n; ++i) {
      if (w.pads[i] != 0 || w.pads[i + n] != 0) zero = false;
      const int64_t before = ir::window_padding_before(spatial[i], w.kernel[i], w.strides[i], w.dilations[i], ir::Padding::kSame);
      const int64_t out = ir::window_output_size(spatial[i], w.kernel[i], w.strides[i], w.dilations[i], ir::Padding::kSame);
      const int64_t effective = (w.kernel[i] - 1) * w.dilations[i] + 1;
      const int64_t total = std::max<int64_t>((out - 1) * w.strides[i] + effective - spatial[i], 0);
      if (w.pads[i] != before || w.pads[i + n] != total - before) same = false;
    }
    if (zero) return ir::Padding::kValid;
    if (same) return ir::Padding::kSame;
    return std::nullopt;
  }
  static std::vector<int64_t> window_output(const Window& w, const std::vector<int64_t>& spatial) {
    std::vector<int64_t> out;
    const size_t n = spatial.size();
    for (size_t i = 0; i < n; ++i) {
      const int64_t effective = (w.kernel[i] - 1) * w.dilations[i] + 1;
      out.push_back((spatial[i] + w.pads[i] + w.pads[i + n] - effective) / w.strides[i] + 1);
    }
    return out;
  }
  // An NHWC int8 value padded explicitly with its zero point (a real 0), for pads TFLite's SAME
  // does not express; the window then runs VALID.
  Value explicit_pad(const Value& x, Window& w) {
    // A copy: adding tensors moves the graph's.
    const ir::Tensor in = tensor(x.tensor);
    std::vector<int32_t> pads = {0, 0, static_cast<int32_t>(w.pads[0]), static_cast<int32_t>(w.pads[2]),
                                 static_cast<int32_t>(w.pads[1]), static_cast<int32_t>(w.pads[3]), 0, 0};
    std::vector<int32_t> shape = in.shape;
    shape[1] += pads[2] + pads[3];
    shape[2] += pads[4] + pads[5];
    const std::string name = node_->output(0) + "/pad";
    const int32_t p = add_int32_constant(name + "/paddings", pads, {4, 2});
    const int32_t out = add_activation(name, shape, in.quantization);
    add_op(OpType::kPad, {x.tensor, p}, out);
    std::fill(w.pads.begin(), w.pads.end(), 0);
    return {out, kNhwc};
  }

  // A window's input as NHWC of rank 4: [N, C, H, W], or [N, C, L] taken as [N, C, 1, L].
  Value spatial_input(int k) {
    Value x = activation(k);
    const size_t rank = tensor(x.tensor).shape.size();
    one_d_ = rank == 3;
    if (one_d_) return as_nhwc_1d(x);
    if (rank != 4) {
      bad("input of rank " + std::to_string(rank) + " not supported (1-D windows over [N,C,L], "
          "2-D over [N,C,H,W])");
    }
    return as_nhwc(x);
  }

  void conv() {
    Value x = spatial_input(0);
    const std::vector<int64_t> xs = onnx_shape(x);  // N, C, H, W
    QuantConstant w = quant_constant(1);
    if (one_d_ && w.data.dims.size() == 3) w.data.dims.insert(w.data.dims.begin() + 2, 1);
    if (w.data.dims.size() != 4) bad("weights of rank " + std::to_string(w.data.dims.size()) + " not supported");
    const int64_t co = w.data.dims[0], cig = w.data.dims[1], kh = w.data.dims[2], kw = w.data.dims[3];
    const int64_t group = int_attr("group", 1);
    if (group < 1 || xs[1] != cig * group || co % group != 0) {
      bad("weights " + shape_text(w.data.dims) + " and group " + std::to_string(group) +
          " do not match the input's " + std::to_string(xs[1]) + " channels");
    }
    std::vector<int64_t> kernel = ints_attr("kernel_shape");
    if (kernel.empty()) kernel = {kh, kw};
    Window win = window({xs[2], xs[3]}, kernel);
    const Sink s = sink(node_->output(0));
    const QuantParams q = required(s, node_->output(0));
    std::optional<ir::Padding> padding = tflite_padding(win, {xs[2], xs[3]});
    if (!padding) {
      x = explicit_pad(x, win);
      padding = ir::Padding::kValid;
    }
    const std::vector<int64_t> hw = window_output(win, {onnx_shape(x)[2], onnx_shape(x)[3]});
    const std::vector<int8_t> data = int8_weights(w, "weights");
    const std::vector<float> scales = channel_scales(w, co, 0);
    const float input_scale = tensor(x.tensor).quantization.scale[0];
    const std::string name = node_->output(0);
    const bool depthwise = group > 1 && cig == 1;
    int32_t weights;
    if (depthwise) {
      // [Co, 1, Kh, Kw] -> [1, Kh, Kw, Co]
      const std::vector<int8_t> laid = channels_last(data, 1, co, kh * kw);
      weights = weights_tensor(name + "/weights", {1, static_cast<int32_t>(kh), static_cast<int32_t>(kw), static_cast<int32_t>(co)}, laid, scales, 3);
    } else {
      // [Co, Ci, Kh, Kw] -> [Co, Kh, Kw, Ci]
      const std::vector<int8_t> laid = channels_last(data, co, cig, kh * kw);
      weights = weights_tensor(name + "/weights", {static_cast<int32_t>(co), static_cast<int32_t>(kh), static_cast<int32_t>(kw), static_cast<int32_t>(cig)}, laid, scales, 0);
    }
    std::vector<int32_t> inputs = {x.tensor, weights};
    if (has_input(2)) inputs.push_back(bias_tensor(2, input_scale, scales, name + "/bias"));
    const int32_t out = output_tensor(s, {static_cast<int32_t>(xs[0]), static_cast<int32_t>(hw[0]), static_cast<int32_t>(hw[1]), static_cast<int32_t>(co)}, q);
    const auto sh = static_cast<int32_t>(win.strides[0]), sw = static_cast<int32_t>(win.strides[1]);
    const auto dh = static_cast<int32_t>(win.dilations[0]), dw = static_cast<int32_t>(win.dilations[1]);
    if (depthwise) {
      add_op(OpType::kDepthwiseConv2D, inputs, out,
             ir::DepthwiseConv2DOptions{*padding, sw, sh, static_cast<int32_t>(co / group), dw, dh, s.activation, {}});
    } else {
      add_op(OpType::kConv2D, inputs, out, ir::Conv2DOptions{*padding, sw, sh, dw, dh, s.activation, {}});
    }
    values_[s.name] = windowed(out);
  }

  // A fully connected layer: input [.., K], weights given [K, N] (`transposed` false) or [N, K].
  void fully_connected(Value x, const QuantConstant& w, bool transposed, int bias_input) {
    const std::vector<int32_t> hwc = x.flattened_hwc;
    x = hwc.empty() ? as_plain(x) : x;
    const std::vector<int64_t> xs = onnx_shape(x);
    if (w.data.dims.size() != 2) bad("weights of rank " + std::to_string(w.data.dims.size()) + " not supported (2-D)");
    const int64_t n = transposed ? w.data.dims[0] : w.data.dims[1];
    const int64_t k = transposed ? w.data.dims[1] : w.data.dims[0];
    if (xs.empty() || xs.back() != k) bad("input " + shape_text(xs) + " does not match weights " + shape_text(w.data.dims));
    const Sink s = sink(node_->output(0));
    const QuantParams q = required(s, node_->output(0));
    const std::vector<int8_t> data = int8_weights(w, "weights");
    const std::vector<float> scales = channel_scales(w, n, transposed ? 0 : 1);
    // Column i of the IR weights multiplies input element i; for a flattened NHWC input that is
    // ONNX's column c*H*W + h*W + w where i = (h*W + w)*C + c.
    auto column = [&](int64_t i) -> int64_t {
      if (hwc.empty()) return i;
      const int64_t hw = static_cast<int64_t>(hwc[0]) * hwc[1], c = i % hwc[2];
      return c * hw + i / hwc[2];
    };
    std::vector<int8_t> laid(data.size());
    for (int64_t r = 0; r < n; ++r)
      for (int64_t i = 0; i < k; ++i) {
        const int64_t c = column(i);
        laid[static_cast<size_t>(r * k + i)] = transposed ? data[static_cast<size_t>(r * k + c)] : data[static_cast<size_t>(c * n + r)];
      }
    const std::string name = node_->output(0);
    const int32_t weights = weights_tensor(name + "/weights", {static_cast<int32_t>(n), static_cast<int32_t>(k)}, laid, scales, 0);
    std::vector<int32_t> inputs = {x.tensor, weights};
    if (bias_input >= 0 && has_input(bias_input)) {
      inputs.push_back(bias_tensor(bias_input, tensor(x.tensor).quantization.scale[0], scales, name + "/bias"));
    }
    std::vector<int32_t> shape(tensor(x.tensor).shape);
    shape.back() = static_cast<int32_t>(n);
    const bool keep = shape.size() > 2;
    if (!keep) {
      int64_t rows = 1;
      for (size_t i = 0; i + 1 < xs.size(); ++i) rows *= xs[i];
      shape = {static_cast<int32_t>(rows), static_cast<int32_t>(n)};
    }
    const int32_t out = output_tensor(s, shape, q);
    add_op(OpType::kFullyConnected, inputs, out, ir::FullyConnectedOptions{s.activation, keep});
    values_[s.name] = {out, {}};
  }

  void gemm() {
    if (int_attr("transA", 0) != 0) bad("transA 1 not supported");
    if (float_attr("alpha", 1) != 1 || float_attr("beta", 1) != 1) bad("alpha and beta other than 1 not supported");
    const Value x = activation(0, true);
    if (tensor(x.tensor).shape.size() != 2) bad("input of rank " + std::to_string(tensor(x.tensor).shape.size()) + " (Gemm takes 2-D)");
    fully_connected(x, quant_constant(1), int_attr("transB", 0) != 0, 2);
  }

  void matmul() {
    if (is_activation(1)) bad("a product of two activations is not supported (the second input must be constant weights)");
    fully_connected(activation(0, true), quant_constant(1), false, -1);
  }

  // A constant operand of a binary operator as an int8 IR tensor laid out like `like`; its own
  // quantization, or `requantize`'s (its real values quantized again; a float constant too).
  int32_t binary_constant(int k, const Value& like, size_t rank, const QuantParams* requantize = nullptr) {
    const QuantConstant c = quant_constant(k);
    if (c.q.scale.size() > 1 || (c.q.scale.empty() && requantize == nullptr)) {
      bad("input " + std::to_string(k) + " must be a per-tensor quantized constant");
    }
    std::vector<int64_t> dims = c.data.dims;
    while (dims.size() < rank) dims.insert(dims.begin(), 1);
    const std::vector<int8_t> data = [&] {
      std::vector<int8_t> out;
      for (double v : c.data.values()) {
        const double raw = v - c.data.uint8_shift();
        if (requantize == nullptr) {
          out.push_back(static_cast<int8_t>(raw));
          continue;
        }
        const double real = c.q.scale.empty() ? v : (raw - static_cast<double>(c.q.zero_point[0])) * c.q.scale[0];
        const double q = std::nearbyint(real / requantize->scale[0]) + static_cast<double>(requantize->zero_point[0]);
        out.push_back(saturated_int8(q));
      }
      return out;
    }();
    std::vector<int32_t> shape = ir_shape(dims, like.perm);
    std::vector<int8_t> laid(data.size());
    if (like.perm.empty()) {
      laid = data;
    } else {
      // ONNX [N, C, H, W] order -> IR order.
      std::vector<int64_t> strides(dims.size(), 1);
      for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
      std::vector<int32_t> index(shape.size(), 0);
      for (size_t flat = 0; flat < laid.size(); ++flat) {
        int64_t source = 0;
        for (size_t i = 0; i < shape.size(); ++i) source += index[i] * strides[static_cast<size_t>(like.perm[i])];
        laid[flat] = data[static_cast<size_t>(source)];
        for (size_t i = shape.size(); i-- > 0;) {
          if (++index[i] < shape[i]) break;
          index[i] = 0;
        }
      }
    }
    ir::Tensor t;
    t.name = input_name(k);
    t.type = DataType::kInt8;
    t.shape = shape;
    t.data.assign(reinterpret_cast<const uint8_t*>(laid.data()), reinterpret_cast<const uint8_t*>(laid.data()) + laid.size());
    t.is_constant = true;
    t.quantization = requantize != nullptr ? requantize->ir() : c.q.ir();
    return add_tensor(std::move(t));
  }

  // The largest rank of the node's (first two) activation operands.
  size_t operand_rank() {
    size_t rank = 0;
    for (int k = 0; k < 2; ++k) {
      if (is_activation(k)) rank = std::max(rank, tensor(activation(k).tensor).shape.size());
    }
    if (rank == 0) bad("both inputs are constants");
    return rank;
  }
  // The layout elementwise operators compute in: that of the first activation operand of full
  // rank that has one (NHWC, [N, L, C]), else ONNX's order.
  std::vector<int32_t> common_layout(int inputs = 2) {
    const size_t rank = operand_rank();
    for (int k = 0; k < inputs; ++k) {
      if (!is_activation(k)) continue;
      const Value v = activation(k);
      if (tensor(v.tensor).shape.size() == rank && !v.perm.empty()) return v.perm;
    }
    return {};
  }
  // NumPy's broadcast of the inputs' shapes, right-aligned to `rank`.
  std::vector<int32_t> broadcast_shape(const std::vector<int32_t>& inputs, size_t rank) const {
    std::vector<int32_t> shape(rank, 1);
    for (int32_t t : inputs) {
      const auto& ts = tensor(t).shape;
      for (size_t i = 0; i < ts.size(); ++i) {
        const size_t j = rank - ts.size() + i;
        if (ts[i] != 1) {
          if (shape[j] != 1 && shape[j] != ts[i]) bad("inputs do not broadcast");
          shape[j] = ts[i];
        }
      }
    }
    return shape;
  }

  void binary(OpType type) {
    const size_t rank = operand_rank();
    const std::vector<int32_t> layout = common_layout();
    std::vector<int32_t> inputs;
    Value laid_like{-1, layout};
    for (int k = 0; k < 2; ++k) {
      if (is_activation(k)) {
        Value v = activation(k);
        if (tensor(v.tensor).shape.size() != rank) bad("inputs of different rank not supported");
        v = relayout(v, layout, "");
        inputs.push_back(v.tensor);
      } else {
        inputs.push_back(binary_constant(k, laid_like, rank));
      }
    }
    const Sink s = sink(node_->output(0));
    const QuantParams q = required(s, node_->output(0));
    const int32_t out = output_tensor(s, broadcast_shape(inputs, rank), q);
    add_op(type, inputs, out, ir::ElementwiseOptions{s.activation});
    values_[s.name] = {out, layout};
  }

  void pool(OpType type) {
    if (int_attr("storage_order", 0) != 0) bad("storage_order 1 not supported");
    Value x = spatial_input(0);
    const std::vector<int64_t> xs = onnx_shape(x);
    Window win = window({xs[2], xs[3]}, ints_attr("kernel_shape"));
    if (win.dilations[0] != 1 || win.dilations[1] != 1) bad("dilated pooling not supported");
    std::optional<ir::Padding> padding = tflite_padding(win, {xs[2], xs[3]});
    // TFLite's average pool leaves the padding out of the count, ONNX's only when
    // count_include_pad is 0; a max pool's padding never wins.
    const bool counts_pad = type == OpType::kAveragePool2D && int_attr("count_include_pad", 0) != 0;
    if (counts_pad && padding == ir::Padding::kSame) padding.reset();
    if (!padding) {
      // Padded with the zero point: a max pool's padding must never win, so that must be the
      // lowest value (-128: a real range starting at 0, as after a Relu).
      const int32_t zero_point = tensor(x.tensor).quantization.zero_point.at(0);
      if (type == OpType::kMaxPool2D && zero_point != -128) {
        bad("pads " + shape_text(win.pads) + " other than TFLite's SAME (or ceil_mode 1) are "
            "supported only where the input's zero point is its lowest value (-128, a range "
            "starting at 0, as after a Relu); this input's is " + std::to_string(zero_point));
      }
      if (type != OpType::kMaxPool2D && !counts_pad) bad("pads " + shape_text(win.pads) + " other than TFLite's SAME not supported");
      x = explicit_pad(x, win);
      padding = ir::Padding::kValid;
    }
    const std::vector<int64_t> hw = window_output(win, {onnx_shape(x)[2], onnx_shape(x)[3]});
    const Sink s = sink(node_->output(0), false);
    const ir::Tensor& in = tensor(x.tensor);
    const int32_t out = add_activation(node_->output(0), {in.shape[0], static_cast<int32_t>(hw[0]), static_cast<int32_t>(hw[1]), in.shape[3]}, in.quantization);
    ir::Pool2DOptions o;
    o.padding = *padding;
    o.stride_h = static_cast<int32_t>(win.strides[0]);
    o.stride_w = static_cast<int32_t>(win.strides[1]);
    o.filter_h = static_cast<int32_t>(win.kernel[0]);
    o.filter_w = static_cast<int32_t>(win.kernel[1]);
    add_op(type, {x.tensor}, out, o);
    bind(s.name, windowed(out), s.q);
  }

  // MEAN (requantized to the sink's quantization) or REDUCE_MAX (quantized as its input) over
  // ONNX axes of an int8 value.
  void mean(const Value& x, const std::vector<int64_t>& onnx_axes, bool keep_dims, OpType type = OpType::kMean) {
    const Sink s = sink(node_->output(0), false);
    const bool requantizes = type == OpType::kMean || type == OpType::kSum;
    if (type == OpType::kSum) required(s, node_->output(0));  // a sum outgrows its input's range
    const QuantParams q = s.q && requantizes ? *s.q : QuantParams{tensor(x.tensor).quantization.scale, tensor(x.tensor).quantization.zero_point};
    const size_t rank = tensor(x.tensor).shape.size();
    std::vector<int32_t> axes;
    std::vector<bool> reduced(rank, false);
    for (int64_t a : onnx_axes) {
      const int64_t axis = a < 0 ? a + static_cast<int64_t>(rank) : a;
      if (axis < 0 || axis >= static_cast<int64_t>(rank)) bad("axis " + std::to_string(a) + " out of range");
      const auto ir_axis = static_cast<int32_t>(ir_dim(x, axis));
      axes.push_back(ir_axis);
      reduced[static_cast<size_t>(ir_axis)] = true;
    }
    std::sort(axes.begin(), axes.end());
    std::vector<int32_t> shape;
    for (size_t i = 0; i < rank; ++i) {
      if (reduced[i] && !keep_dims) continue;
      shape.push_back(reduced[i] ? 1 : tensor(x.tensor).shape[i]);
    }
    Value result{-1, keep_dims ? x.perm : perm_without(x.perm, reduced)};
    const int32_t a = add_int32_constant(node_->output(0) + "/axes", axes);
    result.tensor = add_activation(requantizes ? s.name : node_->output(0), shape, q.ir());
    add_op(type, {x.tensor, a}, result.tensor, ir::MeanOptions{keep_dims});
    bind(s.name, result, requantizes ? std::nullopt : s.q);
  }

  // GlobalAveragePool is a MEAN, GlobalMaxPool a REDUCE_MAX, over the spatial axes.
  void global_pool(OpType reduce) {
    const Value x = activation(0);
    if (tensor(x.tensor).shape.size() == 3) return mean(x, {2}, true, reduce);
    // The reductions take any axes (on the portable kernel whatever the layout): a value in
    // ONNX's order is reduced as it lies rather than copied to NHWC first.
    if (tensor(x.tensor).shape.size() == 4 && x.perm != kNhwc) return mean(x, {2, 3}, true, reduce);
    mean(spatial_input(0), {2, 3}, true, reduce);
  }
  void global_average_pool() { global_pool(OpType::kMean); }

  // DepthToSpace and SpaceToDepth: TFLite's DEPTH_TO_SPACE and SPACE_TO_DEPTH on NHWC are
  // ONNX's on NCHW in its DCR order (channel (i * block + j) * C + c). DepthToSpace's CRD order
  // (channel c * block^2 + i * block + j, PyTorch's pixel_shuffle) first gathers the channels
  // into DCR order.
  void block_rearrange(bool to_space) {
    Value x = spatial_input(0);
    if (one_d_) bad("a 3-D input is not supported ([N,C,H,W] only)");
    const int64_t block = int_attr("blocksize", 0);
    const std::vector<int64_t> xs = onnx_shape(x);
    const int64_t c = xs[1], h = xs[2], w = xs[3];
    if (block < 1 || block > 64) bad("blocksize " + std::to_string(block) + " not supported (1 to 64)");
    std::vector<int64_t> out;
    if (to_space) {
      if (c % (block * block) != 0) bad("channels " + std::to_string(c) + " not divisible by blocksize squared");
      out = {xs[0], c / (block * block), h * block, w * block};
    } else {
      if (h % block != 0 || w % block != 0) bad("height and width must be multiples of blocksize");
      out = {xs[0], c * block * block, h / block, w / block};
    }
    const std::string mode = to_space ? string_attr("mode", "DCR") : "DCR";
    if (mode != "DCR" && mode != "CRD") bad("mode '" + printable(mode) + "' not supported (DCR or CRD)");
    const std::string name = node_->output(0);
    const ir::Quantization q = tensor(x.tensor).quantization;
    if (mode == "CRD") {
      const int64_t depth = c / (block * block);
      std::vector<int32_t> order;  // DCR channel (i * block + j) * depth + d reads CRD d * block^2 + i * block + j
      for (int64_t ij = 0; ij < block * block; ++ij) {
        for (int64_t d = 0; d < depth; ++d) order.push_back(static_cast<int32_t>(d * block * block + ij));
      }
      const int32_t ind = add_int32_constant(name + "/dcr_order", order, {static_cast<int32_t>(c)});
      const int32_t dcr = add_activation(name + "/dcr", tensor(x.tensor).shape, q);
      add_op(OpType::kGather, {x.tensor, ind}, dcr, ir::GatherOptions{3, 0});
      x.tensor = dcr;
    }
    const Sink s = sink(name, false);
    const int32_t y = add_activation(name, {static_cast<int32_t>(out[0]), static_cast<int32_t>(out[2]),
                                            static_cast<int32_t>(out[3]), static_cast<int32_t>(out[1])}, q);
    add_op(to_space ? OpType::kDepthToSpace : OpType::kSpaceToDepth, {x.tensor}, y,
           ir::BlockSizeOptions{static_cast<int32_t>(block)});
    bind(s.name, {y, kNhwc, {}}, s.q);
  }

  // QLinearSoftmax (com.microsoft): Softmax with the meaning of its `opset` attribute's version.
  void qlinear_softmax() { softmax(false, int_attr("opset", opset_)); }

  // ReduceMean (MEAN), ReduceMax (REDUCE_MAX) and ReduceSum (SUM, requantized to the
  // QuantizeLinear after it). The axes are an input from opset 18; ReduceSum's from 13.
  void reduce(OpType type) {
    const Value x = activation(0);
    const int64_t axes_input_from = type == OpType::kSum ? 13 : 18;
    std::vector<int64_t> axes = opset_ >= axes_input_from && has_input(1) ? ints_input(1) : ints_attr("axes");
    if (axes.empty()) {
      if (int_attr("noop_with_empty_axes", 0) != 0) return identity_node();
      for (size_t i = 0; i < tensor(x.tensor).shape.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    }
    mean(x, axes, int_attr("keepdims", 1) != 0, type);
  }

  // ArgMax and ArgMin: ARG_MAX and ARG_MIN of the int8 values (a positive scale keeps their
  // order; ties go to the first index, ONNX's select_last_index 0), int64 indices as ONNX
  // declares them. keepdims puts the size-1 dimension back with a free reshape.
  void arg_min_max(bool arg_min) {
    Value x = activation(0);
    if (int_attr("select_last_index", 0) != 0) {
      bad("select_last_index 1 not supported: ties go to the first index (export with "
          "select_last_index 0)");
    }
    const auto rank = static_cast<int64_t>(tensor(x.tensor).shape.size());
    const int64_t onnx = onnx_axis(int_attr("axis", 0), rank);
    // The indices must lie in ONNX's order but for dimensions of size 1 (whose moves are free
    // reshapes): no int64 transpose. Otherwise the int8 input is laid out in ONNX's order first.
    if (!x.perm.empty()) {
      std::vector<int32_t> kept;  // the ONNX dimensions larger than 1 that remain, in IR order
      for (size_t i = 0; i < x.perm.size(); ++i) {
        if (x.perm[i] != onnx && tensor(x.tensor).shape[i] != 1) kept.push_back(x.perm[i]);
      }
      if (!std::is_sorted(kept.begin(), kept.end())) x = as_plain(x);
    }
    const std::vector<int32_t> shape = tensor(x.tensor).shape;  // copied: tensors grow below
    const auto axis = static_cast<int32_t>(ir_dim(x, onnx));
    std::vector<int32_t> reduced = shape;
    reduced.erase(reduced.begin() + axis);
    const bool keep_dims = int_attr("keepdims", 1) != 0;
    const std::string name = node_->output(0);
    const int32_t a = add_int32_constant(name + "/axis", {axis});
    const int32_t indices = add_activation(keep_dims ? name + "/indices" : name, reduced, {},
                                           DataType::kInt64);
    add_op(arg_min ? OpType::kArgMin : OpType::kArgMax, {x.tensor, a}, indices,
           ir::ArgMinMaxOptions{DataType::kInt64});
    std::vector<bool> removed(shape.size(), false);
    removed[static_cast<size_t>(axis)] = true;
    Value result{indices, perm_without(x.perm, removed)};
    if (keep_dims) {
      std::vector<int32_t> kept = shape;
      kept[static_cast<size_t>(axis)] = 1;
      const int32_t sh = add_int32_constant(name + "/shape", kept);
      result.tensor = add_activation(name, kept, {}, DataType::kInt64);
      add_op(OpType::kReshape, {indices, sh}, result.tensor, ir::ReshapeOptions{});
      result.perm = x.perm;
    }
    values_[name] = result;
  }

  // Relu and Clip not fused into the operator before them: RELU or RELU6 where the output keeps
  // the input's quantization (nothing rounds). Rounding once, one that requantizes, or a Clip of
  // other constant bounds, is a table of ONNX's float function, which rounds half to even as
  // the QuantizeLinear after it (TFLite's RELU rounds half away from zero: a step off at every
  // tie, and a scale ratio like 1.25 makes ties common).
  void activation_node() {
    const Value x = activation(0);
    const auto act = fusable_activation(*node_);
    const Sink s = sink(node_->output(0), false);
    const ir::Quantization q = s.q ? s.q->ir() : tensor(x.tensor).quantization;
    const bool plain = act && *act != ir::Activation::kReluN1To1 && q == tensor(x.tensor).quantization;
    if (g_.round_once && !plain) {
      const auto bounds = node_->op_type() == "Relu"
                              ? std::make_pair(0.0f, std::numeric_limits<float>::infinity())
                              : clip_bounds(*node_);
      if (!bounds) bad("Clip's bounds must be constants");
      constexpr float kMax = std::numeric_limits<float>::max();  // no bound: float's range
      const ir::TableLookupOptions o{ir::ElementFunction::kClip, std::clamp(bounds->first, -kMax, kMax),
                                     std::clamp(bounds->second, -kMax, kMax)};
      return unary(OpType::kTableLookup, q, o);
    }
    if (!act || *act == ir::Activation::kReluN1To1) bad("only Relu and Clip(0, 6) are supported here");
    const ir::Tensor& in = tensor(x.tensor);
    const int32_t out = add_activation(s.name, in.shape, q);
    add_op(*act == ir::Activation::kRelu6 ? OpType::kRelu6 : OpType::kRelu, {x.tensor}, out);
    values_[s.name] = {out, x.perm};
  }

  // The shape the node (Reshape, Flatten, Squeeze, Unsqueeze) gives a value of ONNX shape `xs`
  // and `count` elements: an activation's, or a constant's being folded.
  std::vector<int64_t> reshaped(const std::vector<int64_t>& xs, int64_t count) const {
    const std::string& op = node_->op_type();
    std::vector<int64_t> shape;
    const auto rank = static_cast<int64_t>(xs.size());
    if (op == "Reshape") {
      shape = ints_input(1);
      if (shape.size() > ir::kMaxRank) bad("a shape of rank " + std::to_string(shape.size()) + " is not supported");
      int64_t known = 1;
      int unknown = -1;
      for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 0 && int_attr("allowzero", 0) == 0) shape[i] = i < xs.size() ? xs[i] : 0;
        if (shape[i] < -1 || shape[i] > std::numeric_limits<int32_t>::max() || (shape[i] == -1 && unknown >= 0)) {
          bad("shape " + shape_text(shape) + " is not valid");
        }
        if (shape[i] == -1) {
          unknown = static_cast<int>(i);
        } else {
          known = capped_product(known, shape[i]);
        }
      }
      if (unknown >= 0 && known > 0) shape[static_cast<size_t>(unknown)] = count / known;
    } else if (op == "Flatten") {
      int64_t axis = int_attr("axis", 1);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis > rank) bad("axis " + std::to_string(int_attr("axis", 1)) + " out of range for rank " + std::to_string(rank));
      int64_t outer = 1;
      for (int64_t i = 0; i < axis; ++i) outer *= xs[static_cast<size_t>(i)];
      shape = {outer, outer > 0 ? count / outer : 0};
    } else {
      std::vector<int64_t> axes = opset_ >= 13 && has_input(1) ? ints_input(1) : ints_attr("axes");
      const int64_t out_rank = op == "Squeeze" ? rank - static_cast<int64_t>(axes.size()) : rank + static_cast<int64_t>(axes.size());
      resolve_axes(axes, op == "Squeeze" ? rank : out_rank);
      if (op == "Squeeze") {
        for (int64_t i = 0; i < rank; ++i) {
          const bool listed = std::find(axes.begin(), axes.end(), i) != axes.end();
          if (axes.empty() ? xs[static_cast<size_t>(i)] != 1 : !listed) shape.push_back(xs[static_cast<size_t>(i)]);
        }
      } else {
        size_t next = 0;
        for (int64_t i = 0; i < out_rank; ++i) {
          shape.push_back(std::find(axes.begin(), axes.end(), i) != axes.end() ? 1 : xs.at(next++));
        }
      }
    }
    return shape;
  }

  void reshape() {
    const Value read = activation(0);
    const std::vector<int64_t> xs = onnx_shape(read);
    const int64_t count = tensor(read.tensor).num_elements();
    const std::vector<int64_t> shape = reshaped(xs, count);
    if (shape_elements(shape) != count || shape.empty() || shape.size() > ir::kMaxRank) {
      bad("cannot reshape " + shape_text(xs) + " to " + shape_text(shape));
    }
    std::vector<int32_t> s32(shape.begin(), shape.end());
    const Sink s = sink(node_->output(0), false);
    // [N, C, H, W] -> [N, C*H*W] of an NHWC tensor: flattened as it lies (see Value).
    const bool keep_nhwc = read.perm == kNhwc && shape.size() == 2 && shape[0] == xs[0] &&
                           xs[1] > 1 && xs[2] * xs[3] > 1;
    // Bytes already in ONNX's order (only dimensions of size 1 moved) are reshaped as they lie.
    const Value x = keep_nhwc || onnx_ordered(read) ? Value{read.tensor, {}, {}} : as_plain(read);
    const int32_t sh = add_int32_constant(node_->output(0) + "/shape", s32);
    const int32_t out = add_activation(node_->output(0), s32, tensor(x.tensor).quantization);
    add_op(OpType::kReshape, {x.tensor, sh}, out, ir::ReshapeOptions{});
    Value result{out, {}, {}};
    if (keep_nhwc) result.flattened_hwc = {static_cast<int32_t>(xs[2]), static_cast<int32_t>(xs[3]), static_cast<int32_t>(xs[1])};
    bind(s.name, result, s.q);
  }

  void transpose() {
    // A float graph input may be transposed before its QuantizeLinear (tf2onnx's NHWC -> NCHW):
    // only the layout changes, folded like any other.
    auto float_input = values_.find(input_name(0));
    const bool is_float = float_input != values_.end() &&
                          tensor(float_input->second.tensor).type == DataType::kFloat32;
    const Value x = is_float ? float_input->second : activation(0);
    const size_t rank = tensor(x.tensor).shape.size();
    std::vector<int64_t> perm = ints_attr("perm");
    if (perm.empty()) {
      for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(rank - 1 - i));
    }
    if (perm.size() != rank) bad("perm does not match the input's rank");
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t j = 0; j < rank; ++j) {
      if (sorted[j] != static_cast<int64_t>(j)) bad("perm " + shape_text(perm) + " is not a permutation of the input's dimensions");
    }
    // Output ONNX dimension j is input ONNX dimension perm[j]: as a layout of the input's
    // value, the output is the input with perm as its dimension order.
    const std::vector<int32_t> from = x.perm.empty() ? identity(rank) : x.perm;
    std::vector<int32_t> inverse(rank);
    for (size_t j = 0; j < rank; ++j) inverse[static_cast<size_t>(perm[j])] = static_cast<int32_t>(j);
    // The input tensor seen as a layout of the output: IR dimension i holds output dimension
    // inverse[from[i]].
    std::vector<int32_t> as_output(rank);
    for (size_t i = 0; i < rank; ++i) as_output[i] = inverse[static_cast<size_t>(from[i])];
    Value seen{x.tensor, is_identity(as_output) ? std::vector<int32_t>{} : as_output};
    // Keep the result NHWC when it is the NCHW of an NHWC tensor, else lay it out plainly.
    const Sink s = sink(node_->output(0), false);
    if (seen.perm == kNhwc) {
      bind(s.name, seen, s.q);
      return;
    }
    bind(s.name, relayout(seen, {}, s.name), s.q);
  }

  // Softmax, or LogSoftmax (`log`): the same axis rules.
  // `opset`: the version whose meaning Softmax has (the model's, or QLinearSoftmax's attribute).
  // From opset 13 the axis may be any one that a layout puts last: as the value lies, or a 4-D
  // value's channels (a segmentation head's classes) in NHWC; TFLite's kernels take the last.
  void softmax(bool log, int64_t opset) {
    Value x = activation(0);
    const auto rank = static_cast<int64_t>(tensor(x.tensor).shape.size());
    int64_t axis = int_attr("axis", opset >= 13 ? -1 : 1);
    if (axis < 0) axis += rank;
    const bool lies_last = x.perm.empty() ? axis == rank - 1 : x.perm.back() == axis;
    if (opset < 13 || !lies_last) {
      x = opset >= 13 && rank == 4 && axis == 1 ? relayout(x, kNhwc, "") : as_plain(x);
    }
    if (!x.perm.empty()) axis = rank - 1;  // the IR's last, laid out above
    // Before opset 13 Softmax flattens from `axis` on; the same as TFLite's when that is the last.
    bool last = axis == rank - 1;
    if (!last && opset < 13) {
      last = true;
      for (int64_t i = axis; i < rank - 1; ++i) last = last && tensor(x.tensor).shape[static_cast<size_t>(i)] == 1;
    }
    const std::string what = log ? "log_softmax" : "softmax";
    if (!last) bad(what + " over axis " + std::to_string(axis) + " of rank " + std::to_string(rank) + " not supported (the last axis only)");
    const Sink s = sink(node_->output(0), false);
    // TFLite's int8 kernels write fixed quantizations (softmax: scale 1/256, zero point -128;
    // log_softmax: 16/256 and 127); other output quantization is reached by requantizing. A
    // softmax the graph gives out in float (a classifier's probabilities after its last
    // DequantizeLinear) is written as int16 at 1/65536, 256 times finer, then dequantized; not
    // where it lies in NHWC, whose move to NCHW takes no int16 of zero point -32768.
    const bool float_out = !log && !s.q && x.perm.empty() && is_graph_output(node_->output(0));
    const ir::Quantization fixed = log         ? ir::Quantization{{16.0f / 256}, {127}, 0}
                                   : float_out ? ir::Quantization{{1.0f / 65536}, {-32768}, 0}
                                               : ir::Quantization{{1.0f / 256}, {-128}, 0};
    const int32_t out = add_activation(node_->output(0), tensor(x.tensor).shape, fixed,
                                       float_out ? DataType::kInt16 : DataType::kInt8);
    if (log) {
      add_op(OpType::kLogSoftmax, {x.tensor}, out);
      // TFLite's result is in steps of 1/16 (within 1/32 of the real value): a requantization to a
      // step at most that fine can land more than one of its steps away from ONNX Runtime's.
      if (s.q && s.q->scale.size() == 1 && s.q->scale[0] <= 1.0f / 32) {
        g_.notes.push_back(where() + "output scale " + std::to_string(s.q->scale[0]) +
                           " is at most half the 1/16 step of TFLite's int8 LOG_SOFTMAX, whose "
                           "result is requantized to it: outputs may differ from ONNX Runtime's "
                           "by more than one step");
      }
    } else {
      add_op(OpType::kSoftmax, {x.tensor}, out, ir::SoftmaxOptions{1.0f});
    }
    bind(s.name, {out, x.perm}, s.q);
  }

  void concat() {
    std::vector<Value> in;
    if (node_->input_size() == 0) bad("no inputs");
    for (int k = 0; k < node_->input_size(); ++k) in.push_back(activation(k));
    const size_t rank = tensor(in[0].tensor).shape.size();
    for (const Value& v : in) {
      if (tensor(v.tensor).shape.size() != rank) bad("inputs of different ranks");
    }
    // The first laid-out input's layout (NHWC, [N, L, C]), else ONNX's order.
    std::vector<int32_t> layout;
    for (const Value& v : in) {
      if (layout.empty() && tensor(v.tensor).shape.size() == rank) layout = v.perm;
    }
    int64_t axis = int_attr("axis", 1);
    if (axis < 0) axis += static_cast<int64_t>(rank);
    if (axis < 0 || axis >= static_cast<int64_t>(rank)) {
      bad("axis " + std::to_string(int_attr("axis", 1)) + " out of range for rank " + std::to_string(rank));
    }
    const Sink s = sink(node_->output(0), false);
    const ir::Quantization q = s.q ? s.q->ir() : tensor(in[0].tensor).quantization;
    std::vector<int32_t> inputs;
    int32_t ir_axis = static_cast<int32_t>(axis);
    if (!layout.empty()) ir_axis = static_cast<int32_t>(std::find(layout.begin(), layout.end(), axis) - layout.begin());
    std::vector<int32_t> shape;
    for (Value v : in) {
      v = relayout(v, layout, "");
      if (tensor(v.tensor).quantization != q) {
        // TFLite's int8 concatenation copies bytes: inputs are requantized to the output's.
        const int32_t r = add_activation(tensor(v.tensor).name + "/requantized", tensor(v.tensor).shape, q);
        add_op(OpType::kQuantize, {v.tensor}, r);
        v.tensor = r;
      }
      const std::vector<int32_t>& vs = tensor(v.tensor).shape;
      if (shape.empty()) {
        shape = vs;
      } else {
        for (size_t d = 0; d < rank; ++d) {
          if (d != static_cast<size_t>(ir_axis) && vs[d] != shape[d]) bad("inputs differ outside the concatenated axis");
        }
        shape[static_cast<size_t>(ir_axis)] += vs[static_cast<size_t>(ir_axis)];
      }
      inputs.push_back(v.tensor);
    }
    const int32_t out = add_activation(s.name, shape, q);
    add_op(OpType::kConcatenation, inputs, out, ir::ConcatenationOptions{ir_axis, ir::Activation::kNone});
    values_[s.name] = {out, layout};
  }

  // ---- shape arithmetic: older exports compute a Reshape's shape at run time (Shape, Gather,
  // Unsqueeze, Concat, ...). Every shape is static here, so such nodes are folded into constants.

  // Squeeze's and Unsqueeze's axes, counted from the end when negative, each once in [0, rank).
  void resolve_axes(std::vector<int64_t>& axes, int64_t rank) const {
    for (int64_t& a : axes) {
      const int64_t given = a;
      if (a < 0) a += rank;
      if (a < 0 || a >= rank) bad("axis " + std::to_string(given) + " out of range for rank " + std::to_string(rank));
    }
    std::vector<int64_t> sorted = axes;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) bad("an axis is listed twice");
  }

  static constexpr const char* kFoldFirst =
      "fold the model's constants first (python3 -m onnxsim model.onnx folded.onnx)";

  // The most elements a folded constant may hold (a bad model must not exhaust memory).
  static constexpr int64_t kMaxFolded = int64_t{1} << 24;

  bool all_inputs_constant() const {
    for (int k = 0; k < node_->input_size(); ++k) {
      if (!node_->input(k).empty() && constant(node_->input(k)) == nullptr) return false;
    }
    return node_->input_size() > 0;
  }

  // Folds the node when every input is known; false when it is an operator on activations.
  bool fold_constant_node() {
    const std::string& op = node_->op_type();
    if (!node_->domain().empty() && node_->domain() != "ai.onnx") return false;
    if (op == "Shape") {
      std::vector<int64_t> dims;
      if (const Constant* c = constant(input_name(0))) {
        dims = c->dims;
      } else if (auto it = values_.find(input_name(0)); it != values_.end()) {
        dims = onnx_shape(it->second);
      } else {
        bad("input '" + printable(input_name(0)) + "' is produced by no node Mote read");
      }
      const auto rank = static_cast<int64_t>(dims.size());
      int64_t start = int_attr("start", 0), end = int_attr("end", rank);
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, start, rank);
      const std::vector<int64_t> kept(dims.begin() + start, dims.begin() + end);
      constants_[node_->output(0)] = int64_constant(kept, {static_cast<int64_t>(kept.size())});
      return true;
    }
    static const std::set<std::string> kFoldable = {"Gather", "Unsqueeze", "Squeeze", "Concat",
                                                    "Cast", "Slice", "Reshape", "Tile", "Mul",
                                                    "Add", "Sub", "Div", "Expand"};
    if (kFoldable.count(op) == 0 || !all_inputs_constant()) return false;
    const Constant& x = constant_input(0);
    Constant out;
    if (op == "Gather") {
      const Constant& idx = constant_input(1);
      const auto rank = static_cast<int64_t>(x.dims.size());
      int64_t axis = int_attr("axis", 0);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) bad("axis " + std::to_string(int_attr("axis", 0)) + " out of range");
      int64_t outer = 1, inner = 1;
      for (int64_t i = 0; i < axis; ++i) outer *= x.dims[static_cast<size_t>(i)];
      for (int64_t i = axis + 1; i < rank; ++i) inner *= x.dims[static_cast<size_t>(i)];
      const int64_t n = x.dims[static_cast<size_t>(axis)];
      if (outer * idx.count() * inner > kMaxFolded) bad("the gathered constant would be too large");
      std::vector<double> v;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t j = 0; j < idx.count(); ++j) {
          int64_t i = idx.int_at(j);
          if (i < 0) i += n;
          if (i < 0 || i >= n) bad("index " + std::to_string(idx.int_at(j)) + " outside dimension " + std::to_string(axis) + " of size " + std::to_string(n));
          for (int64_t e = 0; e < inner; ++e) v.push_back(x.at((o * n + i) * inner + e));
        }
      }
      std::vector<int64_t> dims(x.dims.begin(), x.dims.begin() + axis);
      dims.insert(dims.end(), idx.dims.begin(), idx.dims.end());
      dims.insert(dims.end(), x.dims.begin() + axis + 1, x.dims.end());
      out = make_constant(x.elem_type, dims, v);
    } else if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape") {
      out = x;
      out.dims = reshaped(x.dims, x.count());
      const bool negative = std::any_of(out.dims.begin(), out.dims.end(), [](int64_t d) { return d < 0; });
      if (negative || out.count() != x.count()) bad("cannot reshape constant " + shape_text(x.dims) + " to " + shape_text(out.dims));
    } else if (op == "Concat") {
      const auto rank = static_cast<int64_t>(x.dims.size());
      int64_t axis = int_attr("axis", 0);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) bad("axis out of range");
      int64_t outer = 1;
      for (int64_t i = 0; i < axis; ++i) outer *= x.dims[static_cast<size_t>(i)];
      std::vector<int64_t> dims = x.dims;
      dims[static_cast<size_t>(axis)] = 0;
      std::vector<const Constant*> parts;
      for (int k = 0; k < node_->input_size(); ++k) {
        parts.push_back(&constant_input(k));
        if (parts.back()->dims.size() != x.dims.size()) bad("inputs of different rank");
        dims[static_cast<size_t>(axis)] += parts.back()->dims[static_cast<size_t>(axis)];
      }
      std::vector<double> v;
      for (int64_t o = 0; o < outer; ++o) {
        for (const Constant* c : parts) {
          const int64_t block = c->count() / std::max<int64_t>(outer, 1);
          for (int64_t e = 0; e < block; ++e) v.push_back(c->at(o * block + e));
        }
      }
      out = make_constant(x.elem_type, dims, v);
    } else if (op == "Tile") {
      // tf2onnx tiles constants (SSD anchors) by the batch size.
      const std::vector<int64_t> repeats = ints_input(1);
      if (repeats.size() != x.dims.size()) bad("repeats do not match the input's rank");
      std::vector<int64_t> dims = x.dims;
      for (size_t i = 0; i < dims.size(); ++i) {
        if (repeats[i] < 1 || repeats[i] > kMaxFolded) bad("repeats " + shape_text(repeats) + " out of range");
        dims[i] *= repeats[i];
      }
      const int64_t count = std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
      if (count > kMaxFolded) bad("the tiled constant would hold " + std::to_string(count) + " elements");
      std::vector<double> v(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) {
        int64_t rest = i, source = 0, stride = 1;
        for (size_t d = dims.size(); d-- > 0;) {
          source += (rest % dims[d]) % x.dims[d] * stride;
          rest /= dims[d];
          stride *= x.dims[d];
        }
        v[static_cast<size_t>(i)] = x.at(source);
      }
      out = make_constant(x.elem_type, dims, v);
    } else if (op == "Expand") {
      out = expanded(x, ints_input(1));
    } else if (op == "Cast") {
      const auto to = static_cast<int32_t>(int_attr("to", ::onnx::TensorProto::FLOAT));
      if (Constant{to, {}, {}}.elem_size() == 0) bad("Cast to element type " + std::to_string(to) + " not supported; " + kFoldFirst);
      out = make_constant(to, x.dims, x.values());
    } else if (op == "Slice") {
      if (x.dims.size() != 1) bad("a Slice of a constant of rank " + std::to_string(x.dims.size()) + " is not supported (1-D shapes only); " + kFoldFirst);
      const SliceParams p = slice_params(1);
      const AxisSlice a = onnx_axis_slice(x.dims[0], p.starts.at(0), p.ends.at(0), p.steps.empty() ? 1 : p.steps[0]);
      std::vector<double> v;
      for (int64_t i = 0; i < a.count; ++i) v.push_back(x.at(a.begin + i * a.step));
      out = make_constant(x.elem_type, {a.count}, v);
    } else {  // Mul, Add, Sub, Div: a scalar against a tensor, or two of one shape
      const Constant& y = constant_input(1);
      if (x.count() != y.count() && x.count() != 1 && y.count() != 1) bad("constant operands of shapes " + shape_text(x.dims) + " and " + shape_text(y.dims) + " not supported; " + kFoldFirst);
      const bool integer = x.elem_type != ::onnx::TensorProto::FLOAT && x.elem_type != ::onnx::TensorProto::DOUBLE;
      const int64_t n = std::max(x.count(), y.count());
      std::vector<double> v;
      for (int64_t i = 0; i < n; ++i) {
        const double a = x.at(x.count() == 1 ? 0 : i), b = y.at(y.count() == 1 ? 0 : i);
        if (op == "Div" && b == 0) bad("division by zero");
        v.push_back(op == "Mul" ? a * b : op == "Add" ? a + b : op == "Sub" ? a - b
                    : integer ? std::trunc(a / b) : a / b);
      }
      out = make_constant(x.elem_type, x.count() >= y.count() ? x.dims : y.dims, v);
    }
    constants_[node_->output(0)] = out;
    return true;
  }

  // A constant broadcast to `shape` (Expand: right-aligned, either side's 1 stretched); PyTorch
  // writes an LSTM's zero initial state so, expanded to the batch size.
  Constant expanded(const Constant& x, const std::vector<int64_t>& shape) const {
    const size_t rank = std::max(x.dims.size(), shape.size());
    std::vector<int64_t> from(rank, 1), dims(rank, 1);
    std::copy(x.dims.begin(), x.dims.end(), from.begin() + static_cast<std::ptrdiff_t>(rank - x.dims.size()));
    std::copy(shape.begin(), shape.end(), dims.begin() + static_cast<std::ptrdiff_t>(rank - shape.size()));
    int64_t count = 1;
    for (size_t d = 0; d < rank; ++d) {
      if (from[d] != dims[d] && from[d] != 1 && dims[d] != 1) bad("cannot expand " + shape_text(x.dims) + " to " + shape_text(shape));
      dims[d] = std::max(from[d], dims[d]);
      if (dims[d] < 1 || dims[d] > kMaxFolded) bad("the expanded constant would be too large");
      count *= dims[d];
      if (count > kMaxFolded) bad("the expanded constant would hold more than " + std::to_string(kMaxFolded) + " elements");
    }
    std::vector<double> v(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      int64_t rest = i, source = 0, stride = 1;
      for (size_t d = rank; d-- > 0;) {
        source += (from[d] == 1 ? 0 : rest % dims[d]) * stride;
        rest /= dims[d];
        stride *= from[d];
      }
      v[static_cast<size_t>(i)] = x.at(source);
    }
    return make_constant(x.elem_type, dims, v);
  }

  // ---- data movement: Slice, Split, Gather

  struct SliceParams {
    std::vector<int64_t> starts, ends, axes, steps;
  };
  // Slice's parameters: inputs from opset 10 (they must be constants), attributes before.
  SliceParams slice_params(int first) const {
    SliceParams p;
    if (opset_ >= 10) {
      p.starts = ints_input(first);
      p.ends = ints_input(first + 1);
      if (has_input(first + 2)) p.axes = ints_input(first + 2);
      if (has_input(first + 3)) p.steps = ints_input(first + 3);
    } else {
      p.starts = ints_attr("starts");
      p.ends = ints_attr("ends");
      p.axes = ints_attr("axes");
    }
    if (p.starts.size() != p.ends.size() || (!p.axes.empty() && p.axes.size() != p.starts.size()) ||
        (!p.steps.empty() && p.steps.size() != p.starts.size())) {
      bad("starts, ends, axes and steps differ in length");
    }
    if (p.axes.empty()) {
      for (size_t i = 0; i < p.starts.size(); ++i) p.axes.push_back(static_cast<int64_t>(i));
    }
    for (int64_t step : p.steps) {
      if (step == 0) bad("a step of 0");
    }
    return p;
  }

  // The layout `perm` (see Value) with the IR dimensions `removed` taken out: the remaining ONNX
  // dimensions, renumbered, in IR order; empty where that is ONNX's order.
  static std::vector<int32_t> perm_without(const std::vector<int32_t>& perm, const std::vector<bool>& removed) {
    if (perm.empty()) return {};
    std::vector<int32_t> kept;
    for (size_t i = 0; i < perm.size(); ++i) {
      if (!removed[i]) kept.push_back(perm[i]);
    }
    std::vector<int32_t> sorted = kept;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int32_t> out;
    for (int32_t d : kept) out.push_back(static_cast<int32_t>(std::find(sorted.begin(), sorted.end(), d) - sorted.begin()));
    return is_identity(out) ? std::vector<int32_t>{} : out;
  }

  // The IR dimension holding ONNX dimension `d` of `v`.
  static size_t ir_dim(const Value& v, int64_t d) {
    if (v.perm.empty()) return static_cast<size_t>(d);
    return static_cast<size_t>(std::find(v.perm.begin(), v.perm.end(), d) - v.perm.begin());
  }
  int64_t onnx_axis(int64_t axis, int64_t rank) const {
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank) bad("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
    return a;
  }

  // STRIDED_SLICE with constant starts, ends, axes and steps; the layout is kept.
  void slice() {
    const Value x = activation(0);
    const std::vector<int64_t> xs = onnx_shape(x);
    const auto rank = static_cast<int64_t>(xs.size());
    const SliceParams p = slice_params(1);
    std::vector<AxisSlice> per(xs.size());
    for (size_t d = 0; d < xs.size(); ++d) per[d] = {0, 1, xs[d]};
    std::vector<bool> seen(xs.size(), false);
    for (size_t i = 0; i < p.axes.size(); ++i) {
      const int64_t a = onnx_axis(p.axes[i], rank);
      if (seen[static_cast<size_t>(a)]) bad("axis " + std::to_string(a) + " is listed twice");
      seen[static_cast<size_t>(a)] = true;
      per[static_cast<size_t>(a)] = onnx_axis_slice(xs[static_cast<size_t>(a)], p.starts[i], p.ends[i], p.steps.empty() ? 1 : p.steps[i]);
      if (per[static_cast<size_t>(a)].count == 0) {
        bad("the slice of dimension " + std::to_string(a) + " is empty; Mote plans no empty tensors: remove the branch from the model");
      }
    }
    std::vector<int32_t> begin, end, strides, shape;
    int32_t end_mask = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const AxisSlice& a = per[static_cast<size_t>(x.perm.empty() ? i : static_cast<size_t>(x.perm[i]))];
      const int64_t stop = a.begin + a.count * a.step;
      begin.push_back(static_cast<int32_t>(a.begin));
      // A negative step that runs through index 0 ends before it: TFLite reads -1 as the last
      // index, so the end is masked instead.
      if (stop < 0) end_mask |= 1 << i;
      end.push_back(static_cast<int32_t>(stop < 0 ? 0 : stop));
      strides.push_back(static_cast<int32_t>(a.step));
      shape.push_back(static_cast<int32_t>(a.count));
    }
    const std::string name = node_->output(0);
    const Sink s = sink(name, false);
    const int32_t b = add_int32_constant(name + "/begin", begin);
    const int32_t e = add_int32_constant(name + "/end", end);
    const int32_t st = add_int32_constant(name + "/strides", strides);
    const int32_t out = add_activation(name, shape, tensor(x.tensor).quantization);
    ir::StridedSliceOptions o;
    o.end_mask = end_mask;
    add_op(OpType::kStridedSlice, {x.tensor, b, e, st}, out, o);
    bind(s.name, {out, x.perm, {}}, s.q);
  }

  // SPLIT (equal parts) or SPLIT_V; each output keeps the input's layout.
  void split() {
    const Value x = activation(0);
    const std::vector<int64_t> xs = onnx_shape(x);
    const int64_t axis = onnx_axis(int_attr("axis", 0), static_cast<int64_t>(xs.size()));
    const int64_t dim = xs[static_cast<size_t>(axis)];
    const auto n = static_cast<int64_t>(node_->output_size());
    std::vector<int64_t> sizes = opset_ >= 13 ? (has_input(1) ? ints_input(1) : std::vector<int64_t>{}) : ints_attr("split");
    if (sizes.empty()) {
      // Equal parts; opset 18's num_outputs lets the last be smaller.
      const int64_t part = (dim + n - 1) / n;
      for (int64_t j = 0; j < n; ++j) sizes.push_back(std::min(part, dim - j * part));
    }
    if (static_cast<int64_t>(sizes.size()) != n) {
      bad("split gives " + std::to_string(sizes.size()) + " sizes for " + std::to_string(n) + " outputs");
    }
    int64_t total = 0;
    for (int64_t v : sizes) {
      if (v <= 0) bad("a part of size " + std::to_string(v) + "; Mote plans no empty tensors");
      total += v;
    }
    if (total != dim) bad("the parts add up to " + std::to_string(total) + ", dimension " + std::to_string(axis) + " has " + std::to_string(dim));
    const bool equal = std::all_of(sizes.begin(), sizes.end(), [&](int64_t v) { return v == sizes[0]; });
    const auto ir_axis = static_cast<int32_t>(ir_dim(x, axis));
    const ir::Tensor in = tensor(x.tensor);
    const std::string name = node_->output(0);
    const int32_t a = add_int32_constant(name + "/axis", {ir_axis}, std::vector<int32_t>{});
    g_.tensors[static_cast<size_t>(a)].shape.clear();  // a scalar
    std::vector<int32_t> outputs;
    for (int64_t j = 0; j < n; ++j) {
      std::vector<int32_t> shape = in.shape;
      shape[static_cast<size_t>(ir_axis)] = static_cast<int32_t>(sizes[static_cast<size_t>(j)]);
      const std::string out_name = node_->output(static_cast<int>(j)).empty() ? name + "/" + std::to_string(j) : node_->output(static_cast<int>(j));
      outputs.push_back(add_activation(out_name, shape, in.quantization));
    }
    materialize(x.tensor);
    if (equal) {
      g_.operators.push_back({OpType::kSplit, {a, x.tensor}, outputs, ir::SplitOptions{static_cast<int32_t>(n)}});
    } else {
      std::vector<int32_t> s32(sizes.begin(), sizes.end());
      const int32_t sz = add_int32_constant(name + "/sizes", s32);
      g_.operators.push_back({OpType::kSplitV, {x.tensor, sz, a}, outputs, ir::SplitOptions{static_cast<int32_t>(n)}});
    }
    for (int64_t j = 0; j < n; ++j) {
      if (node_->output(static_cast<int>(j)).empty()) continue;
      const Sink s = sink(node_->output(static_cast<int>(j)), false);
      bind(s.name, {outputs[static_cast<size_t>(j)], x.perm, {}}, s.q);
    }
  }

  // GATHER of an activation by constant indices (a channel pick, a time step).
  void gather() {
    const Value read = activation(0);
    if (constant(input_name(1)) == nullptr) {
      bad("indices computed at run time are not supported (constant indices only): make them a "
          "constant, e.g. export with the index as a Python int");
    }
    const Constant& idx = constant_input(1);
    const std::vector<int64_t> xs = onnx_shape(read);
    const int64_t axis = onnx_axis(int_attr("axis", 0), static_cast<int64_t>(xs.size()));
    const int64_t n = xs[static_cast<size_t>(axis)];
    std::vector<int32_t> indices;
    for (int64_t j = 0; j < idx.count(); ++j) {
      int64_t i = idx.int_at(j);
      if (i < 0) i += n;
      if (i < 0 || i >= n) bad("index " + std::to_string(idx.int_at(j)) + " outside dimension " + std::to_string(axis) + " of size " + std::to_string(n));
      indices.push_back(static_cast<int32_t>(i));
    }
    // One index per position keeps the layout; more dimensions of indices need ONNX's order.
    const Value x = idx.dims.size() <= 1 ? read : as_plain(read);
    const size_t at = ir_dim(x, axis);
    const ir::Tensor in = tensor(x.tensor);
    std::vector<int32_t> shape(in.shape.begin(), in.shape.begin() + static_cast<std::ptrdiff_t>(at));
    for (int64_t d : idx.dims) shape.push_back(static_cast<int32_t>(d));
    shape.insert(shape.end(), in.shape.begin() + static_cast<std::ptrdiff_t>(at) + 1, in.shape.end());
    if (shape.size() > ir::kMaxRank) bad("the result has rank " + std::to_string(shape.size()));
    std::vector<int32_t> perm;
    if (idx.dims.size() == 1) {
      perm = x.perm;
    } else if (idx.dims.empty() && !x.perm.empty()) {
      // The dimension goes: the remaining ONNX dimensions renumbered, in IR order.
      for (int32_t d : x.perm) {
        if (d != axis) perm.push_back(d > axis ? d - 1 : d);
      }
      if (is_identity(perm)) perm.clear();
    }
    std::vector<int32_t> index_shape(idx.dims.begin(), idx.dims.end());
    const std::string name = node_->output(0);
    const int32_t ind = add_int32_constant(name + "/indices", indices, index_shape.empty() ? std::vector<int32_t>{1} : index_shape);
    if (index_shape.empty()) g_.tensors[static_cast<size_t>(ind)].shape.clear();  // a scalar
    const Sink s = sink(name, false);
    const int32_t out = add_activation(name, shape, in.quantization);
    add_op(OpType::kGather, {x.tensor, ind}, out, ir::GatherOptions{static_cast<int32_t>(at), 0});
    bind(s.name, {out, perm, {}}, s.q);
  }

  // ---- Max and Min: MAXIMUM and MINIMUM compare raw values, so every operand is first
  // quantized as the output (the order of real values is kept).

  void max_min(OpType type) {
    if (node_->input_size() == 1) return identity_node();
    if (node_->input_size() != 2) {
      bad(std::to_string(node_->input_size()) + " inputs not supported (two): write it as a chain "
          "of two-input " + node_->op_type() + " nodes");
    }
    const Sink s = sink(node_->output(0), false);
    const QuantParams q = required(s, node_->output(0));
    const std::vector<int32_t> layout = common_layout();
    const size_t rank = operand_rank();
    std::vector<int32_t> inputs;
    for (int k = 0; k < 2; ++k) {
      if (!is_activation(k)) {
        inputs.push_back(binary_constant(k, Value{-1, layout}, rank, &q));
        continue;
      }
      Value v = activation(k);
      if (tensor(v.tensor).shape.size() != rank) bad("inputs of different rank not supported");
      v = relayout(v, layout, "");
      if (tensor(v.tensor).quantization != q.ir()) {
        const int32_t r = add_activation(tensor(v.tensor).name + "/requantized", tensor(v.tensor).shape, q.ir());
        add_op(OpType::kQuantize, {v.tensor}, r);
        v.tensor = r;
      }
      inputs.push_back(v.tensor);
    }
    const int32_t out = output_tensor(s, broadcast_shape(inputs, rank), q);
    add_op(type, inputs, out);
    values_[s.name] = {out, layout};
  }

  // ---- ConvTranspose: TRANSPOSE_CONV, whose padding TFLite derives from the output size (SAME)
  // or leaves at 0 (VALID); other ONNX pads are a VALID result cropped by a SLICE.

  void conv_transpose() {
    const Value x = spatial_input(0);
    const std::vector<int64_t> xs = onnx_shape(x);  // N, C, H, W (H 1 for a 1-D one)
    const QuantConstant w = quant_constant(1);
    std::vector<int64_t> wd = w.data.dims;
    if (one_d_ && wd.size() == 3) wd.insert(wd.begin() + 2, 1);
    if (wd.size() != 4) bad("weights of rank " + std::to_string(w.data.dims.size()) + " not supported");
    const int64_t ci = wd[0], co = wd[1], kh = wd[2], kw = wd[3];
    const int64_t group = int_attr("group", 1);
    if (group != 1) {
      bad("group " + std::to_string(group) + " not supported: TFLite's TRANSPOSE_CONV has no "
          "groups; export a grouped transposed convolution as one per group and a Concat");
    }
    if (ci != xs[1]) bad("weights " + shape_text(w.data.dims) + " do not match the input's " + std::to_string(xs[1]) + " channels");
    auto spatial_attr = [&](const char* attr, int64_t fallback, size_t n) {
      std::vector<int64_t> v = ints_attr(attr);
      if (v.empty()) v.assign(n, fallback);
      if (one_d_ && v.size() == n / 2) v.insert(v.begin() + (n == 4 ? 1 : 0), fallback);
      if (one_d_ && n == 4 && v.size() == 3) v.insert(v.begin(), fallback);  // pads {b, e} -> {0, b, 0, e}
      if (v.size() != n) bad(std::string(attr) + " " + shape_text(ints_attr(attr)) + " does not match the input's rank");
      return v;
    };
    const std::vector<int64_t> dilations = spatial_attr("dilations", 1, 2);
    if (dilations[0] != 1 || dilations[1] != 1) {
      bad("dilations " + shape_text(ints_attr("dilations")) + " not supported: TFLite's "
          "TRANSPOSE_CONV has no dilation; export with dilation 1");
    }
    const std::vector<int64_t> kernel = spatial_attr("kernel_shape", 0, 2);
    if ((kernel[0] != 0 && kernel[0] != kh) || (kernel[1] != 0 && kernel[1] != kw)) bad("kernel_shape does not match the weights");
    const std::vector<int64_t> strides = spatial_attr("strides", 1, 2);
    const std::vector<int64_t> extra = spatial_attr("output_padding", 0, 2);
    std::vector<int64_t> pads = spatial_attr("pads", 0, 4);
    const std::vector<int64_t> in = {xs[2], xs[3]}, k = {kh, kw};
    const std::string auto_pad = string_attr("auto_pad", "NOTSET");
    std::vector<int64_t> requested = ints_attr("output_shape");
    if (!requested.empty() && requested.size() != 2) {
      if (one_d_ && requested.size() == 1) requested.insert(requested.begin(), 1);
      else if (requested.size() == 4) requested = {requested[2], requested[3]};
      else bad("output_shape " + shape_text(ints_attr("output_shape")) + " does not match the input's rank");
    }
    std::vector<int64_t> out(2);
    for (size_t i = 0; i < 2; ++i) {
      if (strides[i] < 1 || extra[i] < 0 || extra[i] >= strides[i]) bad("strides and output_padding out of range");
      const int64_t full = (in[i] - 1) * strides[i] + k[i] + extra[i];
      if (!requested.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        const int64_t target = requested.empty() ? in[i] * strides[i] : requested[i];
        const int64_t total = full - target;
        // Runtimes disagree on which side takes an odd padding; only an even one is certain.
        if (total < 0 || total % 2 != 0) {
          bad("output size " + std::to_string(target) + " from " + (requested.empty() ? "auto_pad " + printable(auto_pad) : std::string("output_shape")) +
              " needs a padding of " + std::to_string(total) + " (odd or negative: runtimes differ on where it goes); export with explicit pads");
        }
        pads[i] = pads[i + 2] = total / 2;
      } else if (auto_pad == "VALID") {
        pads[i] = pads[i + 2] = 0;
      } else if (auto_pad != "NOTSET") {
        bad("auto_pad '" + printable(auto_pad) + "' not supported");
      }
      out[i] = full - pads[i] - pads[i + 2];
      if (pads[i] < 0 || pads[i + 2] < 0 || out[i] < 1) bad("pads " + shape_text(ints_attr("pads")) + " leave no output");
    }
    // TFLite's SAME pads a transposed convolution as the forward one from its output back.
    bool valid = true, same = true;
    for (size_t i = 0; i < 2; ++i) {
      if (pads[i] != 0) valid = false;
      if (pads[i] != ir::window_padding_before(out[i], k[i], strides[i], 1, ir::Padding::kSame)) same = false;
    }
    const bool crop = !valid && !same;
    const std::vector<int64_t> computed = crop ? std::vector<int64_t>{pads[0] + out[0], pads[1] + out[1]} : out;
    const Sink s = sink(node_->output(0));
    const QuantParams q = required(s, node_->output(0));
    const std::vector<int8_t> data = int8_weights(w, "weights");
    const std::vector<float> scales = channel_scales(w, co, 1);
    // [Ci, Co, Kh, Kw] -> [Co, Kh, Kw, Ci]
    std::vector<int8_t> laid(data.size());
    for (int64_t i = 0; i < ci; ++i)
      for (int64_t o = 0; o < co; ++o)
        for (int64_t y = 0; y < kh * kw; ++y)
          laid[static_cast<size_t>((o * kh * kw + y) * ci + i)] = data[static_cast<size_t>((i * co + o) * kh * kw + y)];
    const std::string name = node_->output(0);
    const int32_t weights = weights_tensor(name + "/weights", {static_cast<int32_t>(co), static_cast<int32_t>(kh), static_cast<int32_t>(kw), static_cast<int32_t>(ci)}, laid, scales, 0);
    const std::vector<int32_t> shape = {static_cast<int32_t>(xs[0]), static_cast<int32_t>(computed[0]), static_cast<int32_t>(computed[1]), static_cast<int32_t>(co)};
    std::vector<int32_t> inputs = {add_int32_constant(name + "/output_shape", shape), weights, x.tensor};
    if (has_input(2)) inputs.push_back(bias_tensor(2, tensor(x.tensor).quantization.scale[0], scales, name + "/bias"));
    int32_t y = add_activation(crop ? name + "/uncropped" : s.name, shape, q.ir());
    ir::TransposeConvOptions o;
    o.padding = valid ? ir::Padding::kValid : ir::Padding::kSame;
    if (crop) o.padding = ir::Padding::kValid;
    o.stride_h = static_cast<int32_t>(strides[0]);
    o.stride_w = static_cast<int32_t>(strides[1]);
    o.activation = s.activation;
    add_op(OpType::kTransposeConv, inputs, y, o);
    if (crop) {
      const std::vector<int32_t> cropped = {shape[0], static_cast<int32_t>(out[0]), static_cast<int32_t>(out[1]), shape[3]};
      const int32_t b = add_int32_constant(name + "/crop/begin", {0, static_cast<int32_t>(pads[0]), static_cast<int32_t>(pads[1]), 0});
      const int32_t sz = add_int32_constant(name + "/crop/size", cropped);
      const int32_t c = add_activation(s.name, cropped, q.ir());
      add_op(OpType::kSlice, {y, b, sz}, c);
      y = c;
    }
    values_[s.name] = windowed(y);
  }

  // ---- recurrent layers: LSTM and GRU stay float in quantized models (ONNX Runtime's
  // quantize_static leaves them so, as do PyTorch's fake-quantized exports). The node becomes
  // one MoteFloatRnn, which computes the recurrence in float32, dequantizing an int8 input and
  // quantizing each result a QuantizeLinear fixes.

  // A float weight, bias or state: a float constant, or a DequantizeLinear of one (computed here
  // as ONNX does: (q - zero point) * scale in float).
  std::vector<float> rnn_float_constant(int k, const std::string& what) const {
    const QuantConstant c = quant_constant(k);
    if (c.q.scale.empty() && c.data.elem_type != ::onnx::TensorProto::FLOAT &&
        c.data.elem_type != ::onnx::TensorProto::DOUBLE) {
      bad(what + " '" + printable(input_name(k)) + "' is an integer constant without a DequantizeLinear");
    }
    return real_values(c);
  }
  // A constant's real values in float32: a plain one's as they are, a dequantized one's as
  // DequantizeLinear computes them, (q - zero point) * scale in float.
  static std::vector<float> real_values(const QuantConstant& c) {
    const std::vector<double> values = c.data.values();
    std::vector<float> out(values.size());
    if (c.q.scale.empty()) {
      for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);
      return out;
    }
    const int64_t per = c.q.scale.size() > 1 ? inner_count(c.data.dims, c.q.axis) : 1;
    for (size_t i = 0; i < values.size(); ++i) {
      const size_t ch = c.q.scale.size() > 1 ? static_cast<size_t>((static_cast<int64_t>(i) / per) % static_cast<int64_t>(c.q.scale.size())) : 0;
      const double centered = values[i] - c.data.uint8_shift() - static_cast<double>(c.q.zero_point[ch]);
      out[i] = static_cast<float>(centered) * c.q.scale[ch];
    }
    return out;
  }

  int32_t add_float_constant(const std::string& name, const std::vector<float>& values, std::vector<int32_t> shape) {
    ir::Tensor t;
    t.name = name;
    t.type = DataType::kFloat32;
    t.shape = std::move(shape);
    t.data.resize(values.size() * 4);
    if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
    t.is_constant = true;
    return add_tensor(std::move(t));
  }

  // The sequence input or an initial state read as an activation: int8 (behind its
  // DequantizeLinear) or float32, in ONNX's order.
  int32_t rnn_activation(int k) {
    auto it = values_.find(input_name(k));
    if (it == values_.end()) bad("input " + std::to_string(k) + " '" + printable(input_name(k)) + "' is produced by no node Mote read");
    Value v = it->second.flattened_hwc.empty() ? it->second : unflatten(it->second);
    if (tensor(v.tensor).type != DataType::kInt8 && tensor(v.tensor).type != DataType::kFloat32) {
      bad("input " + std::to_string(k) + " is " + std::string(ir::to_string(tensor(v.tensor).type)) + "; expected int8 or float");
    }
    return as_plain(v).tensor;
  }

  static bool moves_data(const std::string& op) {
    return op == "Squeeze" || op == "Unsqueeze" || op == "Reshape" || op == "Flatten" ||
           op == "Transpose" || op == "Identity";
  }

  // The LSTM or GRU that reads `value` as its X through nodes that only move data (PyTorch's
  // Squeeze, or Transpose and Reshape, between stacked layers), those nodes in `chain`; -1 when
  // there is none. Shape nodes may read the values on the way (PyTorch sizes the next layer's
  // zero state so); they fold.
  int next_layer(std::string value, std::vector<int>& chain) const {
    for (;;) {
      auto it = consumers_.find(value);
      if (graph_outputs_.count(value) != 0 || it == consumers_.end()) return -1;
      int reader = -1;
      for (int k : it->second) {
        if (graph_.node(k).op_type() == "Shape") continue;
        if (reader >= 0) return -1;
        reader = k;
      }
      if (reader < 0) return -1;
      const auto& n = graph_.node(reader);
      if (!n.domain().empty() && n.domain() != "ai.onnx") return -1;
      if ((n.op_type() == "LSTM" || n.op_type() == "GRU") && n.input(0) == value) return reader;
      if (!moves_data(n.op_type()) || n.output_size() < 1) return -1;
      chain.push_back(reader);
      value = n.output(0);
    }
  }

  // The ONNX shape the data-moving node `index` gives a value of ONNX shape `shape`; `in_order`
  // turns false when it moves elements (a Transpose of two dimensions larger than 1).
  std::vector<int64_t> moved_shape(int index, const std::vector<int64_t>& shape, bool& in_order) {
    const ::onnx::NodeProto* saved = node_;
    const int saved_index = node_index_;
    node_ = &graph_.node(index);
    node_index_ = index;
    std::vector<int64_t> out = shape;
    if (node_->op_type() == "Transpose") {
      std::vector<int64_t> perm = ints_attr("perm");
      if (perm.empty()) {
        for (size_t i = 0; i < shape.size(); ++i) perm.push_back(static_cast<int64_t>(shape.size() - 1 - i));
      }
      if (perm.size() != shape.size()) bad("perm does not match the input's rank");
      int64_t last = -1;
      for (size_t j = 0; j < perm.size(); ++j) {
        if (perm[j] < 0 || perm[j] >= static_cast<int64_t>(shape.size())) bad("perm out of range");
        out[j] = shape[static_cast<size_t>(perm[j])];
        if (out[j] == 1) continue;
        in_order = in_order && perm[j] > last;
        last = perm[j];
      }
    } else if (node_->op_type() != "Identity") {
      const int64_t count = shape_elements(shape);
      out = reshaped(shape, count);
      if (shape_elements(out) != count) bad("cannot reshape " + shape_text(shape) + " to " + shape_text(out));
    }
    node_ = saved;
    node_index_ = saved_index;
    return out;
  }

  // How a result leaves the float island: quantized by the QuantizeLinear that reads it (taken
  // here), or by one after nodes that only move data (PyTorch squeezes or transposes Y before
  // its fake quantizer), which then move the int8 values and whose QuantizeLinear changes
  // nothing; float when it is a graph output. Y may also be the next stacked layer's X, in
  // float (`stacked`, the shape that layer reads; the nodes between are folded). `used`:
  // something reads it.
  struct RnnSink {
    std::optional<QuantParams> q;
    std::string name;
    bool used = false;
    std::vector<int32_t> stacked;
  };
  // `y`: Y's shape, and its bytes as the next layer's X (`as_x`, empty when they are not that).
  RnnSink rnn_sink(const std::string& output, const std::vector<int32_t>* y = nullptr,
                   const std::vector<int32_t>& as_x = {}) {
    RnnSink s;
    s.name = output;
    if (output.empty()) return s;
    const bool graph_output = graph_outputs_.count(output) != 0;
    auto it = consumers_.find(output);
    const size_t readers = it == consumers_.end() ? 0 : it->second.size();
    s.used = graph_output || readers > 0;
    if (graph_output || readers == 0) return s;
    std::vector<int> chain;
    if (const int layer = y != nullptr ? next_layer(output, chain) : -1; layer >= 0) {
      std::vector<int64_t> shape(y->begin(), y->end());
      bool in_order = true;
      for (int k : chain) shape = moved_shape(k, shape, in_order);
      const std::vector<int32_t> reached(shape.begin(), shape.end());
      if (!in_order || reached != as_x) {
        std::string why = "Y reaches the next layer, node " + std::to_string(layer) + " (" +
                          graph_.node(layer).op_type() + "), as " + shape_text(shape);
        if (!in_order) why += " through a Transpose that moves its values";
        if (as_x.empty()) {
          why += ": Mote hands float values to a stacked layer as they lie, and in layout 0 a "
                 "bidirectional layer's Y over a batch of more than one is not its input; run "
                 "batch 1, use layout 1, or quantize between the layers";
        } else {
          why += ": Mote hands float values to a stacked layer as they lie, as " + ir::shape_string(as_x);
        }
        bad(why);
      }
      for (int k : chain) consumed_[static_cast<size_t>(k)] = true;
      s.stacked = reached;
      s.name = chain.empty() ? output : graph_.node(chain.back()).output(0);
      return s;
    }
    if (readers == 1 && graph_.node(it->second[0]).op_type() == "QuantizeLinear") {
      const Sink q = sink(output, false);
      s.q = q.q;
      s.name = q.name;
      return s;
    }
    int next = readers == 1 ? it->second[0] : -1;
    while (next >= 0 && moves_data(graph_.node(next).op_type())) next = only_consumer(graph_.node(next).output(0));
    if (next < 0 || graph_.node(next).op_type() != "QuantizeLinear") {
      bad("output '" + printable(output) + "' is read in float by " + std::to_string(readers) +
          " node(s) other than a QuantizeLinear; Mote computes only the LSTM or GRU itself in "
          "float: quantize its outputs (a QuantizeLinear after each, as quantize_static or a "
          "fake quantizer writes) or make them graph outputs");
    }
    s.q = quantize_node_params(next);
    return s;
  }

  void recurrent() {
    const std::string& op = node_->op_type();
    const bool lstm = op == "LSTM";
    const int gates = lstm ? 4 : 3;
    // What the kernel does not compute, each refused with what to do instead.
    const std::vector<std::string> defaults = lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                                   : std::vector<std::string>{"Sigmoid", "Tanh"};
    const std::string direction = string_attr("direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
      bad("direction '" + printable(direction) + "' is not forward, reverse or bidirectional");
    }
    const int32_t directions = direction == "bidirectional" ? 2 : 1;
    if (const auto* a = attribute("activations")) {
      for (int i = 0; i < a->strings_size(); ++i) {
        const std::string& f = a->strings(i);
        if (static_cast<size_t>(a->strings_size()) != defaults.size() * static_cast<size_t>(directions) ||
            f != defaults[static_cast<size_t>(i) % defaults.size()]) {
          std::string given;
          for (const auto& g : a->strings()) given += (given.empty() ? "" : ", ") + printable(g);
          std::string want;
          for (const auto& g : defaults) want += (want.empty() ? "" : ", ") + g;
          bad("activations [" + given + "] not supported: Mote computes " + op +
              " with ONNX's default activations (" + want + " per direction); export the layer "
              "with them");
        }
      }
    }
    if (attribute("activation_alpha") != nullptr || attribute("activation_beta") != nullptr) {
      bad("activation_alpha and activation_beta are not supported (default activations only)");
    }
    if (attribute("clip") != nullptr) bad("clip is not supported: export the layer without a cell clip");
    if (lstm && int_attr("input_forget", 0) != 0) bad("input_forget 1 (coupled input and forget gates) is not supported");
    // Layout 1 (opset 14): the batch rows first in X, Y and the states; the kernel reads and
    // writes them so, with no transposes.
    const int64_t layout = int_attr("layout", 0);
    if (layout != 0 && layout != 1) bad("layout " + std::to_string(layout) + " is not 0 or 1");
    const bool batch_first = layout == 1;

    const int32_t x = rnn_activation(0);
    const std::vector<int32_t> xs = tensor(x).shape;
    if (xs.size() != 3) {
      bad("X has shape " + ir::shape_string(xs) + ", expected " +
          (batch_first ? "[batch_size, seq_length, input_size] (layout 1)" : "[seq_length, batch_size, input_size]"));
    }
    const int32_t steps = xs[batch_first ? 1 : 0], batches = xs[batch_first ? 0 : 1], input_size = xs[2];
    if (has_input(4)) {
      const Constant* lens = constant(node_->input(4));
      bool full = lens != nullptr && lens->count() == batches;
      for (int64_t i = 0; full && i < lens->count(); ++i) full = lens->int_at(i) == steps;
      if (!full) {
        bad("sequence_lens (input 4) is supported only as a constant equal to the sequence length "
            "(" + std::to_string(steps) + ") for every batch entry: Mote runs fixed-length "
            "sequences; remove the input or pad the sequences");
      }
    }
    const std::vector<float> w = rnn_float_constant(1, "W");
    const std::vector<float> r = rnn_float_constant(2, "R");
    const Constant& r_shape = quant_constant(2).data;
    if (r_shape.dims.size() != 3 || r_shape.dims[0] != directions || r_shape.dims[1] % gates != 0) {
      bad("R has shape " + shape_text(r_shape.dims) + ", expected [" + std::to_string(directions) + ", " + std::to_string(gates) + "*hidden_size, hidden_size]");
    }
    const int32_t hidden = static_cast<int32_t>(r_shape.dims[2]);
    if (r_shape.dims[1] != int64_t{gates} * hidden || int_attr("hidden_size", hidden) != hidden) {
      bad("hidden_size " + std::to_string(int_attr("hidden_size", hidden)) + " and R's shape " + shape_text(r_shape.dims) + " disagree");
    }
    const std::string name = node_->output(0).empty() ? (node_->name().empty() ? op : node_->name()) : node_->output(0);
    const std::vector<int32_t> state = batch_first ? std::vector<int32_t>{batches, directions, hidden}
                                                   : std::vector<int32_t>{directions, batches, hidden};
    if (w.size() != static_cast<size_t>(directions) * gates * hidden * input_size) {
      bad("W has " + std::to_string(w.size()) + " values, expected [" + std::to_string(directions) + ", " + std::to_string(gates * hidden) + ", " + std::to_string(input_size) + "]");
    }
    std::vector<int32_t> inputs = {x, add_float_constant(name + "/W", w, {directions, gates * hidden, input_size}),
                                   add_float_constant(name + "/R", r, {directions, gates * hidden, hidden})};
    if (has_input(3)) {
      const std::vector<float> b = rnn_float_constant(3, "B");
      if (b.size() != static_cast<size_t>(directions) * 2 * gates * hidden) bad("B has " + std::to_string(b.size()) + " values, expected " + std::to_string(directions * 2 * gates * hidden));
      inputs.push_back(add_float_constant(name + "/B", b, {directions, 2 * gates * hidden}));
    } else {
      inputs.push_back(ir::kNoTensor);
    }
    for (int k : lstm ? std::vector<int>{5, 6} : std::vector<int>{5}) {
      if (!has_input(k)) {
        inputs.push_back(ir::kNoTensor);
        continue;
      }
      const std::string what = k == 5 ? "initial_h" : "initial_c";
      int32_t t;
      if (values_.count(node_->input(k)) != 0) {
        t = rnn_activation(k);
      } else {
        const std::vector<float> v = rnn_float_constant(k, what);
        if (v.size() != static_cast<size_t>(directions) * batches * hidden) bad(what + " has " + std::to_string(v.size()) + " values, expected " + ir::shape_string(state));
        t = add_float_constant(name + "/" + what, v, state);
      }
      if (tensor(t).shape != state) bad(what + " has shape " + ir::shape_string(tensor(t).shape) + ", expected " + ir::shape_string(state));
      inputs.push_back(t);
    }
    const int peephole = 7;
    if (lstm && has_input(peephole)) {
      const std::vector<float> p = rnn_float_constant(peephole, "P");
      if (p.size() != static_cast<size_t>(directions) * 3 * hidden) bad("P has " + std::to_string(p.size()) + " values, expected [" + std::to_string(directions) + ", " + std::to_string(3 * hidden) + "]");
      if (inputs.size() < 6) inputs.resize(6, ir::kNoTensor);
      inputs.push_back(add_float_constant(name + "/P", p, {directions, 3 * hidden}));
    }
    while (inputs.back() == ir::kNoTensor) inputs.pop_back();

    // Outputs Y, Y_h and (LSTM) Y_c as far as the last one read; one nothing reads (a Y when
    // only the final state is used) is int8 of scale 1, the smallest buffer.
    const std::vector<int32_t> y_shape = batch_first ? std::vector<int32_t>{batches, steps, directions, hidden}
                                                     : std::vector<int32_t>{steps, directions, batches, hidden};
    // Y's bytes as a stacked layer's X (the float_rnn operator accepts that shape for Y).
    std::vector<int32_t> as_x;
    if (batch_first) {
      as_x = {batches, steps, directions * hidden};
    } else if (directions == 1 || batches == 1) {
      as_x = {steps, batches, directions * hidden};
    }
    std::vector<RnnSink> sinks;
    for (int j = 0; j < (lstm ? 3 : 2); ++j) {
      const std::string output = j < node_->output_size() ? node_->output(j) : "";
      sinks.push_back(j == 0 ? rnn_sink(output, &y_shape, as_x) : rnn_sink(output));
    }
    size_t count = sinks.size();
    while (count > 1 && !sinks[count - 1].used) --count;
    std::vector<int32_t> outputs;
    const char* const labels[] = {"Y", "Y_h", "Y_c"};
    for (size_t j = 0; j < count; ++j) {
      const RnnSink& s = sinks[j];
      const std::vector<int32_t> shape = !s.stacked.empty() ? s.stacked : j == 0 ? y_shape : state;
      const std::string out_name = s.used ? s.name : name + "/" + labels[j];
      const int32_t t = s.q ? add_activation(out_name, shape, s.q->ir())
                      : s.used ? add_activation(out_name, shape, {}, DataType::kFloat32)
                               : add_activation(out_name, shape, ir::Quantization{{1.0f}, {0}, 0});
      if (s.used) values_[s.name] = {t, {}, {}};
      outputs.push_back(t);
    }
    ir::RnnOptions o;
    o.cell = lstm ? ir::RnnCell::kLstm : ir::RnnCell::kGru;
    o.direction = direction == "forward" ? ir::RnnDirection::kForward
                  : direction == "reverse" ? ir::RnnDirection::kReverse
                                           : ir::RnnDirection::kBidirectional;
    o.linear_before_reset = !lstm && int_attr("linear_before_reset", 0) != 0;
    o.batch_first = batch_first;
    for (int32_t t : inputs) {
      if (t != ir::kNoTensor) materialize(t);
    }
    g_.operators.push_back({OpType::kFloatRnn, std::move(inputs), std::move(outputs), o});
  }

  // ---- 1-D windows: ONNX [N, C, L] is run as [N, 1, L, C] by the 2-D kernels; between windows
  // the value stays [N, L, C] (layout kNlc), so consecutive 1-D layers need no transpose.

  Value as_nhwc_1d(const Value& v) {
    if (auto it = widened_.find(v.tensor); it != widened_.end()) return {it->second, kNhwc};
    const ir::Tensor in = tensor(v.tensor);
    int32_t out;
    if (v.perm == kNlc) {
      out = add_activation(in.name + "/nhwc", {in.shape[0], 1, in.shape[1], in.shape[2]}, in.quantization, in.type);
      add_op(OpType::kReshape, {v.tensor, add_int32_constant(in.name + "/nhwc/shape", tensor(out).shape)}, out, ir::ReshapeOptions{});
    } else {
      const Value plain = as_plain(v);  // [N, C, L]
      const ir::Tensor p = tensor(plain.tensor);
      const int32_t four = add_activation(p.name + "/nchw", {p.shape[0], p.shape[1], 1, p.shape[2]}, p.quantization, p.type);
      add_op(OpType::kReshape, {plain.tensor, add_int32_constant(p.name + "/nchw/shape", tensor(four).shape)}, four, ir::ReshapeOptions{});
      out = as_nhwc({four, {}}).tensor;
    }
    widened_[v.tensor] = out;
    return {out, kNhwc};
  }

  // A window's NHWC result as the value it stands for: 4-D, or [N, L, C] after a 1-D window.
  Value windowed(int32_t out) {
    if (!one_d_) return {out, kNhwc};
    const ir::Tensor t = tensor(out);
    const int32_t narrow = add_activation(t.name + "/nlc", {t.shape[0], t.shape[2], t.shape[3]}, t.quantization, t.type);
    widened_[narrow] = out;
    narrowed_[narrow] = out;  // the reshape waits for a reader (the next window reads `out`)
    return {narrow, kNlc};
  }

  const ::onnx::ModelProto& model_;
  const ::onnx::GraphProto& graph_;
  const ImportOptions& options_;
  int64_t opset_ = 1;
  int64_t ms_opset_ = 1;
  ir::Graph g_;
  std::map<std::string, Constant> constants_;
  std::map<std::string, QuantConstant> dq_constants_;      // DequantizeLinear of a constant
  std::map<std::string, QuantConstant> pending_quantized_;  // QuantizeLinear of a float constant
  std::map<std::string, Value> values_;
  std::set<std::string> signed_inputs_;  // int8 graph inputs (their zero point defaults to int8 0)
  // uint8 graph inputs: the program's input tensor and the int8 tensor its QUANTIZE writes.
  std::vector<std::pair<int32_t, int32_t>> uint8_inputs_;
  std::map<std::string, Sink> stated_sinks_;  // a QOperator node's output quantization
  std::map<int32_t, int32_t> unflattened_;  // flattened NHWC tensor -> its ONNX-order copy
  std::map<std::pair<int32_t, std::vector<int32_t>>, int32_t> relaid_;  // (tensor, layout) -> tensor
  std::map<int32_t, int32_t> widened_;  // a 1-D value -> its [N, 1, L, C] form
  std::map<int32_t, int32_t> narrowed_;  // a 1-D value whose RESHAPE is not yet emitted -> its source
  bool one_d_ = false;  // the window being read is 1-D ([N, C, L])
  std::map<std::string, std::vector<int>> consumers_;
  std::set<std::string> graph_outputs_;
  std::vector<bool> consumed_;
  const ::onnx::NodeProto* node_ = nullptr;
  int node_index_ = -1;
  // check_model only
  bool checking_ = false;
  CheckReport report_;
  std::map<std::string, int> unavailable_;  // a value of a refused node -> the refused node
  std::vector<int> origin_;  // the node each IR operator was made for; -1: the graph's outputs
};

}  // namespace

bool looks_like_onnx(std::span<const uint8_t> bytes) {
  // Field 1 (ir_version), wire type 0: the tag byte 0x08, then a small version.
  return bytes.size() >= 2 && bytes[0] == 0x08 && bytes[1] > 0 && bytes[1] < 64;
}

namespace {

// The model as ONNX's protobuf, checked by ONNX's checker where it knows the IR and opset;
// InputError when it is not one.
::onnx::ModelProto parse(std::span<const uint8_t> bytes) {
  ::onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    fail("not a readable ONNX model (the protobuf does not parse: a truncated file, or not ONNX)");
  }
  if (!model.has_graph() || model.ir_version() <= 0) {
    fail("not an ONNX model (no ir_version or no graph)");
  }
  if (model.ir_version() <= kCheckedIrVersion && main_opset(model) <= kCheckedOpset) {
    try {
      ::onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      std::string why = e.what();
      if (const size_t line = why.find('\n'); line != std::string::npos) why.resize(line);
      fail("not a valid ONNX model (ONNX's checker: " + printable(why) + ")");
    }
  }
  return model;
}

void note_newer_version(const ::onnx::ModelProto& model, std::vector<std::string>& notes) {
  const int64_t opset = main_opset(model);
  if (model.ir_version() > kCheckedIrVersion || opset > kCheckedOpset) {
    notes.push_back("IR version " + std::to_string(model.ir_version()) + ", opset " +
                    std::to_string(opset) + ": newer than ONNX 1.12's checker knows; read " +
                    "operator by operator with the meaning each has in that opset");
  }
}

}  // namespace

ir::Graph read_model(std::span<const uint8_t> bytes, const ImportOptions& options) {
  const ::onnx::ModelProto model = parse(bytes);
  ir::Graph g = Reader(model, options).run();
  note_newer_version(model, g.notes);
  return g;
}

CheckReport check_model(std::span<const uint8_t> bytes, const ImportOptions& options) {
  const ::onnx::ModelProto model = parse(bytes);
  CheckReport report = Reader(model, options).check();
  note_newer_version(model, report.notes);
  return report;
}

bool CheckReport::compiles() const {
  if (!model.empty()) return false;
  for (const NodeVerdict& n : nodes) {
    if (!n.problem.empty()) return false;
  }
  return true;
}

}  // namespace mote::onnx
