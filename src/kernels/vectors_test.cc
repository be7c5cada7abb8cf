// Reference vectors: every <vectors>/<op_dir>/<set>.json becomes one test case named after the set,
// discovered when the test binary starts (so a new file is tested without code changes). The
// folder is $MOTE_VECTORS_DIR, else MOTE_SHARED_DIR/vectors; the suite skips when it is absent.
// Each set runs through the runner registered for its "op" (see testing/vector_runner.h) and must
// equal "expected_output" exactly. A set of an operator or data type Mote does not implement (no
// runner for its "op", activations other than int8, weights other than int8) is skipped, naming
// what is missing; scripts/test.sh counts the skipped sets.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/testing/vector_runner.h"

namespace mote::kernels::testing {
namespace {

namespace fs = std::filesystem;

struct VectorSet {
  std::string name;  // test name: the set's file name (prefixed with its folder if not unique)
  fs::path path;
};

// gtest prints parameters with PrintTo; the path says which file a failure is about.
void PrintTo(const VectorSet& set, std::ostream* os) { *os << set.path.string(); }

// Why a set cannot run here, or "" when it can: Mote's kernels take int8 activations and int8
// weights (softmax may write int16, which its runner handles), and the families named for int16
// activations or int4 weights have runners of their own.
std::string MissingSupport(const nlohmann::json& set, const std::string& op) {
  if (vector_runners().count(op) == 0) return "operator \"" + op + "\" is not implemented in Mote";
  // The int16-activation (*_s16) and int4-weight (*_int4) families are defined by those types.
  const auto ends_with = [&](const std::string& tail) {
    return op.size() > tail.size() && op.compare(op.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends_with("_s16") || ends_with("_int4")) return "";
  const nlohmann::json dtypes = set.value("dtypes", nlohmann::json::object());
  for (const char* tensor : {"input", "input1", "input2", "lhs", "weights"}) {
    if (!dtypes.contains(tensor) || !dtypes[tensor].is_string()) continue;
    const std::string type = dtypes[tensor].get<std::string>();
    if (type != "int8") return "operator \"" + op + "\" with " + type + " " + tensor + " is not implemented";
  }
  const nlohmann::json derived = set.value("derived", nlohmann::json::object());
  if (derived.contains("weights_dtype") && derived["weights_dtype"] != "int8") {
    return "operator \"" + op + "\" with " + derived["weights_dtype"].get<std::string>() +
           " weights is not implemented";
  }
  return "";
}

fs::path VectorsDir() {
  if (const char* env = std::getenv("MOTE_VECTORS_DIR"); env != nullptr && *env != '\0') return env;
  return fs::path(MOTE_SHARED_DIR) / "vectors";
}

std::string Identifier(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

std::vector<VectorSet> DiscoverSets() {
  std::vector<VectorSet> sets;
  const fs::path dir = VectorsDir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return sets;
  for (const auto& op_dir : fs::directory_iterator(dir, ec)) {
    if (!op_dir.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(op_dir.path(), ec)) {
      if (file.is_regular_file() && file.path().extension() == ".json") {
        sets.push_back({Identifier(file.path().stem().string()), file.path()});
      }
    }
  }
  std::sort(sets.begin(), sets.end(), [](const VectorSet& a, const VectorSet& b) { return a.path < b.path; });
  // Set names are unique within a folder; disambiguate across folders if ever needed.
  std::map<std::string, int> count;
  for (const auto& s : sets) ++count[s.name];
  for (auto& s : sets) {
    if (count[s.name] > 1) s.name = Identifier(s.path.parent_path().filename().string()) + "_" + s.name;
  }
  return sets;
}

const std::vector<VectorSet>& Sets() {
  static const std::vector<VectorSet> sets = DiscoverSets();
  return sets;
}

class VectorSetTest : public ::testing::TestWithParam<VectorSet> {};

TEST_P(VectorSetTest, MatchesExpectedOutput) {
  const VectorSet& set = GetParam();
  std::ifstream in(set.path);
  ASSERT_TRUE(in) << "cannot read " << set.path;
  const nlohmann::json json = nlohmann::json::parse(in);
  const std::string op = json.at("op").get<std::string>();
  if (const std::string missing = MissingSupport(json, op); !missing.empty()) {
    GTEST_SKIP() << set.path.string() << ": " << missing;
  }
  const auto runner = vector_runners().find(op);
  const std::vector<int64_t> expected =
      json.at("tensors").at("expected_output").get<std::vector<int64_t>>();
  const std::vector<int64_t> got = runner->second(json);
  ASSERT_EQ(got.size(), expected.size()) << set.path;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], expected[i]) << set.path << ": first difference at element " << i << " of "
                                   << got.size();
  }
}

INSTANTIATE_TEST_SUITE_P(Sets, VectorSetTest, ::testing::ValuesIn(Sets()),
                         [](const ::testing::TestParamInfo<VectorSet>& info) { return info.param.name; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(VectorSetTest);

// The skip rule itself, on sets made here (the shared folder may be absent).
TEST(Vectors, SkipsOnlyWhatMoteLacks) {
  const auto set = [](const std::string& op, const std::string& input_type) {
    return nlohmann::json{{"op", op}, {"dtypes", {{"input", input_type}, {"weights", "int8"}}}};
  };
  EXPECT_EQ(MissingSupport(set("conv", "int8"), "conv"), "");
  EXPECT_EQ(MissingSupport(set("softmax", "int8"), "softmax"), "");
  EXPECT_NE(MissingSupport(set("no_such_op", "int8"), "no_such_op")
                .find("\"no_such_op\" is not implemented"),
            std::string::npos);
  EXPECT_NE(MissingSupport(set("conv", "int16"), "conv").find("int16 input"), std::string::npos);
  nlohmann::json int4 = set("conv", "int8");
  int4["derived"] = {{"weights_dtype", "int4"}};
  EXPECT_NE(MissingSupport(int4, "conv").find("int4 weights"), std::string::npos);
  EXPECT_EQ(MissingSupport(set("conv_s16", "int16"), "conv_s16"), "");
  EXPECT_EQ(MissingSupport(int4, "conv_int4"), "");
}

TEST(Vectors, Present) {
  if (!fs::is_directory(VectorsDir())) GTEST_SKIP() << "no vectors folder at " << VectorsDir();
  EXPECT_FALSE(Sets().empty()) << "no <op>/<set>.json files under " << VectorsDir();
}

}  // namespace
}  // namespace mote::kernels::testing
