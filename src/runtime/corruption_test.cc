// Damaged programs never crash the runtime: every truncation and every single-bit flip of the
// reference program either fails to load with a status, or loads and runs inside its arena.
// The program and arena buffers have their exact sizes, so AddressSanitizer (sanitize build)
// catches any access outside them; UBSan catches arithmetic a bad parameter could break.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "mote/runtime/crc32.h"
#include "mote/runtime/executor.h"
#include "runtime/testing/test_programs.h"

namespace mote::runtime {
namespace {

// Runs a loaded program once in an exact-size arena; returns the run status.
Error run_in_exact_arena(const Program& program) {
  // A flipped arena size may be huge; it is still valid, but the test does not allocate it.
  if (program.arena_size() > (1u << 20)) return Error::kOk;
  emit::AlignedBuffer arena(program.arena_size(), program.arena_alignment());
  auto executor = Executor::create(program, arena.data(), arena.size());
  if (!executor.ok()) return executor.error();
  testing::fill_deterministic(*executor);
  return executor->run();
}

// The program bytes in an allocation of exactly `size` bytes at 16-byte alignment.
Result<Program> load_exact(const uint8_t* bytes, size_t size, emit::AlignedBuffer& storage) {
  storage = emit::AlignedBuffer(std::span<const uint8_t>(bytes, size));
  return Program::load(storage.data(), size);
}

class CorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override { bytes_ = emit::emit_program(testing::conv_add_program()); }
  std::vector<uint8_t> bytes_;
};

// FlatBuffers pads the end of a buffer to its alignment; cutting only padding leaves a complete
// program. Every other truncation must fail.
TEST_F(CorruptionTest, EveryTruncationFailsToLoadUnlessOnlyPaddingIsCut) {
  size_t loaded = 0;
  for (size_t n = 0; n < bytes_.size(); ++n) {
    emit::AlignedBuffer storage;
    const auto program = load_exact(bytes_.data(), n, storage);
    if (!program.ok()) continue;
    ++loaded;
    for (size_t i = n; i < bytes_.size(); ++i) {
      ASSERT_EQ(bytes_[i], 0) << "length " << n << " loaded although byte " << i << " was cut";
    }
    EXPECT_EQ(run_in_exact_arena(*program), Error::kOk);
  }
  EXPECT_LT(loaded, 16u);
}

TEST_F(CorruptionTest, EveryBitFlipFailsOrRunsInsideTheArena) {
  size_t rejected = 0, ran = 0;
  std::vector<uint8_t> damaged = bytes_;
  for (size_t i = 0; i < bytes_.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      damaged[i] = static_cast<uint8_t>(bytes_[i] ^ (1u << bit));
      emit::AlignedBuffer storage;
      const auto program = load_exact(damaged.data(), damaged.size(), storage);
      if (!program.ok()) {
        EXPECT_NE(program.error(), Error::kOk);
        ++rejected;
      } else {
        const Error e = run_in_exact_arena(*program);
        EXPECT_TRUE(e == Error::kOk || e == Error::kUnsupported) << to_string(e);
        ++ran;
      }
    }
    damaged[i] = bytes_[i];
  }
  // Most flips hit metadata and are caught; flips in weights and padding still run.
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(ran, 0u);
  RecordProperty("rejected", static_cast<int>(rejected));
  RecordProperty("ran", static_cast<int>(ran));
}

TEST_F(CorruptionTest, EveryByteSetToExtremesFailsOrRunsInsideTheArena) {
  std::vector<uint8_t> damaged = bytes_;
  for (size_t i = 0; i < bytes_.size(); ++i) {
    for (const uint8_t value : {uint8_t{0x00}, uint8_t{0x7F}, uint8_t{0x80}, uint8_t{0xFF}}) {
      damaged[i] = value;
      emit::AlignedBuffer storage;
      const auto program = load_exact(damaged.data(), damaged.size(), storage);
      if (program.ok()) {
        const Error e = run_in_exact_arena(*program);
        EXPECT_TRUE(e == Error::kOk || e == Error::kUnsupported) << to_string(e);
      }
    }
    damaged[i] = bytes_[i];
  }
}

// Every scalar field stored, so damage reaches the fields that equal their defaults too.
std::vector<uint8_t> with_all_fields(schema::ProgramT program) {
  program.version = kFormatVersion;
  return testing::pack_unchecked(program, /*force_defaults=*/true);
}

// The same on a program that goes through every other operator kind, with every field stored;
// one bit per byte (rotating) and the extreme values keep the run short.
TEST(KitchenSinkCorruptionTest, RunsAndSurvivesDamage) {
  const auto bytes = with_all_fields(testing::kitchen_sink_program());
  {
    emit::AlignedBuffer storage;
    const auto program = load_exact(bytes.data(), bytes.size(), storage);
    ASSERT_TRUE(program.ok());
    ASSERT_EQ(program->num_operators(), 18u);
    EXPECT_EQ(run_in_exact_arena(*program), Error::kOk);
  }
  size_t rejected = 0;
  std::vector<uint8_t> damaged = bytes;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (const int value : {bytes[i] ^ (1 << (i % 8)), 0x00, 0x80, 0xFF}) {
      damaged[i] = static_cast<uint8_t>(value);
      emit::AlignedBuffer storage;
      const auto program = load_exact(damaged.data(), damaged.size(), storage);
      if (!program.ok()) {
        ++rejected;
        continue;
      }
      const Error e = run_in_exact_arena(*program);
      EXPECT_TRUE(e == Error::kOk || e == Error::kUnsupported) << to_string(e);
    }
    damaged[i] = bytes[i];
  }
  EXPECT_GT(rejected, 0u);
}

