// Executor: arena checks, views, memory status, and running the reference program.

#include "mote/runtime/executor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "runtime/testing/test_programs.h"

namespace mote::runtime {
namespace {

using testing::conv_add_expected;
using testing::conv_add_program;
using testing::load;

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    loaded_ = std::make_unique<testing::Loaded>(load(emit::emit_program(conv_add_program())));
    ASSERT_TRUE(loaded_->program.ok()) << loaded_->diagnostic.reason;
  }
  const Program& program() const { return *loaded_->program; }

  std::unique_ptr<testing::Loaded> loaded_;
  emit::AlignedBuffer arena_{288};
};

TEST_F(ExecutorTest, ChecksArenaSizeAndAlignment) {
  EXPECT_EQ(Executor::create(program(), arena_.data(), 287).error(), Error::kArenaTooSmall);
  EXPECT_EQ(Executor::create(program(), nullptr, 256).error(), Error::kInvalidArgument);
  emit::AlignedBuffer big(512);
  EXPECT_EQ(Executor::create(program(), big.data() + 8, 300).error(), Error::kArenaMisaligned);
  EXPECT_TRUE(Executor::create(program(), big.data() + 16, 300).ok());
  EXPECT_TRUE(Executor::create(program(), arena_.data(), 288).ok());
}

TEST_F(ExecutorTest, CreateErrorsGiveTheFiguresToActOn) {
  char text[96];
  EXPECT_EQ(std::string(text, format_create_error(Error::kArenaTooSmall, program(), arena_.data(),
                                                  287, text, sizeof(text))),
            "arena too small: the program needs 288 bytes, the arena has 287");
  emit::AlignedBuffer big(512);
  EXPECT_EQ(std::string(text, format_create_error(Error::kArenaMisaligned, program(),
                                                  big.data() + 8, 300, text, sizeof(text))),
            "arena misaligned: the program needs 16-byte alignment, the arena's address % 16 "
            "is 8");
  EXPECT_EQ(std::string(text, format_create_error(Error::kInvalidArgument, program(), nullptr, 0,
                                                  text, sizeof(text))),
            "invalid argument");
  EXPECT_EQ(format_create_error(Error::kArenaTooSmall, program(), arena_.data(), 287, text, 20),
            0u);
}

TEST(FormatLoadError, NamesThePlaceAndTheReason) {
  char text[160];
  LoadDiagnostic d;
  d.where = LoadDiagnostic::Where::kOperator;
  d.index = 3;
  d.reason = "scratch region outside the arena";
  d.op_name = "CONV_2D";
  EXPECT_EQ(std::string(text, format_load_error(Error::kInvalidProgram, d, text, sizeof(text))),
            "invalid program: operator 3 (CONV_2D): scratch region outside the arena");
  d.where = LoadDiagnostic::Where::kInput;
  EXPECT_EQ(std::string(text, format_load_error(Error::kInvalidProgram, d, text, sizeof(text))),
            "invalid program: graph input 3: scratch region outside the arena");
  // A program for another CPU: both CPUs, and the --target that fixes it where the runtime's
  // build named its CPU (MOTE_RUNTIME_CPU).
  d.where = LoadDiagnostic::Where::kOperator;
  d.reason = "compile the model again";
  d.program_cpu = "cortex-m4";
  d.runtime_kernels = "mve";
  char longer[240];
  EXPECT_EQ(std::string(longer, format_load_error(Error::kInvalidPlan, d, longer, sizeof(longer))),
            "invalid memory plan: a program for cortex-m4 on a runtime with mve kernels: operator 3 "
            "(CONV_2D): compile the model again");
  d.runtime_cpu = "cortex-m55";
  EXPECT_EQ(std::string(longer, format_load_error(Error::kInvalidPlan, d, longer, sizeof(longer))),
            "invalid memory plan: a program for cortex-m4 on a runtime for cortex-m55 (mve kernels): "
            "operator 3 (CONV_2D): compile the model again (mote compile <model> --target cortex-m55)");
  d = LoadDiagnostic{};
  d.where = LoadDiagnostic::Where::kInput;
  d.index = 3;
  d.reason = "scratch region outside the arena";
  // Too small: 0, and still a terminated (cut) text.
  EXPECT_EQ(format_load_error(Error::kInvalidProgram, d, text, 10), 0u);
  EXPECT_STREQ(text, "invalid p");
}

