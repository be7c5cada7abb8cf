// Runs the `mote` executable: `mote inspect` on models written by the builder, on bad files and
// on the shared MLPerf Tiny models when present.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/ir/stats.h"
#include "compiler/ops/op_def.h"

namespace mote {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

using Result = cli_testing::CliResult;

class InspectCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { fs::create_directories(MOTE_TEST_TMP_DIR); }

  static fs::path path(const std::string& name) { return fs::path(MOTE_TEST_TMP_DIR) / name; }

  static fs::path write(const std::string& name, const std::vector<uint8_t>& bytes) {
    const fs::path p = path(name);
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return p;
  }

  // ctest runs the cases in parallel processes: each gets its own folder.
  static Result run(const std::string& args) {
    return cli_testing::run_mote(
        MOTE_CLI, args, path(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  }

  static std::string quoted(const fs::path& p) {
    std::string q(1, '\'');  // appended piecewise: gcc 12 warns falsely on "'" + s + "'"
    q += p.string();
    q += '\'';
    return q;
  }

  // Expects exit status 2 and exactly one line "error: <file>: <reason>".
  static void expect_bad_input(const fs::path& file, const std::string& reason) {
    const Result r = run("inspect " + quoted(file));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_THAT(r.err, StartsWith("error: " + file.string() + ": " + reason));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
};

TEST_F(InspectCli, JsonDescribesEveryOperator) {
  const ir::Graph g = builder::tiny_all_ops();
  const fs::path file = write("tiny_all_ops.tflite", builder::write_model(g));
  const Result r = run("inspect --json " + quoted(file));
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["operators"].size(), g.operators.size());
  for (size_t i = 0; i < g.operators.size(); ++i) {
    const json& op = j["operators"][i];
    EXPECT_EQ(op["index"], i);
    EXPECT_EQ(op["type"], std::string(ir::to_string(g.operators[i].type)));
    EXPECT_EQ(op["macs"], ops::operator_macs(g, g.operators[i]));
    EXPECT_EQ(op["outputs"][0]["shape"], g.tensors[g.operators[i].outputs[0]].shape);
  }
  EXPECT_EQ(j["macs"], ops::total_macs(g));
  EXPECT_EQ(j["constant_bytes"], ir::constant_bytes(g));
  EXPECT_EQ(j["activation_bytes"], ir::activation_bytes(g));
  EXPECT_EQ(j["operator_counts"]["CONV_2D"], 1);
  // Convolution parameters and per-channel quantization are there.
  const json& conv = j["operators"][1];
  EXPECT_EQ(conv["type"], "CONV_2D");
  EXPECT_EQ(conv["options"]["kernel"], json::array({3, 3}));
  EXPECT_EQ(conv["options"]["stride"], json::array({1, 1}));
  EXPECT_EQ(conv["options"]["padding"], "SAME");
  EXPECT_EQ(conv["options"]["activation"], "RELU");
  EXPECT_EQ(conv["inputs"][1]["scale"].size(), 8u);
  EXPECT_EQ(conv["inputs"][1]["quantized_dimension"], 0);
  EXPECT_EQ(conv["constant_bytes"], 8 * 27 + 8 * 4);
}

TEST_F(InspectCli, TextShowsOperatorsAndTotals) {
  const ir::Graph g = builder::conv2d_x3();
  const fs::path file = write("conv2d_x3.tflite", builder::write_model(g));
  const Result r = run("inspect " + quoted(file));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  1  CONV_2D                  kernel 3x3 stride 1x1 padding SAME"));
  EXPECT_THAT(r.out, HasSubstr("operators        5 (QUANTIZE 1, CONV_2D 3, DEQUANTIZE 1)"));
  EXPECT_THAT(r.out, HasSubstr("MACs             " + std::to_string(ops::total_macs(g))));
  EXPECT_THAT(r.out, HasSubstr("constant bytes   2520"));
  EXPECT_THAT(r.out, HasSubstr("[1,8,8,16]"));
  EXPECT_TRUE(r.err.empty());
}

TEST_F(InspectCli, BadInputExitsWithTwoAndOneLine) {
  expect_bad_input(path("missing.tflite"), "cannot open: no such file");
  expect_bad_input(path(""), "cannot open: not a regular file");

  std::vector<uint8_t> bytes = builder::write_model(builder::conv2d_x3());
  bytes.resize(bytes.size() - 100);
  expect_bad_input(write("truncated.tflite", bytes), "not a valid TFLite flatbuffer");

  expect_bad_input(write("random.tflite", std::vector<uint8_t>(300, 0xA5)), "not a TFLite model");
  expect_bad_input(write("empty.tflite", {}), "file too small");

  auto model = builder::to_tflite_object(builder::conv2d_x3());
  model->operator_codes[model->subgraphs[0]->operators[1]->opcode_index]->builtin_code = 52;
  model->operator_codes[model->subgraphs[0]->operators[1]->opcode_index]->deprecated_builtin_code = 52;
  expect_bad_input(write("lstm.tflite", builder::pack_model(*model)),
                   "operator 1 (BIDIRECTIONAL_SEQUENCE_LSTM): not supported");

  model = builder::to_tflite_object(builder::conv2d_x3());
  model->subgraphs[0]->tensors[2]->buffer = 99;
  expect_bad_input(write("buffer.tflite", builder::pack_model(*model)),
                   "tensor 2 (conv2d_0/weights): buffer index 99 out of range");
}

// A per-channel bias whose quantized_dimension is beyond its rank (TOCO wrote 3): accepted, and
// inspect says what it ignored, in text and JSON.
TEST_F(InspectCli, SaysWhatItIgnored) {
  auto model = builder::to_tflite_object(builder::tiny_all_ops());
  std::string bias;
  size_t biases = 0;
  for (auto& t : model->subgraphs[0]->tensors) {
    if (t->shape.size() == 1 && t->quantization && t->quantization->scale.size() > 1) {
      t->quantization->quantized_dimension = 3;
      bias = t->name;
      ++biases;
    }
  }
  ASSERT_FALSE(bias.empty());
  const fs::path file = write("bias_qd3.tflite", builder::pack_model(*model));
  const Result text = run("inspect " + quoted(file));
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("note    tensor "));
  EXPECT_THAT(text.out,
              HasSubstr("(" + bias + "): quantized_dimension 3 beyond its rank 1 ignored"));
  const Result j = run("inspect " + quoted(file) + " --json -");
  ASSERT_EQ(j.status, 0) << j.err;
  const json doc = json::parse(j.out);
  ASSERT_EQ(doc["notes"].size(), biases);
  EXPECT_THAT(doc["notes"][0].get<std::string>(), HasSubstr("quantized_dimension 3"));
  // A model read as written has no notes.
  const Result plain = run(
      "inspect " + quoted(write("plain.tflite", builder::write_model(builder::tiny_all_ops()))) +
      " --json -");
  EXPECT_TRUE(json::parse(plain.out)["notes"].empty());
}

// The README's sample error is what mote prints for the model the README describes: the
// builder's conv2d_x3 with its second operator made a bidirectional LSTM, as lstm.tflite.
TEST_F(InspectCli, TheReadmesSampleErrorIsWhatMotePrints) {
  auto model = builder::to_tflite_object(builder::conv2d_x3());
  auto& code = model->operator_codes[model->subgraphs[0]->operators[1]->opcode_index];
  code->builtin_code = code->deprecated_builtin_code = 52;  // BIDIRECTIONAL_SEQUENCE_LSTM
  const fs::path dir = path("readme_sample");
  fs::create_directories(dir);
  const std::vector<uint8_t> bytes = builder::pack_model(*model);
  std::ofstream(dir / "lstm.tflite", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const std::string command = "cd " + quoted(dir) + " && '" + MOTE_CLI + "' inspect lstm.tflite 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string printed;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) printed.append(buf, n);
  EXPECT_EQ(WEXITSTATUS(pclose(pipe)), 2);
  ASSERT_FALSE(printed.empty());
  ASSERT_EQ(printed.back(), '\n');
  printed.pop_back();
  std::stringstream readme;
  readme << std::ifstream(fs::path(MOTE_SOURCE_DIR) / "README.md").rdbuf();
  const std::string text = readme.str();
  const size_t marker = text.find("<!-- sample error: tests/inspect_cli_test.cc -->");
  ASSERT_NE(marker, std::string::npos);
  const size_t open = text.find('`', marker);
  const size_t close = text.find('`', open + 1);
  ASSERT_NE(close, std::string::npos);
  EXPECT_EQ(text.substr(open + 1, close - open - 1), printed);
}

// --check judges every operator on its own: an operator Mote lacks and one whose parameters its
// kernel cannot take are both named, the rest say ok, and the exit status says the model fails.
TEST_F(InspectCli, CheckListsEveryOperatorsVerdict) {
  // conv2d_x3: QUANTIZE, three CONV_2D, DEQUANTIZE.
  auto model = builder::to_tflite_object(builder::conv2d_x3());
  auto& ops = model->subgraphs[0]->operators;
  ASSERT_EQ(ops.size(), 5u);
  // Operator 1 becomes an operator Mote lacks, with an operator code of its own.
  model->operator_codes.push_back(
      std::make_unique<tflite::fb::OperatorCodeT>(*model->operator_codes[ops[1]->opcode_index]));
  ops[1]->opcode_index = static_cast<uint32_t>(model->operator_codes.size() - 1);
  model->operator_codes.back()->builtin_code = 52;  // BIDIRECTIONAL_SEQUENCE_LSTM
  model->operator_codes.back()->deprecated_builtin_code = 52;
  // Operator 3 gets a stride the kernels cannot take (valid TFLite).
  ops[3]->builtin_options.AsConv2DOptions()->stride_h = INT32_MAX;
  // Operator 4 becomes a custom operator: the table names its custom code, as the JSON does.
  model->operator_codes.push_back(std::make_unique<tflite::fb::OperatorCodeT>());
  model->operator_codes.back()->builtin_code = 32;  // CUSTOM
  model->operator_codes.back()->deprecated_builtin_code = 32;
  model->operator_codes.back()->custom_code = "SignalWindow";
  ops[4]->opcode_index = static_cast<uint32_t>(model->operator_codes.size() - 1);
  ops[4]->builtin_options.Reset();
  const std::string file = quoted(write("check.tflite", builder::pack_model(*model)));

  const Result text = run("inspect --check " + file);
  EXPECT_EQ(text.status, 2) << text.err;
  EXPECT_THAT(text.out, HasSubstr("  0  QUANTIZE                     ok\n"));
  EXPECT_THAT(text.out,
              HasSubstr("  1  BIDIRECTIONAL_SEQUENCE_LSTM  cannot compile: not supported\n"));
  // Judged on its own although its input comes from the operator Mote lacks.
  EXPECT_THAT(text.out, HasSubstr("  2  CONV_2D                      ok\n"));
  EXPECT_THAT(text.out, HasSubstr("  3  CONV_2D                      cannot compile: "));
  EXPECT_THAT(text.out, HasSubstr("  4  CUSTOM 'SignalWindow'        cannot compile: "));
  EXPECT_THAT(text.out, HasSubstr("verdict: 3 of 5 operators cannot compile"));

  const Result j = run("inspect --check " + file + " --json -");
  EXPECT_EQ(j.status, 2);
  const json report = json::parse(j.out);
  EXPECT_FALSE(report["compiles"].get<bool>());
  ASSERT_EQ(report["operators"].size(), 5u);
  EXPECT_TRUE(report["operators"][0]["compiles"].get<bool>());
  EXPECT_EQ(report["operators"][1]["problem"],
            "operator 1 (BIDIRECTIONAL_SEQUENCE_LSTM): not supported");
  EXPECT_EQ(report["operators"][3]["type"], "CONV_2D");
  EXPECT_FALSE(report["operators"][3]["compiles"].get<bool>());
  EXPECT_THAT(report["operators"][3]["problem"].get<std::string>(), HasSubstr("operator 3 (CONV_2D): "));
  EXPECT_THAT(report["operators"][4]["problem"].get<std::string>(),
              HasSubstr("operator 4 (CUSTOM 'SignalWindow'): "));

  // Plain inspect stops at the first problem and says how to see them all.
  const Result plain = run("inspect " + file);
  EXPECT_EQ(plain.status, 2);
  EXPECT_THAT(plain.err, HasSubstr("operator 1 (BIDIRECTIONAL_SEQUENCE_LSTM): not supported"));
  EXPECT_THAT(plain.err, HasSubstr("(mote inspect --check "));

  const Result good = run("inspect --check " +
                          quoted(write("good.tflite", builder::write_model(builder::conv2d_x3()))));
  EXPECT_EQ(good.status, 0) << good.err;
  EXPECT_THAT(good.out, HasSubstr("verdict: all 5 operators compile"));
}

// A .mote program: what it was compiled for (the CPU, its kernels), its arena, its operators.
TEST_F(InspectCli, ShowsAProgramsTargetArenaAndOperators) {
  const fs::path model = write("kws.tflite", builder::write_model(builder::kws_dscnn_like()));
  const fs::path program = path("kws-m4.mote");
  const Result compiled =
      run("compile " + quoted(model) + " --target cortex-m4 -o " + quoted(program));
  ASSERT_EQ(compiled.status, 0) << compiled.err;
  EXPECT_THAT(compiled.out, Not(HasSubstr("the default")));

  const Result r = run("inspect " + quoted(program));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("program: " + program.string() + " ("));
  EXPECT_THAT(r.out, HasSubstr("\ntarget: cortex-m4 (dsp kernels"));
  EXPECT_THAT(r.out, HasSubstr("\narena: "));
  EXPECT_THAT(r.out, HasSubstr("\ninput   t"));
  EXPECT_THAT(r.out, HasSubstr("\n  0  CONV_2D  dsp kernel  scratch "));
  // Compiled with the default preset (balanced): the first ten operators stream as one stage.
  EXPECT_THAT(r.out, HasSubstr("\nrow-streamed stages: 1\n"));
  EXPECT_THAT(r.out, HasSubstr("\n  kernels          dsp 11, portable 2\n"));
  EXPECT_THAT(r.out, HasSubstr("\n  operators        13 ("));
  const json j = json::parse(run("inspect " + quoted(program) + " --json -").out);
  EXPECT_EQ(j["target"]["cpu"], "cortex-m4");
  EXPECT_EQ(j["target"]["kernels"], "dsp");
  EXPECT_EQ(j["operators"].size(), 13u);
  EXPECT_EQ(j["operators"][0]["kernel_variant"], "dsp");
  EXPECT_EQ(j["program_bytes"], fs::file_size(program));
  // --check judges models; a program is already compiled.
  EXPECT_EQ(run("inspect --check " + quoted(program)).status, 2);

  // analyze reads the program as compiled, on its own CPU (FirmwareCli.AnalyzeOfAProgram...
  // checks every figure); options that shape a compilation mean nothing for it.
  const Result analyzed = run("analyze " + quoted(program));
  EXPECT_EQ(analyzed.status, 0) << analyzed.err;
  EXPECT_THAT(analyzed.out, StartsWith("mote analyze: " + program.string() + " for cortex-m4 (dsp)\n"));
  const Result streamed = run("analyze " + quoted(program) + " --stream");
  EXPECT_EQ(streamed.status, 2);
  EXPECT_THAT(streamed.err, HasSubstr(".mote: --stream shapes how a model compiles, and a .mote "
                                      "program is already compiled"));

  // `mote run` says which CPU the program is for.
  EXPECT_THAT(run("run " + quoted(program)).out,
              HasSubstr("\ntarget: cortex-m4 (dsp kernels); run here with the portable kernels\n"));

  // Without --target the CPU that the result depends on is said to be the default.
  const Result by_default = run("compile " + quoted(model) + " -o " + quoted(path("kws.mote")));
  ASSERT_EQ(by_default.status, 0) << by_default.err;
  EXPECT_THAT(by_default.out,
              HasSubstr(" for cortex-m55 (mve) (the default; choose with --target), 13 operators"));
  EXPECT_THAT(run("plan " + quoted(model)).out,
              StartsWith("target: cortex-m55 (the default; choose with --target)\nplan: "));
  EXPECT_THAT(run("analyze " + quoted(model)).out,
              StartsWith("mote analyze: " + model.string() +
                         " for cortex-m55 (mve) (the default; choose with --target)\n"));
  EXPECT_THAT(run("plan " + quoted(model) + " --target cortex-m55").out,
              Not(HasSubstr("the default")));
}

TEST_F(InspectCli, UsageErrorsAndHelp) {
  EXPECT_EQ(run("inspect").status, 2);
  const Result unknown = run("inspect --no-such-flag x");
  EXPECT_EQ(unknown.status, 2);
  // Parse errors carry the prefix of every other error and say where the options are.
  EXPECT_THAT(unknown.err, StartsWith("error: "));
  EXPECT_THAT(unknown.err, HasSubstr("mote inspect --help"));
  const Result help = run("inspect --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_THAT(help.out, HasSubstr("mote inspect model.tflite"));
  EXPECT_THAT(help.out, HasSubstr("--json"));
}

// Operator counts by type of every shared model: the keyword spotting ones from the task, the
// others from the operator lists of the reference runs in models/expected.
TEST_F(InspectCli, SharedModels) {
  const fs::path models = fs::path(MOTE_SHARED_DIR) / "models";
  if (!fs::exists(models)) GTEST_SKIP() << models << " not found";
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(models)) {
    if (entry.path().extension() != ".tflite") continue;
    ++seen;
    SCOPED_TRACE(entry.path().string());
    const Result r = run("inspect --json " + quoted(entry.path()));
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    std::map<std::string, int> counts = j["operator_counts"];
    EXPECT_GT(j["macs"].get<int64_t>(), 0);
    EXPECT_GT(j["constant_bytes"].get<int64_t>(), 0);

    const std::string stem = entry.path().stem().string();
    if (stem == "mlperf_tiny_kws_dscnn_int8") {
      EXPECT_EQ(counts, (std::map<std::string, int>{{"CONV_2D", 5},
                                                    {"DEPTHWISE_CONV_2D", 4},
                                                    {"AVERAGE_POOL_2D", 1},
                                                    {"RESHAPE", 1},
                                                    {"FULLY_CONNECTED", 1},
                                                    {"SOFTMAX", 1}}));
    }
    const fs::path index = models / "expected" / stem / "index.json";
    if (fs::exists(index)) {
      std::map<std::string, int> expected;
      const json reference = json::parse(std::ifstream(index));
      for (const json& op : reference["operators"]) {
        ++expected[op["type"].get<std::string>()];
      }
      EXPECT_EQ(counts, expected);
    }
    // The text form works too.
    EXPECT_EQ(run("inspect " + quoted(entry.path())).status, 0);
  }
  EXPECT_GE(seen, 4);
}

}  // namespace
}  // namespace mote
