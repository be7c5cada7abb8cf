#pragma once
// Registry of reference-vector runners, one per "op" value in shared/vectors/<op>/<set>.json.
// Each op family registers its runner from its own *_vectors.cc file; vectors_test.cc discovers the
// sets and calls the runner registered for the set's "op". Host test code only.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mote::kernels::testing {

// Runs one set; returns the kernel's output as int64 values to compare with "expected_output".
using VectorRunner = std::function<std::vector<int64_t>(const nlohmann::json& set)>;

inline std::map<std::string, VectorRunner>& vector_runners() {
  static std::map<std::string, VectorRunner> runners;
  return runners;
}

// `static RegisterVectorRunner r("conv", RunConv);` in a *_vectors.cc file.
struct RegisterVectorRunner {
  RegisterVectorRunner(const std::string& op, VectorRunner runner) {
    vector_runners()[op] = std::move(runner);
  }
};

}  // namespace mote::kernels::testing