TEST_F(ExecutorTest, ViewsPointIntoTheArena) {
  auto executor = Executor::create(program(), arena_.data(), arena_.size());
  ASSERT_TRUE(executor.ok());
  ASSERT_EQ(executor->num_inputs(), 1u);
  ASSERT_EQ(executor->num_outputs(), 1u);
  const TensorView in = executor->input(0);
  EXPECT_EQ(in.data, arena_.data());
  EXPECT_EQ(in.size, 50u);
  EXPECT_EQ(in.type, DataType::kInt8);
  ASSERT_EQ(in.rank, 4u);
  EXPECT_EQ(in.shape[0], 1);
  EXPECT_EQ(in.shape[1], 5);
  EXPECT_EQ(in.shape[3], 2);
  EXPECT_FLOAT_EQ(in.scale, 0.5f);
  EXPECT_EQ(in.zero_point, -3);
  const TensorView out = executor->output(0);
  EXPECT_EQ(out.data, arena_.data() + 176);
  EXPECT_EQ(out.size, 100u);
  ASSERT_EQ(out.rank, 2u);
  EXPECT_EQ(out.shape[1], 100);
  EXPECT_EQ(executor->input(1).data, nullptr);
  EXPECT_EQ(executor->output(7).data, nullptr);
}

TEST_F(ExecutorTest, RunsConvAddReshapeBitExact) {
  auto executor = Executor::create(program(), arena_.data(), arena_.size());
  ASSERT_TRUE(executor.ok());
  // Fill the whole arena with garbage first: the program must not depend on it.
  std::memset(arena_.data(), 0x5A, arena_.size());
  testing::fill_deterministic(*executor);
  const TensorView in = executor->input(0);
  const std::vector<int8_t> input(reinterpret_cast<int8_t*>(in.data),
                                  reinterpret_cast<int8_t*>(in.data) + in.size);
  ASSERT_EQ(executor->run(), Error::kOk);
  const TensorView out = executor->output(0);
  const std::vector<int8_t> got(reinterpret_cast<int8_t*>(out.data),
                                reinterpret_cast<int8_t*>(out.data) + out.size);
  EXPECT_EQ(got, conv_add_expected(input));
}

TEST_F(ExecutorTest, RunsAgainWithTheSameResult) {
  auto executor = Executor::create(program(), arena_.data(), arena_.size());
  ASSERT_TRUE(executor.ok());
  std::vector<int8_t> input(50);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int8_t>(i * 37 - 100);
  std::memcpy(executor->input(0).data, input.data(), input.size());
  ASSERT_EQ(executor->run(), Error::kOk);
  const std::vector<int8_t> expected = conv_add_expected(input);
  EXPECT_EQ(std::memcmp(executor->output(0).data, expected.data(), expected.size()), 0);
  // Running again on the same input gives the same output.
  std::memcpy(executor->input(0).data, input.data(), input.size());
  ASSERT_EQ(executor->run(), Error::kOk);
  EXPECT_EQ(std::memcmp(executor->output(0).data, expected.data(), expected.size()), 0);
}

TEST_F(ExecutorTest, RunsOperatorByOperatorLikeRun) {
  EXPECT_STREQ(program().operator_name(0), "CONV_2D");
  EXPECT_STREQ(program().operator_name(1), "ADD");
  EXPECT_STREQ(program().operator_name(2), "RESHAPE");
  EXPECT_STREQ(program().operator_name(3), "");
  auto executor = Executor::create(program(), arena_.data(), arena_.size());
  ASSERT_TRUE(executor.ok());
  ASSERT_EQ(executor->num_operators(), 3u);
  std::vector<int8_t> input(50);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int8_t>(i * 29 + 7);
  std::memcpy(executor->input(0).data, input.data(), input.size());
  const std::vector<int8_t> expected = conv_add_expected(input);
  // After the convolution alone, the output region does not hold the result yet (the scratch
  // region shares its bytes); after all three steps it does.
  std::memset(arena_.data() + 64, 0, arena_.size() - 64);
  ASSERT_EQ(executor->run_operator(0), Error::kOk);
  EXPECT_NE(std::memcmp(executor->output(0).data, expected.data(), expected.size()), 0);
  ASSERT_EQ(executor->run_operator(1), Error::kOk);
  ASSERT_EQ(executor->run_operator(2), Error::kOk);
  EXPECT_EQ(std::memcmp(executor->output(0).data, expected.data(), expected.size()), 0);
  EXPECT_EQ(executor->run_operator(3), Error::kInvalidArgument);
  EXPECT_EQ(executor->run_operator(static_cast<size_t>(-1)), Error::kInvalidArgument);
}

