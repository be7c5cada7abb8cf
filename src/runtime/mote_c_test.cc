// The C API (mote/runtime/mote.h): a C11 caller (mote_c_test_app.c) gets the C++ Executor's
// outputs byte for byte on builder models, and every misuse gets a status, never a crash.

#include "mote/runtime/mote.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/emit/emit.h"
#include "compiler/pipeline/compile.h"
#include "mote/runtime/executor.h"
#include "runtime/testing/test_programs.h"

extern "C" mote_status mote_c_test_run(const uint8_t* program_bytes, size_t program_size,
                                       uint8_t* arena, size_t arena_size, const uint8_t* input,
                                       size_t input_size, uint8_t* output, size_t output_capacity,
                                       size_t* output_size, const char** step);

namespace mote::runtime {
namespace {

std::vector<uint8_t> compile(const ir::Graph& graph, bool inputs_outside_arena = false) {
  pipeline::CompileOptions options;
  options.plan.cpu = "cortex-m4";
  options.plan.inputs_outside_arena = inputs_outside_arena;
  // A float input stays float in the arena too, so both programs take the same input bytes.
  options.plan.quantize_float_inputs = false;
  return pipeline::compile(graph, options).program;
}

// Runs `bytes` through the C++ Executor with deterministic inputs; returns input 0 and output 0.
// Always with the input in the arena: the C caller's program may keep it outside.
std::pair<std::vector<uint8_t>, std::vector<uint8_t>> run_cpp(const emit::AlignedBuffer& bytes) {
  const Result<Program> program = Program::load(bytes.data(), bytes.size());
  EXPECT_TRUE(program.ok());
  emit::AlignedBuffer arena(program->arena_size(), program->arena_alignment());
  Result<Executor> executor = Executor::create(*program, arena.data(), arena.size());
  EXPECT_TRUE(executor.ok());
  EXPECT_FALSE(executor->input_is_external(0));
  testing::fill_deterministic(*executor);
  const TensorView in = executor->input(0);
  std::vector<uint8_t> input(in.data, in.data + in.size);
  EXPECT_EQ(executor->run(), Error::kOk);
  const TensorView out = executor->output(0);
  return {input, std::vector<uint8_t>(out.data, out.data + out.size)};
}

class CApiModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CApiModelTest, CCallerGetsTheCppExecutorsOutputs) {
  for (const builder::NamedModel& m : builder::all_named_models()) {
    if (m.name != GetParam()) continue;
    const auto [input, expected] = run_cpp(emit::AlignedBuffer(compile(m.graph)));
    for (const bool outside : {false, true}) {
    SCOPED_TRACE(outside ? "input outside the arena" : "input in the arena");
    const emit::AlignedBuffer bytes(compile(m.graph, outside));
    const Result<Program> program = Program::load(bytes.data(), bytes.size());
    ASSERT_TRUE(program.ok());
    // A fresh arena full of garbage: the C caller must not depend on what the C++ run left.
    emit::AlignedBuffer arena(program->arena_size() + 64, program->arena_alignment());
    std::memset(arena.data(), 0xA5, arena.size());
    std::vector<uint8_t> output(expected.size() + 16);
    size_t output_size = 0;
    const char* step = "?";
    const mote_status s =
        mote_c_test_run(bytes.data(), bytes.size(), arena.data(), arena.size(), input.data(),
                        input.size(), output.data(), output.size(), &output_size, &step);
    ASSERT_EQ(s, MOTE_OK) << step << ": " << mote_status_string(s);
    output.resize(output_size);
    EXPECT_EQ(output, expected);
    }
    return;
  }
  FAIL() << "no builder model " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(BuilderModels, CApiModelTest,
                         ::testing::Values("conv2d_x3", "kws_dscnn_like", "tiny_all_ops"));

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = emit::AlignedBuffer(emit::emit_program(testing::conv_add_program()));
    ASSERT_EQ(mote_load(&program_, bytes_.data(), bytes_.size(), nullptr), MOTE_OK);
    arena_ = emit::AlignedBuffer(mote_arena_bytes(&program_) + 32, 16);
  }
  emit::AlignedBuffer bytes_;
  emit::AlignedBuffer arena_;
  mote_program program_;
};

