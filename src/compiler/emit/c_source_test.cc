#include "compiler/emit/c_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "runtime/testing/test_programs.h"

namespace mote::emit {
namespace {

using ::testing::HasSubstr;

TEST(CSourceTest, Identifiers) {
  EXPECT_TRUE(is_c_identifier("kws_program"));
  EXPECT_TRUE(is_c_identifier("_x9"));
  EXPECT_FALSE(is_c_identifier(""));
  EXPECT_FALSE(is_c_identifier("9x"));
  EXPECT_FALSE(is_c_identifier("kws-program"));
  EXPECT_EQ(to_c_identifier("kws-dscnn.v2"), "kws_dscnn_v2");
  EXPECT_EQ(to_c_identifier("3d"), "_3d");
  EXPECT_EQ(to_c_identifier(""), "_");
}

// conv_add_program: int8 [1,5,5,2] in (scale 0.5, zero point -3), int8 [1,100] out (0.6, -2),
// arena 288 bytes at 16.
TEST(CSourceTest, HeaderHoldsThePlansFiguresAndSourceTheBytes) {
  const std::vector<uint8_t> program = emit_program(runtime::testing::conv_add_program());
  const CSource c = c_source(program, "conv_add", "conv_add.h", "model.tflite");
  EXPECT_THAT(c.header, HasSubstr("#ifndef CONV_ADD_H_\n#define CONV_ADD_H_\n"));
  EXPECT_THAT(c.header, HasSubstr("#define CONV_ADD_BYTES " + std::to_string(program.size()) + "\n"));
  EXPECT_THAT(c.header, HasSubstr("#define CONV_ADD_ARENA_BYTES 288\n#define CONV_ADD_ARENA_ALIGN 16\n"));
  EXPECT_THAT(c.header, HasSubstr("#define CONV_ADD_NUM_INPUTS 1\n#define CONV_ADD_NUM_OUTPUTS 1\n"));
  EXPECT_THAT(c.header, HasSubstr("/* input 0: int8 [1,5,5,2], scale 0.5, zero point -3 */\n"
                                  "#define CONV_ADD_INPUT0_BYTES 50\n"
                                  "#define CONV_ADD_INPUT0_SCALE 0.5f\n"
                                  "#define CONV_ADD_INPUT0_ZERO_POINT (-3)\n"));
  EXPECT_THAT(c.header, HasSubstr("#define CONV_ADD_OUTPUT0_BYTES 100\n"
                                  "#define CONV_ADD_OUTPUT0_SCALE 0.600000024f\n"));
  EXPECT_THAT(c.header, HasSubstr("#define conv_add_size ((size_t)CONV_ADD_BYTES)\n"));
  EXPECT_THAT(c.header, HasSubstr("extern const uint8_t conv_add[CONV_ADD_BYTES];\n"));
  EXPECT_THAT(c.source, HasSubstr("#include \"conv_add.h\"\n"));
  EXPECT_THAT(c.source, HasSubstr("const uint8_t conv_add[CONV_ADD_BYTES] = {\n0x"));
  // Every byte, in order, sixteen to a line.
  std::vector<uint8_t> back;
  for (size_t at = c.source.find("= {\n") + 4; (at = c.source.find("0x", at)) != std::string::npos; at += 4) {
    back.push_back(static_cast<uint8_t>(std::stoi(c.source.substr(at + 2, 2), nullptr, 16)));
  }
  EXPECT_EQ(back, program);
}

TEST(CSourceTest, SaysWhichInputTakesFloats) {
  schema::ProgramT program = runtime::testing::conv_add_program();
  program.float_inputs = {true};
  const CSource c = c_source(emit_program(std::move(program)), "conv_add", "conv_add.h", "m.tflite");
  EXPECT_THAT(c.header, HasSubstr("/* input 0: int8 [1,5,5,2], scale 0.5, zero point -3; the "
                                  "model's float32 input, held quantized: write floats with "
                                  "mote_write_input_float */\n"
                                  "#define CONV_ADD_INPUT0_BYTES 50\n"
                                  "#define CONV_ADD_INPUT0_TAKES_FLOAT 1\n"));
}

TEST(CSourceTest, RefusesBytesThatAreNotAProgram) {
  const std::vector<uint8_t> junk(64, 0x5a);
  EXPECT_THROW(c_source(junk, "x", "x.h", "x.tflite"), InputError);
}

}  // namespace
}  // namespace mote::emit