TEST_F(ExecutorTest, ReportsMemoryStatus) {
  auto executor = Executor::create(program(), arena_.data(), arena_.size());
  ASSERT_TRUE(executor.ok());
  const MemoryStatus s = executor->memory_status();
  EXPECT_EQ(s.program_size, program().size());
  EXPECT_EQ(s.constant_data, program().constants_size());
  EXPECT_EQ(s.arena_planned, 288u);
  EXPECT_EQ(s.activations, 208u);
  EXPECT_EQ(s.scratch, 80u);
  EXPECT_EQ(s.lower_bound, 240u);
  EXPECT_EQ(s.runtime_state, sizeof(Program) + sizeof(Executor));
  EXPECT_EQ(s.temp_allocator, 0u);
  EXPECT_EQ(s.inputs_outside, 0u);
  // Two words for the Program handle, plus the arena pointer and size, and a pointer per input
  // the caller may bind outside the arena.
  EXPECT_LE(sizeof(Program), 2 * sizeof(void*));
  EXPECT_LE(sizeof(Executor), sizeof(Program) + (2 + kMaxExternalInputs) * sizeof(void*));
}

TEST(FormatMemoryStatusTest, WritesTheFiveLines) {
  const MemoryStatus s{3912, 2560, 2048, 1728, 320, 2048, 48, 0, 0};
  char buffer[256];
  const size_t n = format_memory_status(s, buffer, sizeof(buffer));
  EXPECT_EQ(std::string(buffer, n),
            "I mote: program_size: 3912 bytes\n"
            "I mote: constant_data: 2560 bytes\n"
            "I mote: arena_planned: 2048 bytes (activations 1728, scratch 320, lower bound 2048)\n"
            "I mote: runtime_state: 48 bytes\n"
            "I mote: temp_allocator: 0 bytes\n");
  EXPECT_EQ(std::strlen(buffer), n);
  EXPECT_EQ(format_memory_status(s, buffer, n), 0u);  // no room for the terminator
  EXPECT_EQ(format_memory_status(s, buffer, 10), 0u);
  EXPECT_EQ(format_memory_status(s, nullptr, 0), 0u);
}

TEST(FormatMemoryStatusTest, NamesTheStateOfAProgramThatHasSome) {
  const MemoryStatus s{3912, 2560, 2048, 1728, 320, 2048, 48, 0, 576};
  char buffer[256];
  const size_t n = format_memory_status(s, buffer, sizeof(buffer));
  EXPECT_NE(std::string(buffer, n).find(
                "arena_planned: 2048 bytes (activations 1728, scratch 320, lower bound 2048, "
                "state 576)\n"),
            std::string::npos);
}

TEST(FormatMemoryStatusTest, PricesInputsOutsideTheArenaOnALineOfTheirOwn) {
  MemoryStatus s{3912, 2560, 2048, 1728, 320, 2048, 48, 0, 0};
  s.inputs_outside = 27648;
  char buffer[384];
  const size_t n = format_memory_status(s, buffer, sizeof(buffer));
  EXPECT_NE(std::string(buffer, n).find("I mote: temp_allocator: 0 bytes\n"
                                        "I mote: inputs_outside_arena: 27648 bytes (the caller's "
                                        "buffers)\n"),
            std::string::npos);
  // The largest figures a 32-bit device can have fit the documented 384 bytes.
  const size_t max = 0xFFFFFFFFu;
  const MemoryStatus big{max, max, max, max, max, max, max, max, max, max};
  EXPECT_GT(format_memory_status(big, buffer, sizeof(buffer)), 0u);
}

