#include "compiler/onnx/reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ir/error.h"

namespace mote::onnx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A QDQ graph written in code, as ONNX Runtime's quantize_static writes one.
class Model {
 public:
  explicit Model(int64_t opset = 13) {
    model_.set_ir_version(7);
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }

  void input(const std::string& name, std::vector<int64_t> shape, bool symbolic_batch = false) {
    value_info(model_.mutable_graph()->add_input(), name, shape, symbolic_batch);
  }
  void output(const std::string& name, std::vector<int64_t> shape) {
    value_info(model_.mutable_graph()->add_output(), name, shape, false);
  }
  // The element type of graph input or output `name` (FLOAT unless set).
  void element_type(const std::string& name, int32_t type) {
    auto* g = model_.mutable_graph();
    for (auto* list : {g->mutable_input(), g->mutable_output()}) {
      for (auto& v : *list) {
        if (v.name() == name) v.mutable_type()->mutable_tensor_type()->set_elem_type(type);
      }
    }
  }
  template <typename T>
  void constant(const std::string& name, std::vector<int64_t> dims, const std::vector<T>& values,
                int32_t type) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
  }
  void scale(const std::string& name, float s, int8_t zp) {
    constant<float>(name + "_s", {}, {s}, ::onnx::TensorProto::FLOAT);
    constant<int8_t>(name + "_z", {}, {zp}, ::onnx::TensorProto::INT8);
  }
  ::onnx::NodeProto* node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + out[0]);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return n;
  }
  // The first node of type `op`.
  ::onnx::NodeProto* first(const std::string& op) {
    for (auto& n : *model_.mutable_graph()->mutable_node()) {
      if (n.op_type() == op) return &n;
    }
    return nullptr;
  }
  // QuantizeLinear then DequantizeLinear of `x` with the quantization `q` (see scale()).
  void qdq(const std::string& x, const std::string& q, const std::string& out) {
    node("QuantizeLinear", {x, q + "_s", q + "_z"}, {out + "_q"});
    node("DequantizeLinear", {out + "_q", q + "_s", q + "_z"}, {out});
  }
  static void ints(::onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void real(::onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void text(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  static void integer(::onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }

  std::vector<uint8_t> bytes() const {
    std::string s;
    model_.SerializeToString(&s);
    return {s.begin(), s.end()};
  }

 private:
  static void value_info(::onnx::ValueInfoProto* v, const std::string& name,
                         const std::vector<int64_t>& shape, bool symbolic_batch) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::onnx::TensorProto::FLOAT);
    for (size_t i = 0; i < shape.size(); ++i) {
      auto* d = t->mutable_shape()->add_dim();
      if (i == 0 && symbolic_batch) {
        d->set_dim_param("N");
      } else {
        d->set_dim_value(shape[i]);
      }
    }
  }
  ::onnx::ModelProto model_;
};

// x [1,2,4,4] -> Conv 3x3 (3 output channels, pads 1) -> Relu -> output [1,3,4,4].
Model conv_model(bool symbolic_batch = false) {
  Model m;
  m.input("x", {1, 2, 4, 4}, symbolic_batch);
  m.output("y", {1, 3, 4, 4});
  m.scale("in", 0.05f, 0);
  m.scale("out", 0.1f, -128);
  m.qdq("x", "in", "xd");
  std::vector<int8_t> w(3 * 2 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(i);  // w[o][i][y][x] = index
  m.constant<int8_t>("w", {3, 2, 3, 3}, w, ::onnx::TensorProto::INT8);
  m.constant<float>("w_s", {3}, {0.01f, 0.02f, 0.03f}, ::onnx::TensorProto::FLOAT);
  m.constant<int8_t>("w_z", {3}, {0, 0, 0}, ::onnx::TensorProto::INT8);
  Model::integer(m.node("DequantizeLinear", {"w", "w_s", "w_z"}, {"wd"}), "axis", 0);
  m.constant<int32_t>("b", {3}, {100, -200, 300}, ::onnx::TensorProto::INT32);
  m.constant<float>("b_s", {3}, {0.05f * 0.01f, 0.05f * 0.02f, 0.05f * 0.03f}, ::onnx::TensorProto::FLOAT);
  m.constant<int32_t>("b_z", {3}, {0, 0, 0}, ::onnx::TensorProto::INT32);
  Model::integer(m.node("DequantizeLinear", {"b", "b_s", "b_z"}, {"bd"}), "axis", 0);
  auto* conv = m.node("Conv", {"xd", "wd", "bd"}, {"c"});
  Model::ints(conv, "kernel_shape", {3, 3});
  Model::ints(conv, "pads", {1, 1, 1, 1});
  m.node("Relu", {"c"}, {"r"});
  m.qdq("r", "out", "y");
  return m;
}

std::vector<ir::OpType> types(const ir::Graph& g) {
  std::vector<ir::OpType> out;
  for (const auto& op : g.operators) out.push_back(op.type);
  return out;
}

std::string error_of(const std::vector<uint8_t>& bytes, const ImportOptions& options = {}) {
  try {
    read_model(bytes, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(OnnxReader, FusesQdqConvWithReluAndReLaysWeightsForNhwc) {
  const ir::Graph g = read_model(conv_model().bytes());
  // The 2-channel NCHW input becomes NHWC by a transpose, the 3-channel output back to NCHW.
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kTranspose,
                                    ir::OpType::kConv2D, ir::OpType::kTranspose,
                                    ir::OpType::kDequantize));
  const ir::Operator& conv = g.operators[2];
  const auto& options = std::get<ir::Conv2DOptions>(conv.options);
  EXPECT_EQ(options.padding, ir::Padding::kSame);
  EXPECT_EQ(options.activation, ir::Activation::kRelu);
  const ir::Tensor& w = g.tensors[static_cast<size_t>(conv.inputs[1])];
  EXPECT_THAT(w.shape, ElementsAre(3, 3, 3, 2));  // OHWI
  // OHWI [o=1][y=2][x=0][i=1] holds ONNX's [o=1][i=1][y=2][x=0] = 18 + 9 + 6.
  EXPECT_EQ(static_cast<int8_t>(w.data[((1 * 3 + 2) * 3 + 0) * 2 + 1]), 33);
  EXPECT_THAT(w.quantization.scale, ElementsAre(0.01f, 0.02f, 0.03f));
  const ir::Tensor& b = g.tensors[static_cast<size_t>(conv.inputs[2])];
  int32_t bias[3];
  std::memcpy(bias, b.data.data(), sizeof bias);
  EXPECT_THAT(bias, ElementsAre(100, -200, 300));
  const ir::Tensor& y = g.tensors[static_cast<size_t>(conv.outputs[0])];
  EXPECT_THAT(y.shape, ElementsAre(1, 4, 4, 3));
  EXPECT_EQ(y.quantization.zero_point[0], -128);
  EXPECT_THAT(g.tensors[static_cast<size_t>(g.outputs[0])].shape, ElementsAre(1, 3, 4, 4));
  EXPECT_THAT(g.input_layouts, ElementsAre("NCHW"));
  EXPECT_THAT(g.output_layouts, ElementsAre("NCHW"));
}

TEST(OnnxReader, NhwcLayoutsLeaveOutTheTransposes) {
  ImportOptions options;
  options.input_nhwc = options.output_nhwc = true;
  const ir::Graph g = read_model(conv_model().bytes(), options);
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kConv2D,
                                    ir::OpType::kDequantize));
  EXPECT_THAT(g.tensors[static_cast<size_t>(g.inputs[0])].shape, ElementsAre(1, 4, 4, 2));
  EXPECT_THAT(g.input_layouts, ElementsAre("NHWC"));
  EXPECT_THAT(g.output_layouts, ElementsAre("NHWC"));
}

TEST(OnnxReader, DynamicShapesNeedInputShape) {
  EXPECT_THAT(error_of(conv_model(true).bytes()),
              HasSubstr("graph input 'x' has a dynamic shape [-1,2,4,4]"));
  EXPECT_THAT(error_of(conv_model(true).bytes()), HasSubstr("--input-shape x=1,2,4,4"));
  ImportOptions options;
  options.input_shapes = {{"x", {1, 2, 4, 4}}};
  EXPECT_EQ(error_of(conv_model(true).bytes(), options), "accepted");
}

// conv_model with a second graph output "anchors" [1,2,1,3]: the DequantizeLinear of uint8
// constants (scale 0.5, zero point 130), depending on no input.
Model anchors_model() {
  Model m = conv_model();
  m.output("anchors", {1, 2, 1, 3});
  m.constant<uint8_t>("a", {1, 2, 1, 3}, {0, 1, 2, 128, 130, 255}, ::onnx::TensorProto::UINT8);
  m.constant<float>("a_s", {}, {0.5f}, ::onnx::TensorProto::FLOAT);
  m.constant<uint8_t>("a_z", {}, {130}, ::onnx::TensorProto::UINT8);
  m.node("DequantizeLinear", {"a", "a_s", "a_z"}, {"anchors"});
  return m;
}

