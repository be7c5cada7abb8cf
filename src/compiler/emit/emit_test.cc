#include "compiler/emit/emit.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <thread>

#include "compiler/emit/program_builder.h"
#include "compiler/ir/error.h"
#include "mote/runtime/program.h"
#include "runtime/testing/test_programs.h"

namespace mote::emit {
namespace {

namespace fs = std::filesystem;

TEST(ConstantPoolTest, AlignsEveryItemTo16Bytes) {
  ConstantPool pool;
  const std::vector<uint8_t> three = {1, 2, 3};
  EXPECT_EQ(pool.add(three), 0u);
  EXPECT_EQ(pool.add(three), 16u);
  const std::vector<int32_t> ints = {-1, 7};
  const schema::Region r = pool.add_array(ints);
  EXPECT_EQ(r.offset(), 32u);
  EXPECT_EQ(r.size(), 8u);
  EXPECT_EQ(pool.add(std::span<const uint8_t>()), 48u);
  ASSERT_EQ(pool.bytes().size(), 48u);
  EXPECT_EQ(pool.bytes()[16], 1);
  EXPECT_EQ(pool.bytes()[3], 0);  // padding is zero
  int32_t back;
  std::memcpy(&back, pool.bytes().data() + 36, 4);
  EXPECT_EQ(back, 7);
}

TEST(EmitProgramTest, PlacesConstantsAlignedAndLoads) {
  const auto bytes = emit_program(runtime::testing::conv_add_program());
  EXPECT_EQ(bytes.size() % 16, 0u);
  ASSERT_TRUE(schema::ProgramBufferHasIdentifier(bytes.data()));
  const auto* root = schema::GetProgram(bytes.data());
  EXPECT_EQ(root->version(), runtime::kFormatVersion);
  ASSERT_NE(root->constants(), nullptr);
  EXPECT_EQ((root->constants()->data() - bytes.data()) % 16, 0);
  const auto loaded = runtime::testing::load(bytes);
  EXPECT_TRUE(loaded.program.ok());
}

TEST(EmitProgramTest, IsDeterministic) {
  EXPECT_EQ(emit_program(runtime::testing::conv_add_program()),
            emit_program(runtime::testing::conv_add_program()));
}

TEST(EmitProgramTest, RoundTripsThroughReadProgram) {
  const auto bytes = emit_program(runtime::testing::conv_add_program());
  const auto program = read_program(bytes);
  ASSERT_EQ(program->tensors.size(), 7u);
  EXPECT_EQ(program->tensors[0]->name, "x");
  EXPECT_EQ(program->operators[0]->kind, schema::OpKind::Conv2D);
  EXPECT_EQ(program->operators[0]->scratch->size(), 80u);
  EXPECT_EQ(program->target->cpu, "cortex-m3");
  EXPECT_EQ(emit_program(std::move(*program)), bytes);
  EXPECT_THROW(read_program(std::vector<uint8_t>(64, 0)), InputError);
}

TEST(EmitProgramTest, RejectsWhatTheRuntimeWouldReject) {
  auto bad_plan = runtime::testing::conv_add_program();
  bad_plan.tensors[3]->offset = 16;  // y onto the live input
  try {
    emit_program(std::move(bad_plan));
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(),
                 "emit: tensor 3 (y): shares bytes with a tensor live at the same time "
                 "(invalid memory plan)");
  }
  auto bad_scratch = runtime::testing::conv_add_program();
  bad_scratch.operators[0]->scratch.reset();
  try {
    emit_program(std::move(bad_scratch));
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(),
                 "emit: operator 0 (Conv2D): scratch region smaller than the kernel needs "
                 "(scratch region too small)");
  }
  // What the kernels cannot run is the model's problem, not the compiler's.
  auto unsupported = runtime::testing::conv_add_program();
  unsupported.tensors[0]->shape = {1, 1, 1, 1, 1, 1, 50};
  EXPECT_THROW(emit_program(std::move(unsupported)), InputError);
}

TEST(ProgramBuilderTest, DerivesLifetimes) {
  ProgramBuilder b("cortex-m4", schema::Extension::Dsp);
  const int32_t a = b.add_arena_tensor("a", schema::DataType::Int8, {4}, 0);
  const int32_t c = b.add_arena_tensor("c", schema::DataType::Int8, {4}, 16);
  const int32_t d = b.add_arena_tensor("d", schema::DataType::Int8, {4}, 32);
  const int32_t e = b.add_arena_tensor("e", schema::DataType::Int8, {4}, 0);
  b.add_operator(schema::OpKind::Reshape, {a}, {c});
  b.add_operator(schema::OpKind::Reshape, {c}, {d});
  b.add_operator(schema::OpKind::Reshape, {c}, {e});
  b.set_graph_io({a}, {d, e});
  b.set_arena(48);
  b.derive_lifetimes();
  EXPECT_EQ(b.tensor(a).first_step, 0u);
  EXPECT_EQ(b.tensor(a).last_step, 0u);
  EXPECT_EQ(b.tensor(c).first_step, 0u);
  EXPECT_EQ(b.tensor(c).last_step, 2u);
  EXPECT_EQ(b.tensor(d).first_step, 1u);
  EXPECT_EQ(b.tensor(d).last_step, 2u);  // a graph output lives to the end
  EXPECT_EQ(b.tensor(e).first_step, 2u);
  const auto bytes = b.finish();
  EXPECT_TRUE(runtime::testing::load(bytes).program.ok());
}

class WriteFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mote_emit_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  size_t entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  fs::path dir_;
};

TEST_F(WriteFileTest, WritesAndReplacesAtomically) {
  const fs::path path = dir_ / "out.mote";
  const std::vector<uint8_t> first = {1, 2, 3}, second(1000, 7);
  write_file_atomically(path, first);
  const AlignedBuffer a = read_file_aligned(path);
  EXPECT_EQ(std::vector<uint8_t>(a.data(), a.data() + a.size()), first);
  write_file_atomically(path, second);
  const AlignedBuffer b = read_file_aligned(path);
  EXPECT_EQ(std::vector<uint8_t>(b.data(), b.data() + b.size()), second);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 16, 0u);
  EXPECT_EQ(entries(), 1u);  // no temporary left behind
}

TEST_F(WriteFileTest, FailsWithoutLeavingAnything) {
  const fs::path path = dir_ / "missing" / "out.mote";
  EXPECT_THROW(write_file_atomically(path, std::vector<uint8_t>{1}), InputError);
  EXPECT_EQ(entries(), 0u);
  // A directory in the way: the rename fails and the temporary is removed.
  fs::create_directories(dir_ / "taken" / "child");
  EXPECT_THROW(write_file_atomically(dir_ / "taken", std::vector<uint8_t>{1}), InputError);
  EXPECT_EQ(entries(), 1u);
  EXPECT_THROW(read_file_aligned(dir_ / "nope"), InputError);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string what(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_F(WriteFileTest, WritesASymbolicLinksTargetAndKeepsTheLink) {
  std::ofstream(dir_ / "target.json") << "old";
  fs::create_symlink("target.json", dir_ / "link.json");
  write_file_atomically(dir_ / "link.json", std::vector<uint8_t>{'n', 'e', 'w'});
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_EQ(read_text(dir_ / "target.json"), "new");
  // A link to a file that does not exist yet creates it.
  fs::create_symlink("later.json", dir_ / "dangling.json");
  write_file_atomically(dir_ / "dangling.json", std::vector<uint8_t>{'x'});
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling.json"));
  EXPECT_EQ(read_text(dir_ / "later.json"), "x");
  EXPECT_EQ(entries(), 4u);  // no temporary left behind
}

TEST_F(WriteFileTest, KeepsTheModeOfAReplacedFile) {
  std::ofstream(dir_ / "f") << "old";
  fs::permissions(dir_ / "f", fs::perms(0640));
  write_file_atomically(dir_ / "f", std::vector<uint8_t>{'n'});
  EXPECT_EQ(fs::status(dir_ / "f").permissions(), fs::perms(0640));
}

TEST_F(WriteFileTest, RefusesADirectory) {
  fs::create_directories(dir_ / "folder");
  EXPECT_EQ(what([&] { write_file_atomically(dir_ / "folder", std::vector<uint8_t>{1}); }),
            (dir_ / "folder").string() + ": cannot write: is a directory");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(WriteFileTest, WritesACharacterDeviceDirectly) {
  // /dev/null through a link in our folder: the link stays, /dev/null stays a device.
  fs::create_symlink("/dev/null", dir_ / "null");
  write_file_atomically(dir_ / "null", std::vector<uint8_t>(100, 1));
  EXPECT_TRUE(fs::is_symlink(dir_ / "null"));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(entries(), 1u);
  // A full device fails with the reason, and nothing is left.
  if (fs::is_character_file("/dev/full")) {
    EXPECT_EQ(what([&] { write_file_atomically("/dev/full", std::vector<uint8_t>(10, 1)); }),
              std::string("/dev/full: cannot write: ") + std::strerror(ENOSPC));
  }
}

TEST_F(WriteFileTest, WritesAFifoDirectly) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read_text(fifo); });
  write_file_atomically(fifo, std::vector<uint8_t>{'h', 'i'});
  reader.join();
  EXPECT_EQ(got, "hi");
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);
}

TEST_F(WriteFileTest, ADeviceNodeMadeHereStaysADevice) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  const fs::path node = dir_ / "null";
  ASSERT_EQ(::mknod(node.c_str(), S_IFCHR | 0666, ::makedev(1, 3)), 0) << std::strerror(errno);
  write_file_atomically(node, std::vector<uint8_t>(100, 1));
  EXPECT_TRUE(fs::is_character_file(node));
}

TEST_F(WriteFileTest, AFailedCommitLeavesNoneOfItsFiles) {
  std::ofstream(dir_ / "kept.json") << "old";
  {
    OutputFiles files;
    files.add((dir_ / "report.json").string(), std::string_view("{}"));
    files.add((dir_ / "kept.json").string(), std::string_view("new"));
    files.add("/dev/full", std::string_view("program"));
    EXPECT_EQ(entries(), 3u);  // the two temporaries beside kept.json
    EXPECT_THROW(files.commit(), InputError);
  }
  EXPECT_EQ(entries(), 1u);
  EXPECT_EQ(read_text(dir_ / "kept.json"), "old");
  // Uncommitted: the temporaries go with the object.
  {
    OutputFiles files;
    files.add((dir_ / "a").string(), std::string_view("a"));
  }
  EXPECT_EQ(entries(), 1u);
}

}  // namespace
}  // namespace mote::emit