TEST_F(ExecutorTest, SaysWhetherARunKeepsTheInput) {
  auto executor = Executor::create(program(), arena_.data(), arena_.size());
  ASSERT_TRUE(executor.ok());
  // x @0 shares its bytes with nothing: preserved. With z (born after x dies) over it, not.
  EXPECT_TRUE(executor->input_preserved(0));
  EXPECT_FALSE(executor->input_preserved(1));
  schema::ProgramT reused = conv_add_program();
  reused.operators[0]->scratch->mutate_offset(64);
  reused.tensors[3]->offset = 160;  // y
  reused.tensors[5]->offset = 0;    // z
  reused.tensors[6]->offset = 0;    // out, its alias
  const testing::Loaded loaded = load(emit::emit_program(std::move(reused)));
  ASSERT_TRUE(loaded.program.ok()) << loaded.diagnostic.reason;
  auto reusing = Executor::create(*loaded.program, arena_.data(), arena_.size());
  ASSERT_TRUE(reusing.ok());
  EXPECT_FALSE(reusing->input_preserved(0));
  std::vector<int8_t> input(50, 9);
  std::memcpy(reusing->input(0).data, input.data(), input.size());
  ASSERT_EQ(reusing->run(), Error::kOk);
  EXPECT_NE(std::memcmp(reusing->input(0).data, input.data(), input.size()), 0);
}

// conv_add_program with its input outside the arena.
class ExternalInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema::ProgramT p = conv_add_program();
    testing::make_input_external(p);
    loaded_ = std::make_unique<testing::Loaded>(load(emit::emit_program(std::move(p))));
    ASSERT_TRUE(loaded_->program.ok()) << loaded_->diagnostic.reason;
    for (size_t i = 0; i < input_.size(); ++i) input_[i] = static_cast<int8_t>(i * 41 - 90);
  }

  std::unique_ptr<testing::Loaded> loaded_;
  emit::AlignedBuffer arena_{288};
  std::vector<int8_t> input_ = std::vector<int8_t>(50);
};

TEST_F(ExternalInputTest, RunsOnTheCallersBufferAndNeverWritesIt) {
  auto executor = Executor::create(*loaded_->program, arena_.data(), arena_.size());
  ASSERT_TRUE(executor.ok());
  EXPECT_TRUE(executor->input_is_external(0));
  EXPECT_FALSE(executor->input_is_external(1));
  ASSERT_EQ(executor->bind_input(0, input_.data(), input_.size()), Error::kOk);
  const TensorView in = executor->input(0);
  EXPECT_EQ(in.data, reinterpret_cast<uint8_t*>(input_.data()));
  EXPECT_EQ(in.size, 50u);
  // Whatever the arena holds where the input used to be, the result is the caller's input's.
  std::memset(arena_.data(), 0x5A, arena_.size());
  const std::vector<int8_t> copy = input_;
  ASSERT_EQ(executor->run(), Error::kOk);
  const TensorView out = executor->output(0);
  EXPECT_EQ(std::vector<int8_t>(reinterpret_cast<int8_t*>(out.data),
                                reinterpret_cast<int8_t*>(out.data) + out.size),
            conv_add_expected(copy));
  EXPECT_EQ(input_, copy);
  EXPECT_TRUE(executor->input_preserved(0));
  EXPECT_EQ(executor->memory_status().inputs_outside, 50u);
  // Bound again to another buffer, it reads that one.
  std::vector<int8_t> other(50, -7);
  ASSERT_EQ(executor->bind_input(0, other.data(), other.size()), Error::kOk);
  ASSERT_EQ(executor->run(), Error::kOk);
  EXPECT_EQ(std::memcmp(executor->output(0).data, conv_add_expected(other).data(), 100), 0);
}

