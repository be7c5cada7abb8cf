// mote_write_operator_model <out.tflite> <input.bin> <reference.bin>: the operator test model
// (operator_model.h), its input and the output of the slow references, for the firmware tests.
// Exit status: 0 ok, 2 bad arguments, 1 a file could not be written.

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/builder/writer.h"
#include "tests/operator_model.h"

namespace {

bool write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out.flush());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <out.tflite> <input.bin> <reference.bin>\n", argv[0]);
    return 2;
  }
  const mote::ir::Graph graph = mote::testing::operator_model();
  const std::vector<uint8_t> input = mote::testing::operator_model_input(graph);
  const std::vector<uint8_t> files[] = {mote::builder::write_model(graph), input,
                                        mote::testing::operator_model_reference(graph, input)};
  for (int i = 0; i < 3; ++i) {
    if (!write_file(argv[i + 1], files[i])) {
      std::fprintf(stderr, "error: cannot write %s\n", argv[i + 1]);
      return 1;
    }
  }
  return 0;
}
