// Reference vectors: every <vectors>/<op_dir>/<set>.json becomes one test case named after the set,
// discovered when the test binary starts (so a new file is tested without code changes). The
// folder is $MOTE_VECTORS_DIR, else MOTE_SHARED_DIR/vectors; the suite skips when it is absent.
// Each set runs through the runner registered for its "op" (see testing/vector_runner.h) and must
// equal "expected_output" exactly. A set whose op has no runner fails.

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
  const auto& runners = vector_runners();
  const auto runner = runners.find(op);
  if (runner == runners.end()) FAIL() << set.path << ": no runner registered for op \"" << op << "\"";
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

TEST(Vectors, Present) {
  if (!fs::is_directory(VectorsDir())) GTEST_SKIP() << "no vectors folder at " << VectorsDir();
  EXPECT_FALSE(Sets().empty()) << "no <op>/<set>.json files under " << VectorsDir();
}

}  // namespace
}  // namespace mote::kernels::testing