TEST_F(ExternalInputTest, RefusesToRunUnboundAndBadBindings) {
  auto executor = Executor::create(*loaded_->program, arena_.data(), arena_.size());
  ASSERT_TRUE(executor.ok());
  const TensorView unbound = executor->input(0);
  EXPECT_EQ(unbound.data, nullptr);
  EXPECT_EQ(unbound.size, 50u);  // described, to size the buffer
  ASSERT_EQ(unbound.rank, 4u);
  EXPECT_EQ(executor->run(), Error::kInputNotBound);
  EXPECT_EQ(executor->run_operator(0), Error::kInputNotBound);
  EXPECT_STREQ(to_string(Error::kInputNotBound), "input outside the arena not bound");
  EXPECT_EQ(executor->bind_input(0, input_.data(), 49), Error::kInvalidArgument);
  EXPECT_EQ(executor->bind_input(0, input_.data(), 51), Error::kInvalidArgument);
  EXPECT_EQ(executor->bind_input(0, nullptr, 50), Error::kInvalidArgument);
  EXPECT_EQ(executor->bind_input(1, input_.data(), 50), Error::kInvalidArgument);
  EXPECT_EQ(executor->run(), Error::kInputNotBound);  // refused bindings bind nothing
  // An input in the arena is filled in place, never bound.
  const testing::Loaded in_arena = load(emit::emit_program(conv_add_program()));
  auto arena_input = Executor::create(*in_arena.program, arena_.data(), arena_.size());
  ASSERT_TRUE(arena_input.ok());
  EXPECT_FALSE(arena_input->input_is_external(0));
  EXPECT_EQ(arena_input->bind_input(0, input_.data(), 50), Error::kInvalidArgument);
}

TEST_F(ExternalInputTest, RefusesABufferNotAlignedToTheElementSize) {
  // A float input (4-byte elements) outside the arena.
  const auto loaded = [] {
    schema::ProgramT p = testing::kitchen_sink_program();
    testing::make_input_external(p);
    return testing::load(emit::emit_program(std::move(p)));
  }();
  ASSERT_TRUE(loaded.program.ok()) << loaded.diagnostic.reason;
  emit::AlignedBuffer arena(loaded.program->arena_size());
  auto executor = Executor::create(*loaded.program, arena.data(), arena.size());
  ASSERT_TRUE(executor.ok());
  const size_t size = executor->input(0).size;
  emit::AlignedBuffer buffer(size + 16);
  EXPECT_EQ(executor->bind_input(0, buffer.data() + 2, size), Error::kInvalidArgument);
  ASSERT_EQ(executor->bind_input(0, buffer.data() + 4, size), Error::kOk);
  ASSERT_EQ(executor->run(), Error::kOk);
}

#if MOTE_DEBUG_CHECKS
TEST_F(ExecutorTest, DebugChecksCatchAScratchRegionShrunkAfterLoad) {
  auto executor = Executor::create(program(), arena_.data(), arena_.size());
  ASSERT_TRUE(executor.ok());
  // The program is read in place: change the conv's scratch size in the bytes after loading.
  auto* root = schema::GetMutableProgram(loaded_->bytes.data());
  root->mutable_operators()->GetMutableObject(0)->mutable_scratch()->mutate_size(16);
  EXPECT_EQ(executor->run(), Error::kScratchTooSmall);
}
#endif

}  // namespace
}  // namespace mote::runtime

namespace mote::runtime {
namespace {

TEST(KitchenSinkTest, RunsEveryOperatorKindToAProbabilityVector) {
  const auto loaded = testing::load(emit::emit_program(testing::kitchen_sink_program()));
  ASSERT_TRUE(loaded.program.ok()) << loaded.diagnostic.reason;
  emit::AlignedBuffer arena(loaded.program->arena_size());
  auto executor = Executor::create(*loaded.program, arena.data(), arena.size());
  ASSERT_TRUE(executor.ok());
  const TensorView in = executor->input(0);
  ASSERT_EQ(in.type, DataType::kFloat32);
  auto* x = reinterpret_cast<float*>(in.data);
  for (size_t i = 0; i < in.size / 4; ++i) x[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  ASSERT_EQ(executor->run(), Error::kOk);
  const TensorView out = executor->output(0);
  ASSERT_EQ(out.type, DataType::kFloat32);
  ASSERT_EQ(out.size, 12u);
  const auto* y = reinterpret_cast<const float*>(out.data);
  // Softmax then dequantize (scale 1/256): probabilities summing to 1 within rounding.
  float sum = 0;
  for (int k = 0; k < 3; ++k) {
    EXPECT_GE(y[k], 0.0f);
    EXPECT_LE(y[k], 1.0f);
    sum += y[k];
  }
  EXPECT_NEAR(sum, 1.0f, 3.0f / 256);
}

}  // namespace
}  // namespace mote::runtime