TEST(OnnxReader, AConstantOutputIsDequantizedFromInt8Constants) {
  for (const bool nhwc : {false, true}) {
    ImportOptions options;
    options.output_nhwc = nhwc;
    const ir::Graph g = read_model(anchors_model().bytes(), options);
    ASSERT_EQ(g.outputs.size(), 2u);
    // The last operator: DEQUANTIZE of a constant, so the output's life starts at the end.
    const ir::Operator& last = g.operators.back();
    EXPECT_EQ(last.type, ir::OpType::kDequantize);
    EXPECT_EQ(last.outputs[0], g.outputs[1]);
    const ir::Tensor& q = g.tensors[static_cast<size_t>(last.inputs[0])];
    EXPECT_TRUE(q.is_constant);
    EXPECT_EQ(q.type, ir::DataType::kInt8);
    // int8 q = uint8 q - 128 (the top bit flipped), the zero point too: the same real values.
    EXPECT_THAT(q.quantization.scale, ElementsAre(0.5f));
    EXPECT_THAT(q.quantization.zero_point, ElementsAre(2));
    std::vector<int8_t> values(q.data.size());
    std::memcpy(values.data(), q.data.data(), values.size());
    if (nhwc) {  // [1,1,3,2]: channel last
      EXPECT_THAT(q.shape, ElementsAre(1, 1, 3, 2));
      EXPECT_THAT(values, ElementsAre(-128, 0, -127, 2, -126, 127));
    } else {
      EXPECT_THAT(q.shape, ElementsAre(1, 2, 1, 3));
      EXPECT_THAT(values, ElementsAre(-128, -127, -126, 0, 2, 127));
    }
    EXPECT_EQ(g.output_layouts[1], nhwc ? "NHWC" : "NCHW");
    const ir::Tensor& out = g.tensors[static_cast<size_t>(g.outputs[1])];
    EXPECT_EQ(out.type, ir::DataType::kFloat32);
    EXPECT_FALSE(out.is_constant);
  }
}

TEST(OnnxReader, RefusesConstantOutputsItCannotDequantize) {
  Model f = conv_model();  // a float constant output
  f.output("anchors", {3});
  f.constant<float>("a", {3}, {1, 2, 3}, ::onnx::TensorProto::FLOAT);
  f.node("Identity", {"a"}, {"anchors"});
  EXPECT_THAT(error_of(f.bytes()),
              HasSubstr("graph output 'anchors' is a constant (it depends on no input) that is "
                        "not the float DequantizeLinear of int8 or uint8 values"));
  Model p = conv_model();  // dequantized per axis
  p.output("anchors", {2, 1});
  p.constant<int8_t>("a", {2, 1}, {1, 2}, ::onnx::TensorProto::INT8);
  p.constant<float>("a_s", {2}, {0.5f, 0.25f}, ::onnx::TensorProto::FLOAT);
  p.constant<int8_t>("a_z", {2}, {0, 0}, ::onnx::TensorProto::INT8);
  Model::integer(p.node("DequantizeLinear", {"a", "a_s", "a_z"}, {"anchors"}), "axis", 0);
  EXPECT_THAT(error_of(p.bytes()), HasSubstr("graph output 'anchors' is a constant dequantized "
                                             "per axis"));
}

// x -> Q/DQ -> Sigmoid -> Q (scale 1/200, zero point -100) / DQ -> y.
Model sigmoid_model() {
  Model m;
  m.input("x", {1, 4});
  m.output("y", {1, 4});
  m.scale("in", 0.1f, -3);
  m.scale("out", 1.0f / 200, -100);
  m.qdq("x", "in", "xd");
  m.node("Sigmoid", {"xd"}, {"s"});
  m.qdq("s", "out", "y");
  return m;
}

TEST(OnnxReader, SigmoidTakesTheQuantizeLinearsParametersOrTflitesWithTfliteRounding) {
  // Rounding once (ONNX's): one LOGISTIC (its table, lowered later) straight to 1/200 and -100.
  const ir::Graph g = read_model(sigmoid_model().bytes());
  EXPECT_TRUE(g.round_once);
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kLogistic,
                                    ir::OpType::kDequantize));
  const ir::Tensor& s = g.tensors[static_cast<size_t>(g.operators[1].outputs[0])];
  EXPECT_THAT(s.quantization.scale, ElementsAre(1.0f / 200));
  EXPECT_THAT(s.quantization.zero_point, ElementsAre(-100));
  // --rounding tflite: TFLite's integer kernel at 1/256 and -128, then a requantization.
  ImportOptions tflite;
  tflite.tflite_rounding = true;
  const ir::Graph t = read_model(sigmoid_model().bytes(), tflite);
  EXPECT_FALSE(t.round_once);
  EXPECT_THAT(types(t), ElementsAre(ir::OpType::kQuantize, ir::OpType::kLogistic,
                                    ir::OpType::kQuantize, ir::OpType::kDequantize));
  EXPECT_THAT(t.tensors[static_cast<size_t>(t.operators[1].outputs[0])].quantization.scale,
              ElementsAre(1.0f / 256));
}

// MobileNetV3's squeeze-excite: x * HardSigmoid(s), s another value (here a second input), the
// gate quantized on its own: a MoteTableLookup with the node's alpha and beta, then MUL.
TEST(OnnxReader, AHardSigmoidGateIsATableLookup) {
  Model m;
  m.input("x", {1, 4});
  m.input("s", {1, 4});
  m.output("y", {1, 4});
  m.scale("in", 0.1f, -3);
  m.scale("gate", 1.0f / 255, -128);
  m.qdq("x", "in", "xd");
  m.qdq("s", "in", "sd");
  auto* gate = m.node("HardSigmoid", {"sd"}, {"h"});
  Model::real(gate, "alpha", 1.0f / 6);
  Model::real(gate, "beta", 0.5f);
  m.qdq("h", "gate", "hd");
  m.node("Mul", {"xd", "hd"}, {"p"});
  m.qdq("p", "in", "y");
  const ir::Graph g = read_model(m.bytes());
  const auto t = types(g);
  const auto lookup = std::find(t.begin(), t.end(), ir::OpType::kTableLookup);
  ASSERT_NE(lookup, t.end());
  EXPECT_EQ(std::count(t.begin(), t.end(), ir::OpType::kHardSwish), 0);
  EXPECT_EQ(*(lookup + 1), ir::OpType::kMul);
  const ir::Operator& op = g.operators[static_cast<size_t>(lookup - t.begin())];
  const auto& o = std::get<ir::TableLookupOptions>(op.options);
  EXPECT_EQ(o.function, ir::ElementFunction::kHardSigmoid);
  EXPECT_FLOAT_EQ(o.alpha, 1.0f / 6);
  EXPECT_EQ(o.beta, 0.5f);
  const ir::Tensor& h = g.tensors[static_cast<size_t>(op.outputs[0])];
  EXPECT_THAT(h.quantization.scale, ElementsAre(1.0f / 255));
  EXPECT_THAT(h.quantization.zero_point, ElementsAre(-128));
}

// x -> Q/DQ -> `op` -> Q/DQ -> y; without `quantized_output`, `op` writes y.
Model unary_model(const std::string& op, int64_t opset = 13, bool quantized_output = true) {
  Model m(opset);
  m.input("x", {1, 4});
  m.output("y", {1, 4});
  m.scale("q", 0.1f, 0);
  m.qdq("x", "q", "xd");
  m.node(op, {"xd"}, {quantized_output ? "f" : "y"});
  if (quantized_output) m.qdq("f", "q", "y");
  return m;
}

TEST(OnnxReader, ElementwiseFunctionsAreTablesWithTheirAttributes) {
  auto options_of = [](const Model& m) {
    const ir::Graph g = read_model(m.bytes());
    EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kTableLookup,
                                      ir::OpType::kDequantize));
    return std::get<ir::TableLookupOptions>(g.operators.at(1).options);
  };
  EXPECT_EQ(options_of(unary_model("Erf")).function, ir::ElementFunction::kErf);
  const ir::TableLookupOptions elu = options_of(unary_model("Elu"));  // the default alpha
  EXPECT_EQ(elu.function, ir::ElementFunction::kElu);
  EXPECT_EQ(elu.alpha, 1.0f);
  Model selu = unary_model("Selu");
  Model::real(selu.first("Selu"), "gamma", 2.0f);
  EXPECT_EQ(options_of(selu).beta, 2.0f);
  EXPECT_FLOAT_EQ(options_of(selu).alpha, 1.67326319217681884765625f);
  // Gelu (opset 20): exact, or the tanh approximation.
  EXPECT_EQ(options_of(unary_model("Gelu", 20)).function, ir::ElementFunction::kGelu);
  Model tanh_gelu = unary_model("Gelu", 20);
  Model::text(tanh_gelu.first("Gelu"), "approximate", "tanh");
  EXPECT_EQ(options_of(tanh_gelu).function, ir::ElementFunction::kGeluTanh);
  Model cubic_gelu = unary_model("Gelu", 20);
  Model::text(cubic_gelu.first("Gelu"), "approximate", "cubic");
  EXPECT_THAT(error_of(cubic_gelu.bytes()), HasSubstr("approximate 'cubic' not supported"));
  // The function's result must be quantized.
  EXPECT_THAT(error_of(unary_model("Exp", 13, false).bytes()), HasSubstr("output 'y' is not quantized"));
}

