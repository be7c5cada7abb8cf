// `mote run` end to end: the built tool on a program written by the emitter.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "compiler/builder/model_builder.h"
#include "compiler/emit/emit.h"
#include "compiler/pipeline/compile.h"
#include "runtime/testing/test_programs.h"

namespace mote::tools {
namespace {

namespace fs = std::filesystem;

struct Output {
  int status;
  std::string text;  // stdout and stderr
};

Output mote(const std::string& args) {
  const std::string command = std::string("'") + MOTE_BINARY + "' " + args + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string text;
  std::array<char, 256> buffer{};
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0) text.append(buffer.data(), n);
  const int status = pclose(pipe.release());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

std::vector<uint8_t> read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
}

std::vector<int8_t> xorshift_bytes(size_t n) {
  std::vector<int8_t> v(n);
  uint32_t s = 1;
  for (auto& b : v) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    b = static_cast<int8_t>(s & 0xFF);
  }
  return v;
}

class RunCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mote_run_test_" + std::string(
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    program_bytes_ = emit::emit_program(runtime::testing::conv_add_program());
    program_ = (dir_ / "m.mote").string();
    write_all(program_, program_bytes_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string program_;
  std::vector<uint8_t> program_bytes_;
};

TEST_F(RunCommandTest, PrintsTheMemoryStatusAndWritesOutputs) {
  const std::string out = (dir_ / "out.bin").string();
  const Output r = mote("run " + program_ + " --output " + out + " --repeat 3");
  ASSERT_EQ(r.status, 0) << r.text;
  const auto loaded = runtime::testing::load(program_bytes_);
  const size_t state = sizeof(runtime::Program) + sizeof(runtime::Executor);
  // The status first, then the program's target, then the outputs and the time
  // (firmware_cli_test checks those).
  EXPECT_EQ(r.text.substr(0, r.text.find("output 0: ")),
            "I mote: program_size: " + std::to_string(program_bytes_.size()) + " bytes\n" +
                "I mote: constant_data: " + std::to_string(loaded.program->constants_size()) +
                " bytes\n" +
                "I mote: arena_planned: 288 bytes (activations 208, scratch 80, lower bound 240)\n" +
                "I mote: runtime_state: " + std::to_string(state) + " bytes\n" +
                "I mote: temp_allocator: 0 bytes\n" +
                "target: cortex-m3 (scalar kernels); run here with the portable kernels\n");
  const std::vector<int8_t> expected = runtime::testing::conv_add_expected(xorshift_bytes(50));
  const std::vector<uint8_t> got = read_all(out);
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size()), 0);
}

TEST_F(RunCommandTest, ReadsInputFiles) {
  std::vector<uint8_t> input(50);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(i * 11);
  write_all(dir_ / "in.bin", input);
  const std::string out = (dir_ / "out.bin").string();
  const Output r = mote("run " + program_ + " --input " + (dir_ / "in.bin").string() +
                        " --output " + out);
  ASSERT_EQ(r.status, 0) << r.text;
  const std::vector<int8_t> expected = runtime::testing::conv_add_expected(
      std::vector<int8_t>(input.begin(), input.end()));
  const std::vector<uint8_t> got = read_all(out);
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size()), 0);
}

// A float input is filled with the default stream's bytes read as int8 and divided by 128 (not
// raw bytes, which make NaNs and huge values): quantized with scale 1/128 and zero point 0, the
// model's int8 output is the stream itself.
TEST_F(RunCommandTest, FillsAFloatInputWithTheInt8StreamOver128) {
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input({1, 96}, ir::DataType::kFloat32);
  b.mark_output(b.add_quantize(x, 1.0f / 128, 0));
  const pipeline::Compiled compiled = pipeline::compile(b.build(), {});
  const std::string program = (dir_ / "float.mote").string();
  write_all(program, compiled.program);
  const std::string out = (dir_ / "out.bin").string();
  const Output r = mote("run " + program + " --output " + out);
  ASSERT_EQ(r.status, 0) << r.text;
  const std::vector<int8_t> stream = xorshift_bytes(96);
  const std::vector<uint8_t> got = read_all(out);
  ASSERT_EQ(got.size(), stream.size());
  EXPECT_EQ(std::memcmp(got.data(), stream.data(), got.size()), 0);
  // The rule is in the help.
  EXPECT_NE(mote("run --help").text.find("float32 input one byte per element, read as int8 and "
                                         "divided by 128"),
            std::string::npos);
}

