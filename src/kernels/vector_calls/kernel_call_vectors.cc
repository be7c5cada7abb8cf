// Reference-vector runner for the operators with kernel variants (conv, depthwise_conv,
// fully_connected, avgpool, maxpool, add, mul): each set becomes a kernel call (kernel_call.h),
// the form the firmware's vector test runs too, and runs with each extension's planned scratch
// and with none; every run must give the same output.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/vector_calls/kernel_call.h"
#include "kernels/vector_calls/kernel_call_json.h"
#include "kernels/testing/vector_runner.h"

namespace mote::kernels::testing {
namespace {

const char* ToString(CallStatus status) {
  switch (status) {
    case CallStatus::kOk: return "ok";
    case CallStatus::kOutputTooSmall: return "output too small";
    case CallStatus::kScratchTooSmall: return "scratch too small";
    case CallStatus::kKernelSumsDiffer: return "kernel sums change the result";
  }
  return "?";
}

std::vector<int64_t> RunCallSet(const nlohmann::json& set) {
  const std::vector<uint32_t> words = encode_call(set);
  KernelCall call{};
  if (!decode_call(reinterpret_cast<const uint8_t*>(words.data()), words.size() * 4, &call)) {
    ADD_FAILURE() << "the set's parameters do not match its tensors' sizes";
    return {};
  }
  const size_t needed = built_call_scratch_bytes(call);
  std::vector<size_t> sizes = {call_scratch_bytes(call, Extension::kScalar),
                               call_scratch_bytes(call, Extension::kDsp),
                               call_scratch_bytes(call, Extension::kMve), 0};
  // Sizes below what this build's kernel needs are refused by run_call (the runtime's rule).
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](size_t s) { return s < needed; }),
              sizes.end());
  if (sizes.empty()) sizes = {needed};
  const CallTensor& expected = expected_output(call);
  std::vector<int64_t> first;
  for (size_t size : sizes) {
    std::vector<int8_t> scratch(size);
    // int64 elements: room and alignment for the int8 and int16 outputs alike.
    std::vector<int64_t> bytes(expected.count);
    const CallStatus status = run_call(call, bytes.data(), bytes.size() * sizeof(int64_t),
                                       Scratch{scratch.empty() ? nullptr : scratch.data(), size});
    std::vector<int64_t> out(expected.count);
    for (uint32_t i = 0; i < expected.count; ++i) out[i] = value_at(bytes.data(), expected.element_bytes, i);
    EXPECT_EQ(status, CallStatus::kOk) << ToString(status) << " with " << size << " bytes of scratch";
    if (size == sizes.front()) {
      first = out;
    } else {
      EXPECT_EQ(out, first) << "output differs with " << size << " bytes of scratch";
    }
  }
  return first;
}

const bool kRegistered = [] {
  for (const char* op : kCallOps) {
    vector_runners()[op] = RunCallSet;
  }
  return true;
}();

}  // namespace
}  // namespace mote::kernels::testing
