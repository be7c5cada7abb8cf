#pragma once
// Reading CMSIS-NN-derived vector sets (shared/vectors/README.md) for the convolution-family
// runners: parameter names differ between older and newer sets, and absent tensors are null.
// Host test code only.

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mote/kernels/common.h"
#include "mote/kernels/scratch.h"

namespace mote::kernels::testing {

// The first of `keys` present in set["params"]; `fallback` if none is (or throws if no fallback).
inline int32_t Param(const nlohmann::json& set, std::initializer_list<const char*> keys) {
  const nlohmann::json& params = set.at("params");
  for (const char* key : keys) {
    if (params.contains(key) && !params[key].is_null()) return params[key].get<int32_t>();
  }
  throw std::runtime_error(std::string("vector set lacks param ") + *keys.begin());
}

inline int32_t Param(const nlohmann::json& set, std::initializer_list<const char*> keys,
                     int32_t fallback) {
  const nlohmann::json& params = set.at("params");
  for (const char* key : keys) {
    if (params.contains(key) && !params[key].is_null()) return params[key].get<int32_t>();
  }
  return fallback;
}

template <typename T>
std::vector<T> Tensor(const nlohmann::json& set, const char* name) {
  const nlohmann::json& tensors = set.at("tensors");
  if (!tensors.contains(name) || tensors[name].is_null()) return {};
  return tensors[name].get<std::vector<T>>();
}

inline int32_t ActMin(const nlohmann::json& set) {
  return Param(set, {"out_activation_min", "activation_min"}, -128);
}
inline int32_t ActMax(const nlohmann::json& set) {
  return Param(set, {"out_activation_max", "activation_max"}, 127);
}

inline std::vector<int64_t> Widen(const std::vector<int8_t>& v) { return {v.begin(), v.end()}; }

// Runs `run(scratch)` with no scratch and with each extension's planned size; every run must give
// the same output (reported as a test failure otherwise). Returns the first run's output.
template <typename Run>
std::vector<int8_t> RunWithEveryScratch(Run run, std::initializer_list<size_t> sizes) {
  std::vector<int8_t> first;
  bool have_first = false;
  for (size_t size : sizes) {
    std::vector<int8_t> scratch(size);
    std::vector<int8_t> out = run(Scratch{scratch.empty() ? nullptr : scratch.data(), scratch.size()});
    if (!have_first) {
      first = std::move(out);
      have_first = true;
    } else {
      EXPECT_EQ(out, first) << "output differs with " << size << " bytes of scratch";
    }
  }
  return first;
}

}  // namespace mote::kernels::testing
