// Bad input never crashes the reader: truncated files, random bytes, every single-byte change of
// small valid models. Each case either loads (and then is a valid graph that survives a round
// trip) or throws InputError with a one-line message; anything else (another exception, a crash,
// a sanitizer report when run via scripts/test.sh --sanitize) fails.
#include <gtest/gtest.h>

#include <cstring>
#include <exception>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/ir/error.h"
#include "compiler/ir/stats.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/validate.h"
#include "compiler/tflite/reader.h"

namespace mote::tflite {
namespace {

struct Outcome {
  int loaded = 0;
  int rejected = 0;
};

// Reads `bytes`; records whether it loaded; fails the test on anything but InputError.
void try_read(const std::vector<uint8_t>& bytes, Outcome* outcome, const std::string& what) {
  try {
    const ir::Graph g = read_model(bytes);
    // An accepted model is usable by every later stage.
    ops::validate(g);
    (void)ops::total_macs(g);
    (void)ir::activation_bytes(g);
    ASSERT_EQ(read_model(builder::write_model(g)), g) << what;
    ++outcome->loaded;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_FALSE(message.empty()) << what;
    EXPECT_EQ(message.find('\n'), std::string::npos) << what << ": " << message;
    ++outcome->rejected;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": unexpected exception: " << e.what();
  }
}

TEST(HostileInput, TruncatedFiles) {
  for (const auto& m : {builder::conv2d_x3(), builder::tiny_all_ops()}) {
    for (bool external : {false, true}) {
      const std::vector<uint8_t> bytes = builder::write_model(m, {.external_buffers = external});
      Outcome outcome;
      for (size_t n = 0; n < bytes.size(); ++n) {
        try_read(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n), &outcome,
                 "truncated to " + std::to_string(n));
      }
      EXPECT_EQ(outcome.loaded, 0);
    }
  }
}

TEST(HostileInput, RandomBytes) {
  builder::Random random(12345);
  Outcome outcome;
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> bytes(random.next() % 1024);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(random.next());
    // Half of them carry a plausible root offset and the TFL3 identifier, to get past the
    // first checks.
    if (i % 2 == 0 && bytes.size() >= 8) {
      const uint32_t root = random.next() % static_cast<uint32_t>(bytes.size());
      std::memcpy(bytes.data(), &root, 4);
      std::memcpy(bytes.data() + 4, "TFL3", 4);
    }
    try_read(bytes, &outcome, "random " + std::to_string(i));
  }
  EXPECT_EQ(outcome.loaded, 0);
}

// Every offset of a small model, several changes per byte.
void flip_every_byte(const ir::Graph& model, bool external, std::initializer_list<uint8_t> masks) {
  const std::vector<uint8_t> original = builder::write_model(model, {.external_buffers = external});
  Outcome outcome;
  std::vector<uint8_t> bytes = original;
  for (size_t offset = 0; offset < original.size(); ++offset) {
    for (uint8_t mask : masks) {
      bytes[offset] = original[offset] ^ mask;
      try_read(bytes, &outcome, "offset " + std::to_string(offset) + " xor " + std::to_string(mask));
      if (::testing::Test::HasFailure()) return;
    }
    bytes[offset] = original[offset];
  }
  // Weight bytes change values, not structure: those load. Header bytes do not.
  EXPECT_GT(outcome.loaded, 0);
  EXPECT_GT(outcome.rejected, 0);
  ::testing::Test::RecordProperty("loaded", outcome.loaded);
  ::testing::Test::RecordProperty("rejected", outcome.rejected);
}

TEST(HostileInput, EveryByteFlippedTinyAllOps) {
  flip_every_byte(builder::tiny_all_ops(), false, {0xFF, 0x01});
}

TEST(HostileInput, EveryByteFlippedConv2dX3External) {
  flip_every_byte(builder::conv2d_x3(), true, {0x80});
}

TEST(HostileInput, EveryByteFlippedKeywordSpottingHeader) {
  // The structure of a real-shaped model: the writer puts the root table and the buffer tables
  // first, the weight bytes next and the subgraph (tensors, operators) and operator codes last.
  const std::vector<uint8_t> original = builder::write_model(builder::kws_dscnn_like());
  Outcome outcome;
  std::vector<uint8_t> bytes = original;
  for (size_t offset = 0; offset < original.size(); ++offset) {
    if (offset >= 256 && offset + 3072 < original.size()) continue;
    bytes[offset] = original[offset] ^ 0xFF;
    try_read(bytes, &outcome, "offset " + std::to_string(offset));
    bytes[offset] = original[offset];
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(outcome.rejected, 0);
}

}  // namespace
}  // namespace mote::tflite