// Several random bytes at once (deterministic seed). MOTE_CORRUPTION_ITERATIONS raises the count
// for a longer local run.
TEST(RandomCorruptionTest, SeveralDamagedBytesFailOrRunInsideTheArena) {
  const char* env = std::getenv("MOTE_CORRUPTION_ITERATIONS");
  const long iterations = env != nullptr ? std::atol(env) : 1500;
  const std::vector<uint8_t> programs[] = {
      emit::emit_program(testing::conv_add_program()),
      emit::emit_program(testing::kitchen_sink_program()),
      with_all_fields(testing::conv_add_program()),
      with_all_fields(testing::kitchen_sink_program())};
  uint32_t state = 12345;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  size_t ran = 0;
  for (long it = 0; it < iterations; ++it) {
    std::vector<uint8_t> damaged = programs[it % 4];
    const int changes = 1 + static_cast<int>(next() % 4);
    for (int c = 0; c < changes; ++c) {
      const uint32_t r = next();
      damaged[r % damaged.size()] = static_cast<uint8_t>(r >> 24);
    }
    emit::AlignedBuffer storage;
    const auto program = load_exact(damaged.data(), damaged.size(), storage);
    if (!program.ok()) continue;
    ++ran;
    const Error e = run_in_exact_arena(*program);
    EXPECT_TRUE(e == Error::kOk || e == Error::kUnsupported) << "iteration " << it;
  }
  EXPECT_GT(ran, 0u);
}

TEST_F(CorruptionTest, ArenaSweepBelowThePlanFailsCleanly) {
  const auto loaded = testing::load(bytes_);
  ASSERT_TRUE(loaded.program.ok());
  for (size_t size = 0; size < loaded.program->arena_size(); size += 16) {
    emit::AlignedBuffer arena(size);
    EXPECT_EQ(Executor::create(*loaded.program, arena.data(), size).error(),
              Error::kArenaTooSmall);
  }
}

TEST(ConstantsCrcTest, IsTheStandardCrc32) {
  const char* text = "123456789";  // the CRC-32 check value of zlib and IEEE 802.3
  EXPECT_EQ(crc32(reinterpret_cast<const uint8_t*>(text), 9), 0xCBF43926u);
  EXPECT_EQ(crc32(nullptr, 0), 0u);
  // In two parts, the first part's CRC carried on; and with bytes skipped, as if never there.
  const auto* bytes = reinterpret_cast<const uint8_t*>(text);
  EXPECT_EQ(crc32(bytes + 4, 5, crc32(bytes, 4)), 0xCBF43926u);
  const char* with_gap = "1234--56789";
  EXPECT_EQ(crc32_skipping(reinterpret_cast<const uint8_t*>(with_gap), 11, 4, 2), 0xCBF43926u);
}

// Four flipped bytes in the constants (weights) load and run silently without a checksum; with
// Program.constants_crc32 (mote compile --checksum) the load refuses them with its own status.
TEST(ConstantsCrcTest, FourFlippedConstantBytesAreRefusedWithAChecksumOnly) {
  schema::ProgramT plain = testing::conv_add_program();
  ASSERT_GE(plain.constants.size(), 16u);
  schema::ProgramT checked = testing::conv_add_program();
  checked.constants_crc32 = crc32(checked.constants.data(), checked.constants.size());
  for (schema::ProgramT* source : {&plain, &checked}) {
    const bool has_crc = source->constants_crc32.has_value();
    std::vector<uint8_t> bytes = emit::emit_program(*source);
    emit::AlignedBuffer storage;
    const auto intact = load_exact(bytes.data(), bytes.size(), storage);
    ASSERT_TRUE(intact.ok()) << to_string(intact.error());
    const size_t at = static_cast<size_t>(intact->root()->constants()->data() - storage.data());
    for (size_t i = 0; i < 4; ++i) bytes[at + 3 * i] ^= 0x5A;
    LoadDiagnostic diagnostic;
    emit::AlignedBuffer damaged_storage(std::span<const uint8_t>(bytes.data(), bytes.size()));
    const auto damaged = Program::load(damaged_storage.data(), bytes.size(), &diagnostic);
    if (!has_crc) {
      EXPECT_TRUE(damaged.ok()) << "without a checksum the constants are not checked";
      continue;
    }
    ASSERT_FALSE(damaged.ok());
    EXPECT_EQ(damaged.error(), Error::kCorruptConstants);
    EXPECT_STREQ(to_string(damaged.error()), "constants corrupted (CRC-32 mismatch)");
    EXPECT_NE(std::strstr(diagnostic.reason, "CRC-32"), nullptr) << diagnostic.reason;
  }
}

// Without --checksum the field is absent: not one byte more than a program without it.
TEST(ConstantsCrcTest, AChecksumCostsOnlyItsField) {
  schema::ProgramT checked = testing::conv_add_program();
  checked.constants_crc32 = crc32(checked.constants.data(), checked.constants.size());
  const size_t plain_size = emit::emit_program(testing::conv_add_program()).size();
  EXPECT_LE(emit::emit_program(checked).size(), plain_size + 16);
}

}  // namespace
}  // namespace mote::runtime