TEST_F(CApiTest, StatusValuesAndStringsAreTheRuntimes) {
  EXPECT_STREQ(mote_status_string(MOTE_OK), "ok");
  EXPECT_STREQ(mote_status_string(MOTE_ARENA_TOO_SMALL), to_string(Error::kArenaTooSmall));
  EXPECT_STREQ(mote_status_string(static_cast<mote_status>(0x7f)), "unknown error");
  EXPECT_STREQ(mote_status_string(static_cast<mote_status>(-1)), "unknown error");
  EXPECT_STREQ(mote_status_string(static_cast<mote_status>(0x1000)), "unknown error");
}

TEST_F(CApiTest, ArenaFiguresAreTheProgramsAndOperatorsAreNamed) {
  const Result<Program> p = Program::load(bytes_.data(), bytes_.size());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(mote_arena_bytes(&program_), p->arena_size());
  EXPECT_EQ(mote_arena_align(&program_), p->arena_alignment());
  EXPECT_STREQ(mote_target_cpu(&program_), p->target_cpu());
  EXPECT_STREQ(p->target_cpu(), "cortex-m3");  // testing::conv_add_program()'s
  EXPECT_STREQ(mote_target_cpu(nullptr), "");
  mote_executor e;
  ASSERT_EQ(mote_executor_init(&e, &program_, arena_.data(), arena_.size()), MOTE_OK);
  EXPECT_EQ(mote_num_operators(&e), p->num_operators());
  EXPECT_STREQ(mote_operator_name(&e, 0), "CONV_2D");
  EXPECT_STREQ(mote_operator_name(&e, 99), "");
  for (size_t i = 0; i < mote_num_operators(&e); ++i) EXPECT_EQ(mote_run_operator(&e, i), MOTE_OK);
  EXPECT_EQ(mote_run_operator(&e, mote_num_operators(&e)), MOTE_INVALID_ARGUMENT);
  mote_memory_status s;
  ASSERT_EQ(mote_get_memory_status(&e, &s), MOTE_OK);
  char text[384];
  const size_t n = mote_format_memory_status(&s, text, sizeof(text));
  ASSERT_GT(n, 0u);
  EXPECT_NE(std::string(text, n).find("I mote: temp_allocator: 0 bytes\n"), std::string::npos);
  EXPECT_EQ(mote_format_memory_status(&s, text, 8), 0u);
}

TEST_F(CApiTest, BadProgramsGetAStatusAndADiagnostic) {
  mote_program p;
  mote_diagnostic d;
  std::vector<uint8_t> broken(bytes_.data(), bytes_.data() + bytes_.size());
  broken[4] ^= 0xFF;  // the file identifier
  const emit::AlignedBuffer b(broken);
  EXPECT_EQ(mote_load(&p, b.data(), b.size(), &d), MOTE_INVALID_PROGRAM);
  EXPECT_EQ(d.where, MOTE_WHERE_PROGRAM);
  EXPECT_NE(std::string(d.reason), "");
  EXPECT_EQ(mote_arena_bytes(&p), 0u);  // a failed load leaves an unusable, zeroed handle
  mote_executor e;
  EXPECT_EQ(mote_executor_init(&e, &p, arena_.data(), arena_.size()), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_load(&p, bytes_.data() + 1, bytes_.size() - 1, nullptr), MOTE_PROGRAM_MISALIGNED);
  EXPECT_EQ(mote_load(nullptr, bytes_.data(), bytes_.size(), nullptr), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_load(&p, nullptr, 0, nullptr), MOTE_INVALID_ARGUMENT);
}