// DepthToSpace: DCR is DEPTH_TO_SPACE on NHWC; CRD gathers the channels into DCR order first.
TEST(OnnxReader, DepthToSpaceOrdersAndRefusals) {
  auto model = [](int64_t block, const std::string& mode, int64_t channels = 8) {
    Model m;
    m.input("x", {1, channels, 2, 2});
    m.output("y", {1, channels / 4, 4, 4});
    m.scale("q", 0.1f, 0);
    m.qdq("x", "q", "xd");
    auto* n = m.node("DepthToSpace", {"xd"}, {"d"});
    Model::integer(n, "blocksize", block);
    if (!mode.empty()) Model::text(n, "mode", mode);
    m.qdq("d", "q", "y");
    return m;
  };
  const std::vector<ir::OpType> dcr = types(read_model(model(2, "").bytes()));
  EXPECT_EQ(std::count(dcr.begin(), dcr.end(), ir::OpType::kDepthToSpace), 1);
  EXPECT_EQ(std::count(dcr.begin(), dcr.end(), ir::OpType::kGather), 0);
  const ir::Graph crd = read_model(model(2, "CRD").bytes());
  const auto t = types(crd);
  const auto gather = std::find(t.begin(), t.end(), ir::OpType::kGather);
  ASSERT_NE(gather, t.end());
  EXPECT_EQ(*(gather + 1), ir::OpType::kDepthToSpace);
  // DCR channel (i * 2 + j) * 2 + d holds CRD channel d * 4 + i * 2 + j.
  const ir::Operator& g = crd.operators[static_cast<size_t>(gather - t.begin())];
  const ir::Tensor& order = crd.tensors[static_cast<size_t>(g.inputs[1])];
  std::vector<int32_t> channels(8);
  std::memcpy(channels.data(), order.data.data(), 32);
  EXPECT_THAT(channels, ElementsAre(0, 4, 1, 5, 2, 6, 3, 7));
  EXPECT_THAT(error_of(model(2, "XYZ").bytes()), HasSubstr("mode 'XYZ' not supported"));
  EXPECT_THAT(error_of(model(2, "", 6).bytes()), HasSubstr("channels 6 not divisible by blocksize squared"));
}

// A uint8 graph input and output stay uint8 in the program, as the model declares them: a
// QUANTIZE moves each to or from the int8 the operators compute on (zero point -128 / +128).
TEST(OnnxReader, Uint8InputsAndOutputsKeepTheirType) {
  Model m;
  m.input("x", {1, 4});
  m.output("y", {1, 4});
  m.element_type("x", ::onnx::TensorProto::UINT8);
  m.element_type("y", ::onnx::TensorProto::UINT8);
  m.constant<float>("s", {}, {0.1f}, ::onnx::TensorProto::FLOAT);
  m.constant<uint8_t>("z", {}, {130}, ::onnx::TensorProto::UINT8);
  m.constant<uint8_t>("yz", {}, {7}, ::onnx::TensorProto::UINT8);
  m.node("DequantizeLinear", {"x", "s", "z"}, {"xd"});
  m.node("Relu", {"xd"}, {"r"});
  m.node("QuantizeLinear", {"r", "s", "yz"}, {"y"});
  const ir::Graph g = read_model(m.bytes());
  // The Relu moves the zero point (130 to 7): a table of its clamp (it requantizes).
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kTableLookup, ir::OpType::kQuantize));
  const ir::Tensor& in = g.tensors[static_cast<size_t>(g.inputs.at(0))];
  EXPECT_EQ(in.type, ir::DataType::kUInt8);
  EXPECT_EQ(in.name, "x");
  EXPECT_THAT(in.quantization.zero_point, ElementsAre(130));
  const ir::Tensor& read = g.tensors[static_cast<size_t>(g.operators[0].outputs[0])];
  EXPECT_EQ(read.type, ir::DataType::kInt8);
  EXPECT_THAT(read.quantization.zero_point, ElementsAre(2));
  const ir::Tensor& out = g.tensors[static_cast<size_t>(g.outputs.at(0))];
  EXPECT_EQ(out.type, ir::DataType::kUInt8);
  EXPECT_EQ(out.name, "y");
  EXPECT_THAT(out.quantization.zero_point, ElementsAre(7));
  EXPECT_EQ(g.operators.back().outputs[0], g.outputs[0]);
  // A uint8 input no DequantizeLinear reads has no quantization to take.
  Model unread;
  unread.input("x", {1, 4});
  unread.input("u", {1, 4});
  unread.output("y", {1, 4});
  unread.element_type("u", ::onnx::TensorProto::UINT8);
  unread.scale("q", 0.1f, 0);
  unread.qdq("x", "q", "y");
  EXPECT_THAT(error_of(unread.bytes()), HasSubstr("graph input 'u' is uint8 but no DequantizeLinear reads it"));
}

// Fuzzer findings: hostile shapes and axes are refused with a reason, never read past a buffer
// or overflow.
TEST(OnnxReader, RefusesShapesAxesPermsAndPadsThatDoNotFit) {
  auto reshaped_to = [](const std::vector<int64_t>& shape) {
    Model m = conv_model();
    m.constant<int64_t>("shape", {static_cast<int64_t>(shape.size())}, shape, ::onnx::TensorProto::INT64);
    m.node("Reshape", {"y", "shape"}, {"flat"});
    m.qdq("flat", "out", "z");
    m.output("z", {48});
    return error_of(m.bytes());
  };
  EXPECT_THAT(reshaped_to({-3242591731706757114, 12}), HasSubstr("is not valid"));
  EXPECT_THAT(reshaped_to({-1, -1}), HasSubstr("is not valid"));
  EXPECT_THAT(reshaped_to({int64_t{1} << 40, -1}), HasSubstr("is not valid"));
  // Each size fits, their product overflows int64.
  EXPECT_THAT(reshaped_to({2147483647, 2147483647, 2147483647}), HasSubstr("cannot reshape"));

  auto concatenated = [](int64_t axis, bool other_width) {
    Model m = conv_model();
    std::string second = "y";
    if (other_width) {
      auto* pool = m.node("MaxPool", {"y"}, {"pooled"});
      Model::ints(pool, "kernel_shape", {2, 2});
      Model::ints(pool, "strides", {2, 2});
      m.qdq("pooled", "out", "pd");
      second = "pd";
    }
    Model::integer(m.node("Concat", {"y", second}, {"cat"}), "axis", axis);
    m.qdq("cat", "out", "z");
    m.output("z", {1, 6, 4, 4});
    return error_of(m.bytes());
  };
  EXPECT_THAT(concatenated(5, false), HasSubstr("axis 5 out of range for rank 4"));
  EXPECT_THAT(concatenated(-5, false), HasSubstr("axis -5 out of range for rank 4"));
  EXPECT_THAT(concatenated(1, true), HasSubstr("inputs differ outside the concatenated axis"));

  auto transposed = [](const std::vector<int64_t>& perm) {
    Model m = conv_model();
    Model::ints(m.node("Transpose", {"y"}, {"t"}), "perm", perm);
    m.qdq("t", "out", "z");
    m.output("z", {1, 4, 4, 3});
    return error_of(m.bytes());
  };
  EXPECT_EQ(transposed({0, 2, 3, 1}), "accepted");

  Model padded = conv_model();
  padded.constant<int64_t>("pads", {8}, {0, 0, 8247343261459415040, 0, 0, 0, 3760892053045732211, 0},
                           ::onnx::TensorProto::INT64);
  padded.node("Pad", {"y", "pads"}, {"p"});
  padded.qdq("p", "out", "z");
  padded.output("z", {1, 3, 4, 4});
  EXPECT_THAT(error_of(padded.bytes()), HasSubstr("out of range"));
  EXPECT_THAT(transposed({0, 2, 3, 7}), HasSubstr("perm [0,2,3,7] is not a permutation"));
  EXPECT_THAT(transposed({0, 2, 2, 1}), HasSubstr("perm [0,2,2,1] is not a permutation"));
}

// A fuzzer finding: a Resize's scales giving no size Mote can hold are refused, not converted.
TEST(OnnxReader, RefusesResizeScalesOutOfRange) {
  auto resized_by = [](float scale) {
    Model m = conv_model();
    m.constant<float>("roi", {0}, {}, ::onnx::TensorProto::FLOAT);
    m.constant<float>("scales", {4}, {1, 1, scale, 1}, ::onnx::TensorProto::FLOAT);
    m.node("Resize", {"y", "roi", "scales"}, {"big"});
    m.qdq("big", "out", "z");
    m.output("z", {1, 3, 8, 4});
    return error_of(m.bytes());
  };
  EXPECT_EQ(resized_by(2), "accepted");
  EXPECT_THAT(resized_by(1e30f), HasSubstr("output size [1,3,1000000000,4] not supported"));
  EXPECT_THAT(resized_by(-2), HasSubstr("output size [1,3,0,4] not supported"));
  EXPECT_THAT(resized_by(NAN), HasSubstr("output size [1,3,0,4] not supported"));
}

