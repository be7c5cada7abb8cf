// mote_write_builder_model: writes one of the builder's named models (src/compiler/builder/models.h)
// as a .tflite file, and optionally an input for it, so that firmware builds can compile and run
// models made in code without any model file in the repository.
//   mote_write_builder_model <name> <out.tflite> [<input.bin>]
// The input is every graph input's bytes, concatenated in input order: float32 inputs get values
// in [-1, 1), integer inputs raw bytes, both from xorshift32 (state 1), so it is the same on
// every run. Exit status: 0 ok, 2 bad arguments or unknown name, 1 a file could not be written.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"

namespace {

bool write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

std::vector<uint8_t> make_input(const mote::ir::Graph& graph) {
  uint32_t state = 1;
  const auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  std::vector<uint8_t> bytes;
  for (int32_t index : graph.inputs) {
    const mote::ir::Tensor& t = graph.tensors.at(static_cast<size_t>(index));
    const int64_t n = t.num_elements();
    if (t.type == mote::ir::DataType::kFloat32) {
      for (int64_t i = 0; i < n; ++i) {
        const float value = static_cast<float>(next() >> 8) / 8388608.0f - 1.0f;  // [-1, 1)
        uint8_t raw[4];
        std::memcpy(raw, &value, 4);
        bytes.insert(bytes.end(), raw, raw + 4);
      }
    } else {
      for (int64_t i = 0; i < t.num_bytes(); ++i) bytes.push_back(static_cast<uint8_t>(next()));
    }
  }
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s <name> <out.tflite> [<input.bin>]\n", argv[0]);
    return 2;
  }
  const std::string name = argv[1];
  std::vector<mote::builder::NamedModel> models = mote::builder::all_named_models();
  // 16x8 and int4 weights, for the firmware.
  models.push_back({"int16_layers", mote::builder::int16_layers()});
  models.push_back({"lstm_16x8", mote::builder::lstm_16x8()});
  models.push_back({"int4_layers", mote::builder::int4_layers()});
  for (const mote::builder::NamedModel& model : models) {
    if (model.name != name) continue;
    if (!write_file(argv[2], mote::builder::write_model(model.graph))) {
      std::fprintf(stderr, "error: cannot write %s\n", argv[2]);
      return 1;
    }
    if (argc == 4 && !write_file(argv[3], make_input(model.graph))) {
      std::fprintf(stderr, "error: cannot write %s\n", argv[3]);
      return 1;
    }
    return 0;
  }
  std::string names;
  for (const mote::builder::NamedModel& model : models) {
    names += (names.empty() ? "" : ", ") + model.name;
  }
  std::fprintf(stderr, "error: no builder model named '%s' (there are: %s)\n", name.c_str(),
               names.c_str());
  return 2;
}