TEST_F(CApiTest, BadArenasAndIndicesGetAStatus) {
  mote_executor e;
  EXPECT_EQ(mote_executor_init(&e, &program_, arena_.data(), mote_arena_bytes(&program_) - 1),
            MOTE_ARENA_TOO_SMALL);
  EXPECT_EQ(mote_executor_init(&e, &program_, arena_.data() + 1, arena_.size() - 1),
            MOTE_ARENA_MISALIGNED);
  // A failed init leaves a zeroed executor that every call refuses.
  EXPECT_EQ(mote_run(&e), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_num_inputs(&e), 0u);
  mote_tensor t;
  EXPECT_EQ(mote_input(&e, 0, &t), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(t.data, nullptr);
  mote_memory_status s;
  EXPECT_EQ(mote_get_memory_status(&e, &s), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_run(nullptr), MOTE_INVALID_ARGUMENT);

  ASSERT_EQ(mote_executor_init(&e, &program_, arena_.data(), arena_.size()), MOTE_OK);
  EXPECT_EQ(mote_input(&e, 0, &t), MOTE_OK);
  EXPECT_EQ(t.type, MOTE_INT8);
  EXPECT_EQ(t.rank, 4u);
  EXPECT_EQ(t.shape[3], 2);
  EXPECT_EQ(t.size, 50u);
  EXPECT_EQ(mote_input(&e, 1, &t), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_output(&e, 1, &t), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_output(&e, 0, nullptr), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_output(&e, 0, &t), MOTE_OK);
  EXPECT_EQ(t.size, 100u);
  // In the arena: filled in place, never bound; a run may or may not keep it (this plan does).
  EXPECT_EQ(mote_input_is_external(&e, 0), 0);
  EXPECT_EQ(mote_input_preserved(&e, 0), 1);
  EXPECT_EQ(mote_input_preserved(&e, 1), 0);
  uint8_t buffer[50] = {};
  EXPECT_EQ(mote_bind_input(&e, 0, buffer, sizeof buffer), MOTE_INVALID_ARGUMENT);
}

TEST_F(CApiTest, InputsOutsideTheArenaAreBoundNotFilled) {
  schema::ProgramT p = testing::conv_add_program();
  testing::make_input_external(p);
  const emit::AlignedBuffer bytes(emit::emit_program(std::move(p)));
  mote_program program;
  ASSERT_EQ(mote_load(&program, bytes.data(), bytes.size(), nullptr), MOTE_OK);
  mote_executor e;
  ASSERT_EQ(mote_executor_init(&e, &program, arena_.data(), arena_.size()), MOTE_OK);
  EXPECT_EQ(mote_input_is_external(&e, 0), 1);
  EXPECT_EQ(mote_input_is_external(&e, 1), 0);
  EXPECT_EQ(mote_input_is_external(nullptr, 0), 0);
  mote_tensor t;
  EXPECT_EQ(mote_input(&e, 0, &t), MOTE_INPUT_NOT_BOUND);
  EXPECT_EQ(t.data, nullptr);
  EXPECT_EQ(t.size, 50u);
  EXPECT_EQ(t.rank, 4u);
  EXPECT_EQ(mote_run(&e), MOTE_INPUT_NOT_BOUND);
  EXPECT_STREQ(mote_status_string(MOTE_INPUT_NOT_BOUND), "input outside the arena not bound");
  std::vector<int8_t> input(50);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int8_t>(i * 13 - 60);
  EXPECT_EQ(mote_bind_input(&e, 0, input.data(), 49), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_bind_input(&e, 0, nullptr, 50), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_bind_input(&e, 1, input.data(), 50), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_bind_input(nullptr, 0, input.data(), 50), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_run(&e), MOTE_INPUT_NOT_BOUND);
  ASSERT_EQ(mote_bind_input(&e, 0, input.data(), 50), MOTE_OK);
  ASSERT_EQ(mote_input(&e, 0, &t), MOTE_OK);
  EXPECT_EQ(t.data, reinterpret_cast<uint8_t*>(input.data()));
  ASSERT_EQ(mote_run(&e), MOTE_OK);
  ASSERT_EQ(mote_output(&e, 0, &t), MOTE_OK);
  const std::vector<int8_t> expected = testing::conv_add_expected(input);
  EXPECT_EQ(std::memcmp(t.data, expected.data(), expected.size()), 0);
  EXPECT_EQ(mote_input_preserved(&e, 0), 1);
  mote_memory_status s;
  ASSERT_EQ(mote_get_memory_status(&e, &s), MOTE_OK);
  EXPECT_EQ(s.inputs_outside, 50u);
  char text[384];
  const size_t n = mote_format_memory_status(&s, text, sizeof(text));
  EXPECT_NE(std::string(text, n).find("I mote: inputs_outside_arena: 50 bytes"), std::string::npos);
}

TEST(CApiFloatInputTest, FloatsWrittenRowByRowGiveTheModelsQuantize) {
  // float32 [1, 6, 5, 2] quantized by the model (scale 1/64, zero point 3) before a convolution.
  builder::ModelBuilder b(9);
  const builder::TensorId x = b.add_input({1, 6, 5, 2});
  b.mark_output(b.add_conv2d(b.add_quantize(x, 1.0f / 64, 3), 4, 3, 3, 1, ir::Padding::kSame));
  const ir::Graph graph = b.build();
  std::vector<float> values(6 * 5 * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = (static_cast<float>(i % 23) - 11.5f) / 32.0f;  // halves of a step, saturation
  }
  values[7] = 100.0f;
  values[8] = -100.0f;
  // The reference: the float input in the arena, the program's QUANTIZE.
  pipeline::CompileOptions options;
  options.plan.cpu = "cortex-m4";
  options.plan.quantize_float_inputs = false;
  const emit::AlignedBuffer float_program(pipeline::compile(graph, options).program);
  const Result<Program> reference = Program::load(float_program.data(), float_program.size());
  ASSERT_TRUE(reference.ok());
  emit::AlignedBuffer arena(reference->arena_size(), reference->arena_alignment());
  Result<Executor> cpp = Executor::create(*reference, arena.data(), arena.size());
  ASSERT_TRUE(cpp.ok());
  EXPECT_FALSE(cpp->input_takes_float(0));
  ASSERT_EQ(cpp->write_input(0, values.data(), values.size()), Error::kOk);  // float: a copy
  ASSERT_EQ(cpp->run(), Error::kOk);
  const std::vector<uint8_t> expected(cpp->output(0).data,
                                      cpp->output(0).data + cpp->output(0).size);

  options.plan.quantize_float_inputs = true;
  const emit::AlignedBuffer bytes(pipeline::compile(graph, options).program);
  mote_program program;
  ASSERT_EQ(mote_load(&program, bytes.data(), bytes.size(), nullptr), MOTE_OK);
  emit::AlignedBuffer held_arena(mote_arena_bytes(&program), mote_arena_align(&program));
  mote_executor e;
  ASSERT_EQ(mote_executor_init(&e, &program, held_arena.data(), held_arena.size()), MOTE_OK);
  EXPECT_EQ(mote_input_takes_float(&e, 0), 1);
  EXPECT_EQ(mote_input_takes_float(&e, 1), 0);
  EXPECT_EQ(mote_input_takes_float(nullptr, 0), 0);
  mote_tensor in;
  ASSERT_EQ(mote_input(&e, 0, &in), MOTE_OK);
  EXPECT_EQ(in.type, MOTE_INT8);
  EXPECT_EQ(in.size, values.size());
  // Misuse: past the end, no values, a bad index.
  EXPECT_EQ(mote_write_input_float(&e, 0, values.data(), 11, 50), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_write_input_float(&e, 0, values.data(), 1, 60), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_write_input_float(&e, 0, nullptr, 10, 0), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_write_input_float(&e, 1, values.data(), 10, 0), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_write_input_float(nullptr, 0, values.data(), 10, 0), MOTE_INVALID_ARGUMENT);
  // A row (5 pixels of 2 channels) at a time, as a camera delivers them.
  for (size_t row = 0; row < 6; ++row) {
    ASSERT_EQ(mote_write_input_float(&e, 0, values.data() + row * 10, 10, row * 10), MOTE_OK);
  }
  ASSERT_EQ(mote_run(&e), MOTE_OK);
  mote_tensor out;
  ASSERT_EQ(mote_output(&e, 0, &out), MOTE_OK);
  ASSERT_EQ(out.size, expected.size());
  EXPECT_EQ(std::memcmp(out.data, expected.data(), expected.size()), 0);
}

}  // namespace
}  // namespace mote::runtime