// Fuzzer findings: a NaN in a float constant quantized in the graph is the lowest int8, as
// ONNX Runtime's QuantizeLinear gives it; a scale float32 cannot hold is refused.
TEST(OnnxReader, NonFiniteConstantsAndScales) {
  Model m;
  m.input("x", {1, 4});
  m.output("y", {1, 4});
  m.scale("q", 0.1f, 0);
  m.qdq("x", "q", "xd");
  m.constant<float>("c", {1, 4}, {NAN, 0.1f, -0.2f, 0.3f}, ::onnx::TensorProto::FLOAT);
  m.qdq("c", "q", "cd");
  m.node("Add", {"xd", "cd"}, {"sum"});
  m.qdq("sum", "q", "y");
  const ir::Graph g = read_model(m.bytes());
  const auto add = std::find_if(g.operators.begin(), g.operators.end(),
                                [](const ir::Operator& op) { return op.type == ir::OpType::kAdd; });
  ASSERT_NE(add, g.operators.end());
  const ir::Tensor& c = g.tensors[static_cast<size_t>(add->inputs[1])];
  ASSERT_TRUE(c.is_constant);
  ASSERT_EQ(c.data.size(), 4u);
  EXPECT_THAT(std::vector<int8_t>(c.data.begin(), c.data.end()), ElementsAre(-128, 1, -2, 3));

  // A shape whose element count overflows int64 (opset 18: past ONNX 1.12's checker).
  Model vast(18);
  vast.input("x", {1, 4});
  vast.output("y", {1, 4});
  vast.scale("q", 0.1f, 0);
  vast.qdq("x", "q", "xd");
  vast.constant<int8_t>("c", {int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31}, {}, ::onnx::TensorProto::INT8);
  vast.node("Add", {"xd", "c"}, {"y"});
  EXPECT_THAT(error_of(vast.bytes()), HasSubstr("too many elements"));

  Model huge;
  huge.input("x", {1, 4});
  huge.output("y", {1, 4});
  huge.constant<double>("q_s", {}, {1e300}, ::onnx::TensorProto::DOUBLE);
  huge.constant<int8_t>("q_z", {}, {0}, ::onnx::TensorProto::INT8);
  huge.qdq("x", "q", "y");
  EXPECT_THAT(error_of(huge.bytes()), HasSubstr("must be positive and finite in float32"));
}

// Folded integer arithmetic wraps as ONNX's integer operators do (100 + 100 in int8 is -56):
// the value an int8 constant output then holds.
TEST(OnnxReader, FoldedIntegerArithmeticWraps) {
  Model m = conv_model();
  m.output("anchors", {2});
  m.constant<int8_t>("a", {2}, {100, -100}, ::onnx::TensorProto::INT8);
  m.node("Add", {"a", "a"}, {"twice"});
  m.constant<float>("a_s", {}, {0.5f}, ::onnx::TensorProto::FLOAT);
  m.constant<int8_t>("a_z", {}, {0}, ::onnx::TensorProto::INT8);
  m.node("DequantizeLinear", {"twice", "a_s", "a_z"}, {"anchors"});
  const ir::Graph g = read_model(m.bytes());
  const ir::Tensor& q = g.tensors[static_cast<size_t>(g.operators.back().inputs[0])];
  ASSERT_TRUE(q.is_constant);
  ASSERT_EQ(q.data.size(), 2u);
  EXPECT_EQ(static_cast<int8_t>(q.data[0]), -56);
  EXPECT_EQ(static_cast<int8_t>(q.data[1]), 56);
}

// ReduceSum is SUM (its axes an input from opset 13); its sum must be quantized; detection
// post-processing is refused with what to do.
TEST(OnnxReader, ReduceSumAndPostProcessing) {
  Model m = conv_model();
  m.constant<int64_t>("axes", {1}, {1}, ::onnx::TensorProto::INT64);
  m.node("ReduceSum", {"y", "axes"}, {"sum"});
  m.qdq("sum", "out", "z");
  m.output("z", {1, 1, 4, 4});
  const std::vector<ir::OpType> t = types(read_model(m.bytes()));
  EXPECT_EQ(std::count(t.begin(), t.end(), ir::OpType::kSum), 1);
  Model unquantized = conv_model();
  unquantized.constant<int64_t>("axes", {1}, {1}, ::onnx::TensorProto::INT64);
  unquantized.node("ReduceSum", {"y", "axes"}, {"z"});
  unquantized.output("z", {1, 1, 4, 4});
  EXPECT_THAT(error_of(unquantized.bytes()), HasSubstr("output 'z' is not quantized"));
  Model nms = conv_model();
  nms.node("TopK", {"y", "axes"}, {"values", "indices"});
  nms.constant<int64_t>("axes", {1}, {2}, ::onnx::TensorProto::INT64);
  nms.output("values", {1, 3, 4, 2});
  EXPECT_THAT(error_of(nms.bytes()), HasSubstr("detection post-processing is not supported: export "
                                               "the model up to its raw boxes and scores (before TopK)"));
}

// A Relu or Clip on its own: RELU where the quantization stays (nothing rounds); rounding once,
// one that requantizes, or a Clip of other bounds, is a table of the clamp (rounding half to
// even as ONNX's QuantizeLinear); with TFLite's rounding, RELU requantizing, other Clips refused.
TEST(OnnxReader, ARequantizingReluOrAnyClipIsATableOfTheClamp) {
  auto model = [](const std::string& op, float out_scale, float lo = 0, float hi = 6) {
    Model m = conv_model();
    m.scale("act", out_scale, -128);
    if (op == "Clip") {
      m.constant<float>("lo", {}, {lo}, ::onnx::TensorProto::FLOAT);
      m.constant<float>("hi", {}, {hi}, ::onnx::TensorProto::FLOAT);
      m.node("Clip", {"y", "lo", "hi"}, {"r2"});
    } else {
      m.node("Relu", {"y"}, {"r2"});
    }
    m.qdq("r2", "act", "z");
    m.output("z", {1, 3, 4, 4});
    return m;
  };
  auto clip_of = [](const ir::Graph& g) {
    for (const auto& op : g.operators) {
      if (op.type == ir::OpType::kTableLookup) return std::get<ir::TableLookupOptions>(op.options);
    }
    throw std::runtime_error("no table");
  };
  constexpr float kMax = std::numeric_limits<float>::max();
  // conv_model's 'y' is quantized at 0.1 and -128: the same keeps RELU.
  EXPECT_THAT(types(read_model(model("Relu", 0.1f).bytes())), ::testing::Contains(ir::OpType::kRelu));
  EXPECT_EQ(clip_of(read_model(model("Relu", 0.08f).bytes())),
            (ir::TableLookupOptions{ir::ElementFunction::kClip, 0, kMax}));
  EXPECT_EQ(clip_of(read_model(model("Clip", 0.1f, -1, 1).bytes())),
            (ir::TableLookupOptions{ir::ElementFunction::kClip, -1, 1}));
  ImportOptions tflite;
  tflite.tflite_rounding = true;
  EXPECT_THAT(types(read_model(model("Relu", 0.08f).bytes(), tflite)), ::testing::Contains(ir::OpType::kRelu));
  EXPECT_THAT(error_of(model("Clip", 0.1f, -1, 1).bytes(), tflite),
              HasSubstr("only Relu and Clip(0, 6) are supported here"));
}

// Arithmetic with a constant of one value (PyTorch's x * 0.5, x / 6: a plain float) is a table
// of ONNX's float32 arithmetic, whichever side the constant is on.
TEST(OnnxReader, ArithmeticWithAConstantOfOneValueIsATable) {
  auto model = [](const std::string& op, bool constant_first, std::vector<float> c = {0.5f}) {
    Model m = conv_model();
    m.constant<float>("k", {static_cast<int64_t>(c.size()), 1, 1}, c, ::onnx::TensorProto::FLOAT);
    m.node(op, constant_first ? std::vector<std::string>{"k", "y"} : std::vector<std::string>{"y", "k"},
           {"ar"});
    m.qdq("ar", "out", "z");
    m.output("z", {1, 3, 4, 4});
    return m;
  };
  auto table = [](const Model& m) {
    const ir::Graph g = read_model(m.bytes());
    for (const auto& op : g.operators) {
      if (op.type == ir::OpType::kTableLookup) return std::get<ir::TableLookupOptions>(op.options);
    }
    throw std::runtime_error("no table");
  };
  using F = ir::ElementFunction;
  EXPECT_EQ(table(model("Mul", true)), (ir::TableLookupOptions{F::kMulConstant, 0.5f, 0}));
  EXPECT_EQ(table(model("Add", false)), (ir::TableLookupOptions{F::kAddConstant, 0.5f, 0}));
  EXPECT_EQ(table(model("Sub", false)), (ir::TableLookupOptions{F::kAddConstant, -0.5f, 0}));
  EXPECT_EQ(table(model("Sub", true)), (ir::TableLookupOptions{F::kConstantSub, 0.5f, 0}));
  EXPECT_EQ(table(model("Div", false)), (ir::TableLookupOptions{F::kDivByConstant, 0.5f, 0}));
  EXPECT_EQ(table(model("Div", true)), (ir::TableLookupOptions{F::kConstantDivBy, 0.5f, 0}));
  EXPECT_EQ(table(model("Pow", false, {2.0f, 2.0f, 2.0f})),
            (ir::TableLookupOptions{F::kPowConstant, 2.0f, 0}));
  EXPECT_THAT(error_of(model("Pow", true).bytes()), HasSubstr("Pow of a constant base not supported"));
  // A constant of several values is no function of the value alone.
  EXPECT_THAT(error_of(model("Mul", false, {0.5f, 1.0f, 2.0f}).bytes()),
              HasSubstr("input 1 must be a per-tensor quantized constant"));
  EXPECT_THAT(error_of(model("Div", false, {0.5f, 1.0f, 2.0f}).bytes()),
              HasSubstr("supported only with an int8 value and a constant of one value"));
}