TEST_F(RunCommandTest, RejectsBadInputsWithStatus2) {
  write_all(dir_ / "short.bin", std::vector<uint8_t>(49));
  Output r = mote("run " + program_ + " --input " + (dir_ / "short.bin").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.text, "error: " + (dir_ / "short.bin").string() +
                        ": 49 bytes, input 0 needs exactly 50\n");
  r = mote("run " + program_ + " --input " + (dir_ / "short.bin").string() + " --input " +
           (dir_ / "short.bin").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.text.find("1 input(s), 2 --input file(s)"), std::string::npos) << r.text;

  auto damaged = program_bytes_;
  damaged.resize(damaged.size() / 2);
  write_all(dir_ / "bad.mote", damaged);
  r = mote("run " + (dir_ / "bad.mote").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.text, "error: " + (dir_ / "bad.mote").string() +
                        ": damaged, or not a program made by this version of Mote; compile the "
                        "model again: not a well-formed Mote FlatBuffer (invalid program)\n");
  r = mote("run " + (dir_ / "missing.mote").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.text, "error: " + (dir_ / "missing.mote").string() + ": cannot open: no such file\n");
  r = mote("run " + program_ + " --repeat 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(fs::exists(dir_ / "out.bin"));
}

TEST_F(RunCommandTest, ACorruptedProgramIsReportedAsDamagedNotAsAModelLimit) {
  // A requantization shift the kernels cannot take: the runtime says kUnsupported, which for a
  // file means it was damaged (mote compile runs the same check before it writes).
  schema::ProgramT program = runtime::testing::conv_add_program();
  program.version = runtime::kFormatVersion;
  program.operators[1]->options.AsAddOptions()->input1_requant->mutate_shift(20);
  write_all(dir_ / "flipped.mote", runtime::testing::pack_unchecked(program));
  Output r = mote("run " + (dir_ / "flipped.mote").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.text.find("error: " + (dir_ / "flipped.mote").string() +
                        ": damaged, or not a program made by this version of Mote; compile the "
                        "model again: operator 1 (ADD): "),
            0u)
      << r.text;
  EXPECT_EQ(r.text.find("unsupported: "), std::string::npos) << r.text;
  // Another format version says so.
  program.operators[1]->options.AsAddOptions()->input1_requant->mutate_shift(0);
  program.version = runtime::kFormatVersion + 1;
  write_all(dir_ / "other.mote", runtime::testing::pack_unchecked(program));
  r = mote("run " + (dir_ / "other.mote").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.text.find("made by another version of Mote (this one reads format version 1)"),
            std::string::npos)
      << r.text;
}

// `mote compile --checksum` (CompileOptions::checksum): the program carries the CRC-32 of its
// constants, and `mote run` refuses it once four bytes of its weights are flipped. Without the
// option the program is byte for byte the one compiled before the option existed.
TEST_F(RunCommandTest, AChecksumRefusesFlippedWeights) {
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input({1, 4, 4, 8}, ir::DataType::kInt8, 0.05f, 0);
  b.mark_output(b.add_conv2d(x, 8, 3, 3));
  const ir::Graph graph = b.build();
  pipeline::CompileOptions options;
  const std::vector<uint8_t> plain = pipeline::compile(graph, options).program;
  options.checksum = true;
  std::vector<uint8_t> checked = pipeline::compile(graph, options).program;
  const auto loaded = runtime::testing::load(checked);
  ASSERT_TRUE(loaded.program->root()->constants_crc32().has_value());
  EXPECT_FALSE(runtime::testing::load(plain).program->root()->constants_crc32().has_value());
  EXPECT_LE(checked.size(), plain.size() + 16);
  const size_t at =
      static_cast<size_t>(loaded.program->root()->constants()->data() - loaded.bytes.data());
  write_all(dir_ / "intact.mote", checked);
  Output r = mote("run " + (dir_ / "intact.mote").string());
  EXPECT_EQ(r.status, 0) << r.text;
  for (size_t i = 0; i < 4; ++i) checked[at + 5 * i] ^= 0xFF;
  write_all(dir_ / "flipped.mote", checked);
  r = mote("run " + (dir_ / "flipped.mote").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.text.find("constants differ from their CRC-32"), std::string::npos) << r.text;
  EXPECT_NE(mote("compile --help").text.find("--checksum"), std::string::npos);
}

TEST_F(RunCommandTest, HelpShowsAnExample) {
  const Output r = mote("run --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.text.find("Example: mote run"), std::string::npos);
}

}  // namespace
}  // namespace mote::tools
