// Kernel calls: a set read from JSON decodes and runs to its expected output; bytes that are not
// a well-formed call (cut short, wrong kind, sizes that disagree with the parameters) are refused
// without reading past them.

#include "kernels/vector_calls/kernel_call.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/vector_calls/kernel_call_json.h"

namespace mote::kernels::testing {
namespace {

// A 2x2 max pool over a 1x2x2x1 input: one output, the largest element.
nlohmann::json MaxPoolSet() {
  return nlohmann::json::parse(R"({"op": "maxpool",
    "params": {"batch_size": 1, "input_h": 2, "input_w": 2, "input_c": 1, "output_h": 1,
               "output_w": 1, "filter_h": 2, "filter_w": 2, "stride_h": 2, "stride_w": 2,
               "padding_h": 0, "padding_w": 0, "activation_min": -128, "activation_max": 100},
    "tensors": {"input": [3, -7, 120, 5], "expected_output": [100]}})");
}

bool Decodes(const std::vector<uint32_t>& words, size_t bytes, KernelCall* call) {
  return decode_call(reinterpret_cast<const uint8_t*>(words.data()), bytes, call);
}

TEST(KernelCall, RunsADecodedSet) {
  const std::vector<uint32_t> words = encode_call(MaxPoolSet());
  KernelCall call{};
  ASSERT_TRUE(Decodes(words, words.size() * 4, &call));
  EXPECT_EQ(call.kind, CallKind::kMaxPool);
  ASSERT_EQ(expected_output(call).count, 1u);
  int8_t out = 0;
  EXPECT_EQ(run_call(call, &out, 1, Scratch{nullptr, 0}), CallStatus::kOk);
  EXPECT_EQ(out, 100);  // 120 clamped to activation_max
  EXPECT_EQ(run_call(call, &out, 0, Scratch{nullptr, 0}), CallStatus::kOutputTooSmall);
}

// A 16x8 fully connected layer of one input and one output: 3 * 2 + bias 5, scaled by 1.
nlohmann::json FullyConnected16x8Set() {
  return nlohmann::json::parse(R"({"op": "fully_connected_s16",
    "params": {"input_batches": 1, "accumulation_depth": 1, "out_ch": 1, "input_offset": 0,
               "output_offset": 0, "output_multiplier": 1073741824, "output_shift": 1,
               "out_activation_min": -32768, "out_activation_max": 32767},
    "dtypes": {"input": "int16", "weights": "int8", "bias": "int64", "expected_output": "int16"},
    "tensors": {"input": [3], "weights": [2], "bias": [5], "expected_output": [11]}})");
}

TEST(KernelCall, KeepsEightByteElementsAligned) {
  const std::vector<uint32_t> words = encode_call(FullyConnected16x8Set());
  KernelCall call{};
  ASSERT_TRUE(Decodes(words, words.size() * 4, &call));
  ASSERT_EQ(call.tensors[2].element_bytes, 8u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(call.tensors[2].data) % 8, 0u);
  int16_t out = 0;
  EXPECT_EQ(run_call(call, &out, sizeof(out), Scratch{nullptr, 0}), CallStatus::kOk);
  EXPECT_EQ(out, 11);
  // The same bytes 4 bytes off an 8-byte boundary would misalign the bias: refused.
  std::vector<uint32_t> shifted(words.size() + 1);
  std::copy(words.begin(), words.end(), shifted.begin() + 1);
  EXPECT_FALSE(decode_call(reinterpret_cast<const uint8_t*>(shifted.data() + 1), words.size() * 4,
                           &call));
}

TEST(KernelCall, RefusesEveryShorterPrefix) {
  const std::vector<uint32_t> words = encode_call(MaxPoolSet());
  KernelCall call{};
  for (size_t bytes = 0; bytes < words.size() * 4; bytes += 4) {
    EXPECT_FALSE(Decodes(words, bytes, &call)) << bytes << " bytes";
  }
}

TEST(KernelCall, RefusesUnknownKindsAndDisagreeingSizes) {
  const std::vector<uint32_t> good = encode_call(MaxPoolSet());
  KernelCall call{};
  for (uint32_t kind : {0u, 8u, 0xffffffffu}) {
    std::vector<uint32_t> words = good;
    words[1] = kind;
    EXPECT_FALSE(Decodes(words, words.size() * 4, &call)) << "kind " << kind;
  }
  std::vector<uint32_t> words = good;
  words[3 + 1] = 3;  // input_h 3: the 4-element input no longer fits the parameters
  EXPECT_FALSE(Decodes(words, words.size() * 4, &call));
  words = good;
  words[2] = 13;  // one int fewer than a pool has
  EXPECT_FALSE(Decodes(words, words.size() * 4, &call));
  words = good;
  words.push_back(0);  // trailing bytes
  EXPECT_FALSE(Decodes(words, words.size() * 4, &call));
}

TEST(KernelCall, RefusesEveryFlippedWordWithoutCrashing) {
  const std::vector<uint32_t> good = encode_call(MaxPoolSet());
  KernelCall call{};
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint32_t> words = good;
    words[i] = ~words[i];
    // A flipped data word may still decode (any int8 values are valid); structure words may not.
    if (Decodes(words, words.size() * 4, &call)) {
      int8_t out = 0;
      EXPECT_EQ(run_call(call, &out, 1, Scratch{nullptr, 0}), CallStatus::kOk);
    }
  }
}

}  // namespace
}  // namespace mote::kernels::testing