// ArgMax (a segmentation head's class map) is ARG_MAX of the int8 values with int64 indices, as
// ONNX declares them; the indices never need a transpose (an int64 one Mote does not have).
TEST(OnnxReader, ArgMaxGivesInt64IndicesWithoutTransposingThem) {
  auto model = [](int64_t axis, int64_t keepdims, std::vector<int64_t> shape, int64_t last = 0) {
    Model m = conv_model();
    auto* n = m.node("ArgMax", {"y"}, {"z"});
    Model::integer(n, "axis", axis);
    Model::integer(n, "keepdims", keepdims);
    if (last != 0) Model::integer(n, "select_last_index", last);
    m.output("z", std::move(shape));
    m.element_type("z", ::onnx::TensorProto::INT64);
    return m;
  };
  auto arg_max = [](const ir::Graph& g) -> const ir::Operator& {
    for (const auto& op : g.operators) {
      if (op.type == ir::OpType::kArgMax) return op;
    }
    throw std::runtime_error("no ARG_MAX");
  };
  auto axis_of = [](const ir::Graph& g, const ir::Operator& op) {
    int32_t axis = -1;
    std::memcpy(&axis, g.tensors[op.inputs[1]].data.data(), 4);
    return axis;
  };
  auto transposes_int8_only = [](const ir::Graph& g) {
    for (const auto& op : g.operators) {
      if (op.type == ir::OpType::kTranspose && g.tensors[op.inputs[0]].type != ir::DataType::kInt8) {
        return false;
      }
    }
    return true;
  };
  // (conv_model's float output 'y' comes first; 'z' is the last output.)
  // Over the channels, keepdims: ARG_MAX along NHWC's last axis, [1,4,4] -> [1,4,4,1] -> the
  // NCHW output [1,1,4,4] by free reshapes.
  const ir::Graph channels = read_model(model(1, 1, {1, 1, 4, 4}).bytes());
  const ir::Operator& a = arg_max(channels);
  EXPECT_EQ(axis_of(channels, a), 3);
  EXPECT_EQ(channels.tensors[a.outputs[0]].type, ir::DataType::kInt64);
  EXPECT_EQ(channels.tensors[a.outputs[0]].shape, (std::vector<int32_t>{1, 4, 4}));
  const ir::Tensor& out = channels.tensors[channels.outputs.back()];
  EXPECT_EQ(out.type, ir::DataType::kInt64);
  EXPECT_EQ(out.shape, (std::vector<int32_t>{1, 1, 4, 4}));
  EXPECT_TRUE(transposes_int8_only(channels));
  // Over the width, no keepdims: the int8 logits are laid out in ONNX's order first.
  const ir::Graph width = read_model(model(-1, 0, {1, 3, 4}).bytes());
  const ir::Operator& w = arg_max(width);
  EXPECT_EQ(width.tensors[w.inputs[0]].shape, (std::vector<int32_t>{1, 3, 4, 4}));
  EXPECT_EQ(axis_of(width, w), 3);
  EXPECT_EQ(width.tensors[width.outputs.back()].shape, (std::vector<int32_t>{1, 3, 4}));
  EXPECT_TRUE(transposes_int8_only(width));
  EXPECT_THAT(error_of(model(1, 1, {1, 1, 4, 4}, 1).bytes()),
              HasSubstr("select_last_index 1 not supported: ties go to the first index"));
  EXPECT_THAT(error_of(model(4, 1, {1, 1, 4, 4}).bytes()), HasSubstr("axis 4 out of range for rank 4"));
  // The indices go nowhere but out.
  Model consumed = model(1, 1, {1, 1, 4, 4});
  consumed.node("Relu", {"z"}, {"z2"});
  consumed.output("z2", {1, 1, 4, 4});
  EXPECT_THAT(error_of(consumed.bytes()), HasSubstr("holds the int64 indices of an ArgMax or ArgMin"));
}

// The QOperator form pads the quantized tensor itself: its constant value is the uint8 zero
// point (the real 0); another value is refused.
TEST(OnnxReader, AQuantizedPadTakesTheZeroPointAsItsValue) {
  auto padded_with = [](uint8_t value) {
    Model m;
    m.input("x", {1, 1, 2, 2});
    m.output("y", {1, 1, 3, 3});
    m.constant<float>("s", {}, {0.1f}, ::onnx::TensorProto::FLOAT);
    m.constant<uint8_t>("z", {}, {130}, ::onnx::TensorProto::UINT8);
    m.node("QuantizeLinear", {"x", "s", "z"}, {"xq"});
    m.constant<int64_t>("pads", {8}, {0, 0, 1, 1, 0, 0, 0, 0}, ::onnx::TensorProto::INT64);
    m.constant<uint8_t>("value", {}, {value}, ::onnx::TensorProto::UINT8);
    m.node("Pad", {"xq", "pads", "value"}, {"p"});
    m.node("DequantizeLinear", {"p", "s", "z"}, {"y"});
    return error_of(m.bytes());
  };
  EXPECT_EQ(padded_with(130), "accepted");
  EXPECT_THAT(padded_with(7), HasSubstr("a constant value other than the input's zero point (real 0)"));
}

TEST(OnnxReader, RefusesFloatModelsUnsupportedOperatorsAndBadFiles) {
  Model f;
  f.input("x", {1, 4});
  f.output("y", {1, 4});
  f.node("Relu", {"x"}, {"y"});
  EXPECT_THAT(error_of(f.bytes()), HasSubstr("quantize it first"));

  Model u;
  u.input("x", {1, 4});
  u.output("y", {1, 4});
  u.scale("q", 0.1f, 0);
  u.qdq("x", "q", "xd");
  u.node("Hardmax", {"xd"}, {"c"});
  u.qdq("c", "q", "y");
  EXPECT_THAT(error_of(u.bytes()), HasSubstr("node 2 'Hardmax_c' (Hardmax, domain ai.onnx, opset 13): not supported"));

  std::vector<uint8_t> truncated = conv_model().bytes();
  truncated.resize(truncated.size() / 2);
  EXPECT_THAT(error_of(truncated), HasSubstr("not a readable ONNX model"));
  const std::string text = "hello";
  EXPECT_THAT(error_of({text.begin(), text.end()}), HasSubstr("not a readable ONNX model"));
}

// x [1,3,6] -> QDQ -> LogSoftmax -> QDQ with output scale `out_scale`, zero point `out_zp`.
Model log_softmax_model(int64_t opset, int64_t axis, float out_scale, int8_t out_zp) {
  Model m(opset);
  m.input("x", {1, 3, 6});
  m.output("y", {1, 3, 6});
  m.scale("in", 0.05f, 3);
  m.scale("out", out_scale, out_zp);
  m.qdq("x", "in", "xd");
  Model::integer(m.node("LogSoftmax", {"xd"}, {"l"}), "axis", axis);
  m.qdq("l", "out", "y");
  return m;
}

// A softmax the graph gives out in float (PyTorch's F.softmax after DeQuantStub) is TFLite's
// int8 -> int16 SOFTMAX (1/65536, -32768), dequantized: 256 times finer than int8's 1/256; a
// float Sigmoid output, TFLite's int16 LOGISTIC (2^-15).
TEST(OnnxReader, AFloatSoftmaxOrSigmoidOutputIsInt16ThenDequantized) {
  Model m;
  m.input("x", {1, 10});
  m.scale("in", 0.1f, 0);
  m.qdq("x", "in", "xd");
  m.node("Softmax", {"xd"}, {"p"});
  m.node("Identity", {"p"}, {"y"});
  m.output("y", {1, 10});
  const ir::Graph g = read_model(m.bytes());
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kSoftmax, ir::OpType::kDequantize));
  const ir::Tensor& p = g.tensors[static_cast<size_t>(g.operators[1].outputs[0])];
  EXPECT_EQ(p.type, ir::DataType::kInt16);
  EXPECT_THAT(p.quantization.scale, ElementsAre(1.0f / 65536));
  EXPECT_THAT(p.quantization.zero_point, ElementsAre(-32768));
  // A float Sigmoid output: the int8 value widened exactly to int16, TFLite's int16 LOGISTIC.
  Model sig;
  sig.input("x", {1, 10});
  sig.scale("in", 0.1f, 3);
  sig.qdq("x", "in", "xd");
  sig.node("Sigmoid", {"xd"}, {"y"});
  sig.output("y", {1, 10});
  const ir::Graph s = read_model(sig.bytes());
  EXPECT_THAT(types(s), ElementsAre(ir::OpType::kQuantize, ir::OpType::kQuantize,
                                    ir::OpType::kLogistic, ir::OpType::kDequantize));
  const ir::Tensor& wide = s.tensors[static_cast<size_t>(s.operators[1].outputs[0])];
  EXPECT_EQ(wide.type, ir::DataType::kInt16);
  EXPECT_THAT(wide.quantization.scale, ElementsAre(0.1f));
  EXPECT_THAT(wide.quantization.zero_point, ElementsAre(0));
  EXPECT_THAT(s.tensors[static_cast<size_t>(s.operators[2].outputs[0])].quantization.scale,
              ElementsAre(1.0f / 32768));
}

