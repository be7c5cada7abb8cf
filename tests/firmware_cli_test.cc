// What a firmware project asks of `mote` (issue 17): `compile --emit c` (a .c/.h pair that a C
// compiler takes as it is, with the plan's figures as constants), run as a user would.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"
#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"

namespace mote {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using Result = cli_testing::CliResult;

std::string quoted(const fs::path& p) {
  std::string q(1, '\'');  // appended piecewise: gcc 12 warns falsely on "'" + s + "'"
  q += p.string();
  q += '\'';
  return q;
}

class FirmwareCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(MOTE_TEST_TMP_DIR) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  fs::path write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return p;
  }
  fs::path write_text(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  Result run(const std::string& args) const { return cli_testing::run_mote(MOTE_CLI, args, dir_); }
  // Runs a shell command in the test's folder; returns its exit status.
  int shell(const std::string& command) const {
    const int status = std::system(("cd " + quoted(dir_) + " && " + command).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::vector<fs::path> files() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
};

// A C11 program that uses only the generated header: a static arena sized and aligned by its
// constants, then prints them and writes the array's bytes out for comparison with the .mote.
constexpr const char* kCheckProgram = R"(#include <stdio.h>
#include "conv_program.h"

static uint8_t arena[CONV_PROGRAM_ARENA_BYTES] __attribute__((aligned(CONV_PROGRAM_ARENA_ALIGN)));
_Static_assert(sizeof(conv_program) == CONV_PROGRAM_BYTES, "array size");
_Static_assert(CONV_PROGRAM_NUM_INPUTS == 1 && CONV_PROGRAM_NUM_OUTPUTS == 1, "one input, one output");

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  FILE* out = fopen(argv[1], "wb");
  if (!out || fwrite(conv_program, 1, conv_program_size, out) != CONV_PROGRAM_BYTES) return 3;
  fclose(out);
  printf("%d %d %d %d %s %d\n", CONV_PROGRAM_ARENA_BYTES, CONV_PROGRAM_ARENA_ALIGN,
         CONV_PROGRAM_INPUT0_BYTES, CONV_PROGRAM_OUTPUT0_BYTES, CONV_PROGRAM_TARGET, (int)((uintptr_t)conv_program % 16));
  return (uintptr_t)arena % CONV_PROGRAM_ARENA_ALIGN == 0 ? 0 : 4;
}
)";

TEST_F(FirmwareCli, EmitCWritesAPairThatCompilesAsCWithThePlansFigures) {
  const fs::path model = write("conv2d_x3.tflite", builder::write_model(builder::conv2d_x3()));
  const Result r = run("compile " + quoted(model) +
                       " --target cortex-m4 --emit mote,c -o conv_program.mote --json plan.json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("-> conv_program.mote, conv_program.c, conv_program.h for cortex-m4"));
  const json plan = json::parse(cli_testing::read_text(dir_ / "plan.json"));
  const std::string header = cli_testing::read_text(dir_ / "conv_program.h");
  EXPECT_THAT(header, HasSubstr("#define CONV_PROGRAM_ARENA_BYTES " +
                                std::to_string(plan["results"][0]["arena_bytes"].get<int>()) + "\n"));
  // conv2d_x3: float32 1x8x8x3 in, float32 1x8x8x8 out; float tensors carry no quantization.
  EXPECT_THAT(header, HasSubstr("/* input 0: float32 [1,8,8,3] */\n#define CONV_PROGRAM_INPUT0_BYTES 768\n"));
  EXPECT_THAT(header, HasSubstr("#define CONV_PROGRAM_OUTPUT0_BYTES 2048\n"));

  write_text("check.c", kCheckProgram);
  const fs::path cc = MOTE_C_COMPILER;
  ASSERT_EQ(shell(quoted(cc) + " -std=c11 -Wall -Wextra -Werror -pedantic check.c conv_program.c "
                  "-o check > cc.txt 2>&1"), 0)
      << cli_testing::read_text(dir_ / "cc.txt");
  ASSERT_EQ(shell("./check embedded.bin > figures.txt"), 0);
  EXPECT_EQ(cli_testing::read_text(dir_ / "embedded.bin"),
            cli_testing::read_text(dir_ / "conv_program.mote"));
  const std::string expected = std::to_string(plan["results"][0]["arena_bytes"].get<int>()) + " " +
                               std::to_string(plan["alignment"].get<int>()) +
                               " 768 2048 cortex-m4 0\n";
  EXPECT_EQ(cli_testing::read_text(dir_ / "figures.txt"), expected);
  // C99 (no _Alignas) and C++ take the same pair.
  EXPECT_EQ(shell(quoted(cc) + " -std=c99 -Wall -Wextra -Werror -c conv_program.c -o c99.o"), 0);
  const fs::path cxx = MOTE_CXX_COMPILER;
  EXPECT_EQ(shell(quoted(cxx) + " -std=c++17 -Wall -Wextra -Werror -x c++ -c conv_program.c -o cxx.o"), 0);
}

TEST_F(FirmwareCli, EmitCAloneWritesOnlyThePairNamedByTheOutputAndName) {
  const fs::path model = write("conv2d_x3.tflite", builder::write_model(builder::conv2d_x3()));
  const Result r = run("compile " + quoted(model) + " --emit c -o kws.c --name my_model");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(files(), (std::vector<fs::path>{"conv2d_x3.tflite", "kws.c", "kws.h"}));
  EXPECT_THAT(cli_testing::read_text(dir_ / "kws.h"), HasSubstr("extern const uint8_t my_model[MY_MODEL_BYTES];"));
  EXPECT_THAT(cli_testing::read_text(dir_ / "kws.c"), HasSubstr("#include \"kws.h\""));
}

TEST_F(FirmwareCli, EmitCRefusesStdoutAndBadNamesAndWritesNothing) {
  const fs::path model = write("conv2d_x3.tflite", builder::write_model(builder::conv2d_x3()));
  Result r = run("compile " + quoted(model) + " --emit c -o -");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("not standard output"));
  r = run("compile " + quoted(model) + " --emit c --name 3d_model");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("'3d_model' is not a C identifier"));
  r = run("compile " + quoted(model) + " --name model");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("add --emit c"));
  r = run("compile " + quoted(model) + " --emit cpp");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(files(), (std::vector<fs::path>{"conv2d_x3.tflite"}));
}

}  // namespace
}  // namespace mote

