// Reference-vector runner for "network" (a whole int8 network, layer by layer): each layer is run
// as a single-operator set of its op, through that op's registered runner, on the previous
// layer's output; reshape layers pass the values on.

#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/testing/vector_runner.h"

namespace mote::kernels {
namespace {

using nlohmann::json;

size_t element_count(const json& shape) {
  size_t n = 1;
  for (const json& d : shape) n *= d.get<size_t>();
  return n;
}

std::vector<int64_t> RunNetwork(const json& set) {
  std::vector<int64_t> values = set.at("tensors").at("input").get<std::vector<int64_t>>();
  for (const json& layer : set.at("layers")) {
    const std::string op = layer.at("op").get<std::string>();
    if (element_count(layer.at("input_shape")) != values.size()) {
      throw std::runtime_error("layer " + std::to_string(layer.at("index").get<int>()) +
                               ": input shape does not match the previous output");
    }
    if (op == "reshape") continue;
    const auto runner = testing::vector_runners().find(op);
    if (runner == testing::vector_runners().end()) throw std::runtime_error("no runner for " + op);
    json single = {{"op", op}, {"params", layer.at("params")}};
    single["tensors"] = layer.value("tensors", json::object());
    single["tensors"]["input"] = values;
    single["tensors"]["expected_output"] =
        std::vector<int64_t>(element_count(layer.at("output_shape")), 0);
    single["dtypes"] = layer.value("dtypes", json::object());
    if (single["dtypes"].is_null()) single["dtypes"] = json::object();
    single["dtypes"]["input"] = "int8";
    single["dtypes"]["expected_output"] = "int8";
    values = runner->second(single);
  }
  return values;
}

const testing::RegisterVectorRunner kNetwork("network", RunNetwork);

}  // namespace
}  // namespace mote::kernels