// A max pool's pads that TFLite's SAME does not give (ResNet's stem: kernel 3, stride 2, pads
// 1), or ceil_mode 1, are a PAD with the zero point, exact only where that is the lowest value.
TEST(OnnxReader, MaxPoolPadsArePaddedWithTheLowestValue) {
  auto model = [](int8_t zero_point, bool ceil) {
    Model m;
    m.input("x", {1, 2, 8, 8});
    m.scale("in", 0.05f, zero_point);
    m.qdq("x", "in", "xd");
    auto* n = m.node("MaxPool", {"xd"}, {"p"});
    Model::ints(n, "kernel_shape", {3, 3});
    Model::ints(n, "strides", {2, 2});
    Model::ints(n, "pads", {1, 1, 1, 1});
    if (ceil) Model::integer(n, "ceil_mode", 1);
    m.qdq("p", "in", "y");
    m.output("y", {1, 2, ceil ? 5 : 4, ceil ? 5 : 4});
    return m;
  };
  for (const bool ceil : {false, true}) {
    const ir::Graph g = read_model(model(-128, ceil).bytes());
    const auto t = types(g);
    const auto pool = std::find(t.begin(), t.end(), ir::OpType::kMaxPool2D);
    ASSERT_NE(pool, t.end());
    EXPECT_EQ(*(pool - 1), ir::OpType::kPad);
    const auto& o = std::get<ir::Pool2DOptions>(g.operators[static_cast<size_t>(pool - t.begin())].options);
    EXPECT_EQ(o.padding, ir::Padding::kValid);
    const int32_t side = ceil ? 5 : 4;
    EXPECT_EQ(g.tensors[g.operators[static_cast<size_t>(pool - t.begin())].outputs[0]].shape,
              (std::vector<int32_t>{1, side, side, 2}));
    EXPECT_THAT(error_of(model(0, ceil).bytes()),
                HasSubstr("supported only where the input's zero point is its lowest value"));
  }
}

// Softmax over NCHW's channels (opset 13: one axis) is TFLite's over NHWC's last: no transpose
// before it. Before opset 13 the axis flattens what follows it, which TFLite's cannot.
TEST(OnnxReader, SoftmaxOverTheChannelsReadsTheNhwcValue) {
  Model m = conv_model();
  Model::integer(m.node("Softmax", {"y"}, {"p"}), "axis", 1);
  m.scale("prob", 1.0f / 256, -128);
  m.qdq("p", "prob", "z");
  m.output("z", {1, 3, 4, 4});
  const ir::Graph g = read_model(m.bytes());
  for (size_t i = 0; i < g.operators.size(); ++i) {
    if (g.operators[i].type != ir::OpType::kSoftmax) continue;
    ASSERT_GT(i, 0u);
    EXPECT_EQ(g.operators[i - 1].type, ir::OpType::kConv2D);
    EXPECT_EQ(g.operators[i].inputs[0], g.operators[i - 1].outputs[0]);
    EXPECT_EQ(g.tensors[g.operators[i].outputs[0]].shape, (std::vector<int32_t>{1, 4, 4, 3}));
  }
  EXPECT_THAT(types(g), ::testing::Contains(ir::OpType::kSoftmax));
  Model old(11);
  old.input("x", {1, 3, 4, 4});
  old.output("z", {1, 3, 4, 4});
  old.scale("in", 0.05f, 0);
  old.scale("prob", 1.0f / 256, -128);
  old.qdq("x", "in", "xd");
  Model::integer(old.node("Softmax", {"xd"}, {"p"}), "axis", 1);
  old.qdq("p", "prob", "z");
  EXPECT_THAT(error_of(old.bytes()), HasSubstr("softmax over axis 1 of rank 4 not supported"));
}

TEST(OnnxReader, LogSoftmaxIsTflitesWithARequantizationWhereItsOutputDiffers) {
  using ir::OpType;
  // TFLite's int8 kernel writes scale 16/256, zero point 127: taken as it is (between the float
  // graph input's QUANTIZE and output's DEQUANTIZE).
  const ir::Graph g = read_model(log_softmax_model(13, -1, 16.0f / 256, 127).bytes(), {});
  ASSERT_THAT(types(g), ElementsAre(OpType::kQuantize, OpType::kLogSoftmax, OpType::kDequantize));
  const ir::Tensor& y = g.tensors[g.operators[1].outputs[0]];
  EXPECT_EQ(y.shape, (std::vector<int32_t>{1, 3, 6}));
  EXPECT_EQ(y.quantization.scale, std::vector<float>{16.0f / 256});
  EXPECT_EQ(y.quantization.zero_point, std::vector<int64_t>{127});

  // Any other output quantization (ONNX Runtime's calibrated range): TFLite's, then a QUANTIZE.
  const ir::Graph r = read_model(log_softmax_model(17, 2, 0.07f, 100).bytes(), {});
  ASSERT_THAT(types(r), ElementsAre(OpType::kQuantize, OpType::kLogSoftmax, OpType::kQuantize,
                                    OpType::kDequantize));
  EXPECT_EQ(r.tensors[r.operators[1].outputs[0]].quantization.zero_point, std::vector<int64_t>{127});
  EXPECT_EQ(r.operators[2].inputs[0], r.operators[1].outputs[0]);
  const ir::Tensor& q = r.tensors[r.operators[2].outputs[0]];
  EXPECT_EQ(q.quantization.scale, std::vector<float>{0.07f});
  EXPECT_EQ(q.quantization.zero_point, std::vector<int64_t>{100});
  EXPECT_TRUE(r.notes.empty());
  // An output step at most half of TFLite's 1/16: requantized, with a note that says so.
  const ir::Graph fine = read_model(log_softmax_model(13, -1, 0.02f, 127).bytes(), {});
  ASSERT_THAT(types(fine), ElementsAre(OpType::kQuantize, OpType::kLogSoftmax, OpType::kQuantize,
                                       OpType::kDequantize));
  ASSERT_EQ(fine.notes.size(), 1u);
  EXPECT_THAT(fine.notes[0], HasSubstr("(LogSoftmax, domain ai.onnx, opset 13): output scale 0.020000 "
                                       "is at most half the 1/16 step"));

  // Before opset 13 the axis flattens what follows it: axis 1 of [1,3,6] is not the last one.
  EXPECT_THAT(error_of(log_softmax_model(11, 1, 16.0f / 256, 127).bytes()),
              HasSubstr("(LogSoftmax, domain ai.onnx, opset 11): log_softmax over axis 1 of rank 3 "
                        "not supported (the last axis only)"));
  EXPECT_THAT(types(read_model(log_softmax_model(11, 2, 16.0f / 256, 127).bytes(), {})),
              ElementsAre(OpType::kQuantize, OpType::kLogSoftmax, OpType::kDequantize));
}

TEST(OnnxReader, ExplicitPadsTfliteSameCannotGiveBecomeAPad) {
  // Stride 2 over 4 columns with pads 1, 1: TFLite's SAME pads 0 before and 1 after.
  Model m = conv_model();
  ::onnx::ModelProto proto;
  const std::vector<uint8_t> bytes = m.bytes();
  ASSERT_TRUE(proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  for (auto& n : *proto.mutable_graph()->mutable_node()) {
    if (n.op_type() == "Conv") Model::ints(&n, "strides", {2, 2});
  }
  proto.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2)->set_dim_value(2);
  proto.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(3)->set_dim_value(2);
  std::string s;
  proto.SerializeToString(&s);
  const ir::Graph g = read_model(std::vector<uint8_t>(s.begin(), s.end()));
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kTranspose,
                                    ir::OpType::kPad, ir::OpType::kConv2D,
                                    ir::OpType::kTranspose, ir::OpType::kDequantize));
  EXPECT_EQ(std::get<ir::Conv2DOptions>(g.operators[3].options).padding, ir::Padding::kValid);
}


// x [1,2,8] -> two Conv1d (kernel 3, pads 1; 2 -> 3 -> 3 channels) -> output [1,3,8].
Model conv1d_model() {
  Model m;
  m.input("x", {1, 2, 8});
  m.output("y", {1, 3, 8});
  m.scale("q", 0.05f, 0);
  m.qdq("x", "q", "xd");
  std::string in = "xd";
  for (int layer = 0; layer < 2; ++layer) {
    const int64_t ci = layer == 0 ? 2 : 3;
    const std::string w = "w" + std::to_string(layer);
    std::vector<int8_t> data(static_cast<size_t>(3 * ci * 3));
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int8_t>(i);  // [o][i][k]
    m.constant<int8_t>(w, {3, ci, 3}, data, ::onnx::TensorProto::INT8);
    m.scale(w, 0.01f, 0);
    m.node("DequantizeLinear", {w, w + "_s", w + "_z"}, {w + "d"});
    auto* conv = m.node("Conv", {in, w + "d"}, {"c" + std::to_string(layer)});
    Model::ints(conv, "kernel_shape", {3});
    Model::ints(conv, "pads", {1, 1});
    in = layer == 0 ? "c0d" : "y";
    m.qdq("c" + std::to_string(layer), "q", in);
  }
  return m;
}

