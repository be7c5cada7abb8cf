#pragma once
// Registry of reference-vector runners, one per "op" value in shared/vectors/<op>/<set>.json.
// Each op family registers its runner from its own *_vectors.cc file; vectors_test.cc discovers the
// sets and calls the runner registered for the set's "op". Host test code only.

#include <functional>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace mote::kernels::testing {

// Runs one set; returns the kernel's output as int64 values to compare with "expected_output".
using VectorRunner = std::function<std::vector<int64_t>(const nlohmann::json& set)>;

inline std::map<std::string, VectorRunner>& vector_runners() {
  static std::map<std::string, VectorRunner> runners;
  return runners;
}

// Reads int32 fields of the set's "params" into the kernel's parameters:
//   read_params(set, {{"input1_offset", &p.input1_offset}, {"left_shift", &p.left_shift}});
inline void read_params(const nlohmann::json& set,
                        std::initializer_list<std::pair<const char*, int32_t*>> fields) {
  const nlohmann::json& p = set.at("params");
  for (const auto& [name, field] : fields) *field = p.at(name).get<int32_t>();
}

inline std::vector<int8_t> int8_tensor(const nlohmann::json& set, const char* name) {
  return set.at("tensors").at(name).get<std::vector<int8_t>>();
}

// A kernel's output as the values the test compares with "expected_output".
template <typename T>
std::vector<int64_t> widened(const std::vector<T>& output) {
  return {output.begin(), output.end()};
}

// `static RegisterVectorRunner r("conv", RunConv);` in a *_vectors.cc file.
struct RegisterVectorRunner {
  RegisterVectorRunner(const std::string& op, VectorRunner runner) {
    vector_runners()[op] = std::move(runner);
  }
};

}  // namespace mote::kernels::testing
