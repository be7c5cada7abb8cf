// mote_write_twin_models OUT_DIR: writes the networks of the .tflite/.onnx twin test as
// NAME.tflite (the builder's writer) and NAME.graph.json (the same IR graph: tensors with their
// quantization and constant values, operators with their options), from which
// make_twin_models.py writes the QDQ .onnx form. Exit status: 0 ok, 2 bad arguments, 1 a file
// could not be written.

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"

namespace {

using mote::ir::Activation;
using mote::ir::DataType;
using mote::ir::Padding;

// MobileNetV2's inverted residual block: 1x1 expansion with ReLU6, 3x3 depthwise with ReLU6,
// 1x1 projection, the input added back; then a classifier (average pool, fully connected).
mote::ir::Graph mobilenet_v2_block() {
  mote::builder::ModelBuilder b(3);
  const auto input = b.add_input({1, 16, 16, 16}, DataType::kInt8, 0.05f, -3);
  auto x = b.add_conv2d(input, 96, 1, 1, 1, Padding::kSame, Activation::kRelu6);
  x = b.add_depthwise(x, 3, 3, 1, Padding::kSame, Activation::kRelu6);
  x = b.add_conv2d(x, 16, 1, 1, 1, Padding::kSame, Activation::kNone);
  x = b.add_add(input, x);
  x = b.add_conv2d(x, 32, 3, 3, 2, Padding::kSame, Activation::kRelu);
  x = b.add_average_pool(x, 8, 8, 8, Padding::kValid);
  x = b.add_reshape(x, {-1, 32});
  b.mark_output(b.add_fully_connected(x, 10));
  return b.build();
}

nlohmann::json options_json(const mote::ir::Options& options) {
  nlohmann::json j = nlohmann::json::object();
  std::visit(
      [&](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, mote::ir::Conv2DOptions> ||
                      std::is_same_v<T, mote::ir::DepthwiseConv2DOptions> ||
                      std::is_same_v<T, mote::ir::Pool2DOptions>) {
          j["padding"] = std::string(mote::ir::to_string(o.padding));
          j["stride"] = {o.stride_h, o.stride_w};
        }
        if constexpr (std::is_same_v<T, mote::ir::Conv2DOptions> ||
                      std::is_same_v<T, mote::ir::DepthwiseConv2DOptions>) {
          j["dilation"] = {o.dilation_h, o.dilation_w};
        }
        if constexpr (std::is_same_v<T, mote::ir::Pool2DOptions>) j["filter"] = {o.filter_h, o.filter_w};
        if constexpr (requires { o.activation; }) j["activation"] = std::string(mote::ir::to_string(o.activation));
      },
      options);
  return j;
}

nlohmann::json graph_json(const mote::ir::Graph& g) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const auto& t : g.tensors) {
    nlohmann::json tj = {{"name", t.name},
                         {"type", std::string(mote::ir::to_string(t.type))},
                         {"shape", t.shape},
                         {"scale", t.quantization.scale},
                         {"zero_point", t.quantization.zero_point},
                         {"quantized_dimension", t.quantization.quantized_dimension}};
    if (t.is_constant) {
      std::vector<int64_t> values;
      for (int64_t i = 0; i < t.num_elements(); ++i) {
        if (t.type == DataType::kInt8) {
          values.push_back(static_cast<int8_t>(t.data[static_cast<size_t>(i)]));
        } else if (t.type == DataType::kInt32) {
          int32_t v;
          std::memcpy(&v, t.data.data() + i * 4, 4);
          values.push_back(v);
        }
      }
      tj["data"] = values;
    }
    tensors.push_back(tj);
  }
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& op : g.operators) {
    ops.push_back({{"type", std::string(mote::ir::to_string(op.type))},
                   {"inputs", op.inputs},
                   {"outputs", op.outputs},
                   {"options", options_json(op.options)}});
  }
  return {{"tensors", tensors}, {"operators", ops}, {"inputs", g.inputs}, {"outputs", g.outputs}};
}

bool write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out.flush());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const std::pair<const char*, mote::ir::Graph> models[] = {
      {"kws_dscnn_like", mote::builder::kws_dscnn_like()},
      {"resnet8_like", mote::builder::resnet8_like()},
      {"mobilenet_v2_block", mobilenet_v2_block()},
  };
  for (const auto& [name, graph] : models) {
    const std::vector<uint8_t> tflite = mote::builder::write_model(graph);
    if (!write_file(dir + "/" + name + ".tflite", std::string(tflite.begin(), tflite.end())) ||
        !write_file(dir + "/" + name + ".graph.json", graph_json(graph).dump())) {
      std::fprintf(stderr, "cannot write %s/%s.*\n", dir.c_str(), name);
      return 1;
    }
  }
  return 0;
}