TEST(OnnxReader, OneDimensionalConvolutionsRunAsOneRowAndStayChannelsLast) {
  const ir::Graph g = read_model(conv1d_model().bytes());
  // [N,C,L] -> [N,C,1,L] -> NHWC [N,1,L,C] at the input; the two windows meet in [N,1,L,C]
  // with nothing between them; [N,1,L,C] -> [N,L,C] -> [N,C,L] at the output.
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kReshape,
                                    ir::OpType::kTranspose, ir::OpType::kConv2D,
                                    ir::OpType::kConv2D, ir::OpType::kReshape,
                                    ir::OpType::kTranspose, ir::OpType::kDequantize));
  const ir::Tensor& w = g.tensors[static_cast<size_t>(g.operators[3].inputs[1])];
  EXPECT_THAT(w.shape, ElementsAre(3, 1, 3, 2));  // O, 1, K, I
  // OHWI [o=1][0][k=2][i=1] holds ONNX's [o=1][i=1][k=2] = 6 + 3 + 2.
  EXPECT_EQ(static_cast<int8_t>(w.data[(1 * 3 + 2) * 2 + 1]), 11);
  EXPECT_THAT(g.tensors[static_cast<size_t>(g.operators[3].outputs[0])].shape, ElementsAre(1, 1, 8, 3));
  EXPECT_EQ(std::get<ir::Conv2DOptions>(g.operators[4].options).padding, ir::Padding::kSame);
  EXPECT_THAT(g.tensors[static_cast<size_t>(g.outputs[0])].shape, ElementsAre(1, 3, 8));
}

// x [1,2,3,3] -> ConvTranspose (2 -> 2 channels, kernel k, stride 2, pads p, output_padding e).
Model conv_transpose_model(int64_t k, int64_t p, int64_t e) {
  const int64_t out = (3 - 1) * 2 + k + e - 2 * p;
  Model m;
  m.input("x", {1, 2, 3, 3});
  m.output("y", {1, 2, out, out});
  m.scale("q", 0.05f, 0);
  m.qdq("x", "q", "xd");
  m.constant<int8_t>("w", {2, 2, k, k}, std::vector<int8_t>(static_cast<size_t>(4 * k * k), 3), ::onnx::TensorProto::INT8);
  m.scale("w", 0.01f, 0);
  m.node("DequantizeLinear", {"w", "w_s", "w_z"}, {"wd"});
  auto* t = m.node("ConvTranspose", {"xd", "wd"}, {"c"});
  Model::ints(t, "strides", {2, 2});
  Model::ints(t, "pads", {p, p, p, p});
  Model::ints(t, "output_padding", {e, e});
  m.qdq("c", "q", "y");
  return m;
}

TEST(OnnxReader, ConvTransposePadsAreTflitesOrACrop) {
  ImportOptions nhwc;
  nhwc.input_nhwc = nhwc.output_nhwc = true;
  // Kernel 4, pads 1: TFLite's SAME from the output size 6.
  ir::Graph g = read_model(conv_transpose_model(4, 1, 0).bytes(), nhwc);
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kTransposeConv,
                                    ir::OpType::kDequantize));
  EXPECT_EQ(std::get<ir::TransposeConvOptions>(g.operators[1].options).padding, ir::Padding::kSame);
  // Kernel 3, pads 1, output_padding 1 (PyTorch's usual): a VALID result of 7 cropped from 1.
  g = read_model(conv_transpose_model(3, 1, 1).bytes(), nhwc);
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kTransposeConv,
                                    ir::OpType::kSlice, ir::OpType::kDequantize));
  EXPECT_EQ(std::get<ir::TransposeConvOptions>(g.operators[1].options).padding, ir::Padding::kValid);
  EXPECT_THAT(g.tensors[static_cast<size_t>(g.operators[1].outputs[0])].shape, ElementsAre(1, 7, 7, 2));
  EXPECT_THAT(g.tensors[static_cast<size_t>(g.operators[2].outputs[0])].shape, ElementsAre(1, 6, 6, 2));
}

TEST(OnnxReader, ShapeArithmeticFoldsIntoTheReshapesShape) {
  // Flatten as torch.onnx writes x.view(x.size(0), -1) at opset 11.
  Model m(11);
  m.input("x", {1, 2, 3, 4});
  m.output("y", {1, 24});
  m.scale("q", 0.05f, 0);
  m.qdq("x", "q", "xd");
  m.node("Shape", {"xd"}, {"shape"});
  m.constant<int64_t>("zero", {}, {0}, ::onnx::TensorProto::INT64);
  Model::integer(m.node("Gather", {"shape", "zero"}, {"batch"}), "axis", 0);
  Model::ints(m.node("Unsqueeze", {"batch"}, {"lead"}), "axes", {0});
  m.constant<int64_t>("rest", {1}, {-1}, ::onnx::TensorProto::INT64);
  Model::integer(m.node("Concat", {"lead", "rest"}, {"target"}), "axis", 0);
  m.node("Reshape", {"xd", "target"}, {"r"});
  m.qdq("r", "q", "y");
  const ir::Graph g = read_model(m.bytes());
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kReshape,
                                    ir::OpType::kDequantize));
  EXPECT_THAT(g.tensors[static_cast<size_t>(g.operators[1].outputs[0])].shape, ElementsAre(1, 24));
}

// --- check_model: every node's verdict (mote inspect --check)

// The verdict of the node writing `output`.
const NodeVerdict& verdict_of(const CheckReport& r, const std::string& output) {
  for (const NodeVerdict& n : r.nodes) {
    if (n.output == output) return n;
  }
  ADD_FAILURE() << "no node writes '" << output << "'";
  static const NodeVerdict none;
  return none;
}

// conv_model's Conv (y: its dequantized result), then an operator Mote lacks (Hardmax) and a
// MaxPool with an attribute it cannot take (dilations), each followed by nodes that read
// their results, beside a MaxPool Mote takes.
Model two_refusals() {
  Model m = conv_model();
  m.scale("p", 0.1f, -128);
  m.node("Hardmax", {"y"}, {"hardmax"});
  m.qdq("hardmax", "p", "hardmaxd");
  m.node("Add", {"hardmaxd", "y"}, {"sum"});
  m.qdq("sum", "p", "y1");
  auto* dilated = m.node("MaxPool", {"y"}, {"dilated"});
  Model::ints(dilated, "kernel_shape", {2, 2});
  Model::ints(dilated, "dilations", {2, 2});
  m.qdq("dilated", "out", "y2");
  auto* pool = m.node("MaxPool", {"y"}, {"pooled"});
  Model::ints(pool, "kernel_shape", {2, 2});
  Model::ints(pool, "strides", {2, 2});
  m.qdq("pooled", "out", "y3");
  m.output("y1", {1, 3, 4, 4});
  m.output("y2", {1, 3, 2, 2});
  m.output("y3", {1, 3, 2, 2});
  return m;
}

// An LSTM's or GRU's float weights W [D, G*H, I], R [D, G*H, H] and B [D, 2*G*H], named
// `name`_w, _r and _b; the node reads X and them.
::onnx::NodeProto* recurrent(Model& m, const std::string& op, const std::string& x,
                             std::vector<std::string> out, int64_t d, int64_t h, int64_t i,
                             const std::string& name) {
  const int64_t g = op == "LSTM" ? 4 : 3;
  m.constant<float>(name + "_w", {d, g * h, i}, std::vector<float>(static_cast<size_t>(d * g * h * i), 0.1f), ::onnx::TensorProto::FLOAT);
  m.constant<float>(name + "_r", {d, g * h, h}, std::vector<float>(static_cast<size_t>(d * g * h * h), -0.1f), ::onnx::TensorProto::FLOAT);
  m.constant<float>(name + "_b", {d, 2 * g * h}, std::vector<float>(static_cast<size_t>(d * 2 * g * h), 0.2f), ::onnx::TensorProto::FLOAT);
  auto* n = m.node(op, {x, name + "_w", name + "_r", name + "_b"}, std::move(out));
  Model::integer(n, "hidden_size", h);
  if (d == 2) {
    auto* a = n->add_attribute();
    a->set_name("direction");
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s("bidirectional");
  }
  return n;
}

// Layout 1 (batch first, opset 14): x [2, 5, 3] (batch 2, 5 steps) through a bidirectional
// LSTM; Y [2, 5, 2, 4] and Y_h [2, 2, 4] quantized. The kernel reads and writes that layout:
// one MoteFloatRnn, no transposes.
TEST(OnnxReader, RecurrentLayoutOneRunsBatchFirstWithoutTransposes) {
  Model m(14);
  m.input("x", {2, 5, 3});
  m.output("y", {2, 5, 2, 4});
  m.output("h", {2, 2, 4});
  m.scale("in", 0.05f, 0);
  m.scale("out", 1.0f / 128, 0);
  m.qdq("x", "in", "xd");
  Model::integer(recurrent(m, "LSTM", "xd", {"ys", "hs"}, 2, 4, 3, "lstm"), "layout", 1);
  m.qdq("ys", "out", "y");
  m.qdq("hs", "out", "h");
  const ir::Graph g = read_model(m.bytes());
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kFloatRnn,
                                    ir::OpType::kDequantize, ir::OpType::kDequantize));
  const ir::Operator& rnn = g.operators[1];
  EXPECT_TRUE(std::get<ir::RnnOptions>(rnn.options).batch_first);
  EXPECT_THAT(g.tensors[static_cast<size_t>(rnn.inputs[0])].shape, ElementsAre(2, 5, 3));
  EXPECT_THAT(g.tensors[static_cast<size_t>(rnn.outputs[0])].shape, ElementsAre(2, 5, 2, 4));
  EXPECT_THAT(g.tensors[static_cast<size_t>(rnn.outputs[1])].shape, ElementsAre(2, 2, 4));
  EXPECT_EQ(g.tensors[static_cast<size_t>(rnn.outputs[0])].type, ir::DataType::kInt8);
}

