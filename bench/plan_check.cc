// mote_plan_check: Program::load of a program with N small tensors side by side (as a hostile
// program packs them), for `valgrind --tool=callgrind` at several N:
//   valgrind --tool=callgrind --toggle-collect='*Loader::sweep_overlaps*' \
//     build/bench/mote_plan_check 16000
// counts the O(n log n) plan check alone; --pairwise loads without a workspace (the O(n^2)
// check), --toggle-collect='*load_once*' counts the whole load.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/emit/emit.h"
#include "compiler/emit/program_builder.h"
#include "mote/runtime/program.h"

namespace {

std::vector<uint8_t> program_with(uint32_t count) {
  mote::emit::ProgramBuilder b("cortex-m4", mote::schema::Extension::Dsp);
  const int32_t x = b.add_arena_tensor("x", mote::schema::DataType::Int8, {4}, 0);
  const int32_t y = b.add_arena_tensor("y", mote::schema::DataType::Int8, {4}, 16);
  b.add_operator(mote::schema::OpKind::Reshape, {x}, {y});
  b.set_graph_io({x}, {y});
  b.set_arena(32 + 4 * count);
  b.derive_lifetimes();
  for (uint32_t k = 0; k < count; ++k) {
    b.add_arena_tensor("", mote::schema::DataType::Int8, {4}, 32 + 4 * k);
  }
  mote::schema::ProgramT program = b.take_program();
  program.version = mote::runtime::kFormatVersion;
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(mote::schema::Program::Pack(fbb, &program), mote::schema::ProgramIdentifier());
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

__attribute__((noinline)) mote::runtime::Error load_once(const mote::emit::AlignedBuffer& bytes,
                                                          std::vector<uint32_t>* workspace) {
  const auto loaded =
      workspace != nullptr
          ? mote::runtime::Program::load(bytes.data(), bytes.size(), workspace->data(),
                                         workspace->size())
          : mote::runtime::Program::load(bytes.data(), bytes.size(), nullptr, 0);
  return loaded.ok() ? mote::runtime::Error::kOk : loaded.error();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: mote_plan_check N [--pairwise]\n");
    return 2;
  }
  const uint32_t count = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  const bool pairwise = argc > 2 && std::strcmp(argv[2], "--pairwise") == 0;
  const mote::emit::AlignedBuffer bytes(program_with(count));
  std::vector<uint32_t> workspace(
      mote::runtime::load_workspace_words(mote::runtime::kMaxTensors, mote::runtime::kMaxOperators));
  const mote::runtime::Error e = load_once(bytes, pairwise ? nullptr : &workspace);
  std::printf("%u tensors: %s\n", count + 2, mote::runtime::to_string(e));
  return e == mote::runtime::Error::kOk ? 0 : 1;
}