// PyTorch's stacked layers: x [5, B, 3] -> bidirectional LSTM -> Y [5, 2, B, 4] -> Transpose
// (0, 2, 1, 3) -> Reshape [5, B, 8] -> GRU, in float between them. Over batch 1 the Transpose
// moves only a dimension of size 1: the GRU reads the LSTM's float Y as it lies, [5, 1, 8].
// Over batch 2 it would move values: refused, naming the LSTM.
Model stacked_model(int64_t batch) {
  Model m;
  m.input("x", {5, batch, 3});
  m.output("y", {5, 1, batch, 6});
  m.scale("in", 0.05f, 0);
  m.scale("out", 1.0f / 128, 0);
  m.qdq("x", "in", "xd");
  recurrent(m, "LSTM", "xd", {"y1"}, 2, 4, 3, "lstm");
  Model::ints(m.node("Transpose", {"y1"}, {"t1"}), "perm", {0, 2, 1, 3});
  m.constant<int64_t>("shape", {3}, {5, batch, 8}, ::onnx::TensorProto::INT64);
  m.node("Reshape", {"t1", "shape"}, {"x2"});
  m.node("Shape", {"x2"}, {"x2_shape"});  // PyTorch sizes the next layer's zero state so
  recurrent(m, "GRU", "x2", {"y2"}, 1, 6, 8, "gru");
  m.qdq("y2", "out", "y");
  return m;
}

TEST(OnnxReader, StackedRecurrentLayersReadTheFloatValuesAsTheyLie) {
  const ir::Graph g = read_model(stacked_model(1).bytes());
  EXPECT_THAT(types(g), ElementsAre(ir::OpType::kQuantize, ir::OpType::kFloatRnn,
                                    ir::OpType::kFloatRnn, ir::OpType::kDequantize));
  const ir::Tensor& between = g.tensors[static_cast<size_t>(g.operators[1].outputs[0])];
  EXPECT_EQ(between.type, ir::DataType::kFloat32);
  EXPECT_THAT(between.shape, ElementsAre(5, 1, 8));
  EXPECT_EQ(g.operators[2].inputs[0], g.operators[1].outputs[0]);
  EXPECT_THAT(error_of(stacked_model(2).bytes()),
              HasSubstr("(LSTM, domain ai.onnx, opset 13): Y reaches the next layer, node 6 "
                        "(GRU), as [5,2,8] through a Transpose that moves its values"));
}

TEST(OnnxCheck, EveryNodeOfAModelMoteTakesIsOk) {
  const CheckReport r = check_model(conv_model().bytes());
  EXPECT_TRUE(r.compiles());
  EXPECT_TRUE(r.model.empty());
  ASSERT_EQ(r.nodes.size(), 8u);
  for (const NodeVerdict& n : r.nodes) {
    EXPECT_EQ(n.problem, "") << n.index << " " << n.type;
    EXPECT_EQ(n.blocked_by, -1);
    EXPECT_EQ(n.domain, "ai.onnx");
    EXPECT_EQ(n.opset, 13);
  }
  const NodeVerdict& conv = verdict_of(r, "c");
  EXPECT_EQ(conv.name, "Conv_c");
  EXPECT_THAT(conv.becomes, ElementsAre("TRANSPOSE", "CONV_2D"));
  // The Relu and the QuantizeLinear after the Conv fuse into it.
  EXPECT_EQ(verdict_of(r, "r").folded_into, conv.index);
  EXPECT_EQ(verdict_of(r, "y_q").folded_into, conv.index);
  EXPECT_TRUE(verdict_of(r, "wd").becomes.empty());  // weights: folded away
  EXPECT_EQ(verdict_of(r, "wd").folded_into, -1);
}

TEST(OnnxCheck, EachRefusalIsNamedAndTheNodesAfterItAreBlockedByIt) {
  const Model m = two_refusals();
  const CheckReport r = check_model(m.bytes());
  EXPECT_FALSE(r.compiles());
  EXPECT_TRUE(r.model.empty()) << r.model.front();

  const NodeVerdict& hardmax = verdict_of(r, "hardmax");
  EXPECT_THAT(hardmax.problem, HasSubstr("'Hardmax_hardmax' (Hardmax, domain ai.onnx, opset 13): not supported"));
  EXPECT_THAT(hardmax.reason, ::testing::StartsWith("not supported; Mote reads"));
  EXPECT_EQ(hardmax.blocked_by, -1);
  // read_model stops at the first refusal, with the same message.
  EXPECT_EQ(error_of(m.bytes()), hardmax.problem);

  const NodeVerdict& dilated = verdict_of(r, "dilated");
  EXPECT_EQ(dilated.reason, "dilated pooling not supported");
  EXPECT_EQ(dilated.blocked_by, -1);

  // Downstream of Hardmax, directly and through others: not attempted, blocked by Hardmax.
  for (const std::string& out : {"hardmaxd_q", "hardmaxd", "sum", "y1_q", "y1"}) {
    const NodeVerdict& n = verdict_of(r, out);
    EXPECT_EQ(n.blocked_by, hardmax.index) << out;
    EXPECT_THAT(n.reason, HasSubstr("depends on node " + std::to_string(hardmax.index) +
                                    " 'Hardmax_hardmax' (Hardmax), which Mote cannot compile"))
        << out;
  }
  EXPECT_THAT(verdict_of(r, "sum").reason, ::testing::StartsWith("not checked: input 'hardmaxd'"));
  for (const std::string& out : {"y2_q", "y2"}) {
    EXPECT_EQ(verdict_of(r, out).blocked_by, dilated.index) << out;
  }

  // The rest is ok: the Conv, and the MaxPool beside the refused one.
  EXPECT_EQ(verdict_of(r, "c").problem, "");
  EXPECT_THAT(verdict_of(r, "c").becomes, ElementsAre("TRANSPOSE", "CONV_2D"));
  const NodeVerdict& pool = verdict_of(r, "pooled");
  EXPECT_EQ(pool.problem, "");
  EXPECT_THAT(pool.becomes, ElementsAre("MAX_POOL_2D"));
  EXPECT_EQ(verdict_of(r, "y3_q").folded_into, pool.index);
  size_t refused = 0, blocked = 0;
  for (const NodeVerdict& n : r.nodes) {
    if (n.problem.empty()) continue;
    (n.blocked_by >= 0 ? blocked : refused) += 1;
  }
  EXPECT_EQ(refused, 2u);
  EXPECT_EQ(blocked, 7u);
}

// A node refused after it made IR operators (the Conv relays its input to NHWC, then finds no
// QuantizeLinear after it) leaves nothing behind: the MaxPool reading the same input makes its
// own relayout, and the operators read pass the operator checks.
TEST(OnnxCheck, ARefusedNodeIsUndone) {
  Model m = conv_model();
  m.node("Hardmax", {"c"}, {"hardmax"});  // a float Conv output: no QuantizeLinear follows it
  auto* pool = m.node("MaxPool", {"xd"}, {"pooled"});
  Model::ints(pool, "kernel_shape", {2, 2});
  Model::ints(pool, "strides", {2, 2});
  m.qdq("pooled", "in", "p");
  m.output("p", {1, 2, 2, 2});
  const CheckReport r = check_model(m.bytes());
  const NodeVerdict& conv = verdict_of(r, "c");
  EXPECT_THAT(conv.reason, HasSubstr("output 'c' is not quantized"));
  EXPECT_EQ(verdict_of(r, "r").blocked_by, conv.index);  // the Relu is no longer fused
  EXPECT_EQ(verdict_of(r, "hardmax").blocked_by, conv.index);
  EXPECT_EQ(verdict_of(r, "pooled").problem, "");
  EXPECT_THAT(verdict_of(r, "pooled").becomes, ElementsAre("TRANSPOSE", "MAX_POOL_2D"));
  EXPECT_TRUE(r.model.empty()) << r.model.front();
}

// Whole-model problems stay one error, as read_model's.
TEST(OnnxCheck, WholeModelProblemsThrow) {
  std::vector<uint8_t> truncated = conv_model().bytes();
  truncated.resize(truncated.size() / 2);
  EXPECT_THROW(check_model(truncated), InputError);
  EXPECT_THROW(check_model(conv_model(/*symbolic_batch=*/true).bytes()), InputError);
  ImportOptions fixed;
  fixed.input_shapes = {{"x", {1, 2, 4, 4}}};
  EXPECT_TRUE(check_model(conv_model(true).bytes(), fixed).compiles());
  Model f;
  f.input("x", {1, 4});
  f.output("y", {1, 4});
  f.node("Relu", {"x"}, {"y"});
  try {
    check_model(f.bytes());
    ADD_FAILURE() << "a float model was checked node by node";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), error_of(f.bytes()));
  }
}

}  // namespace
}  // namespace mote::onnx
