// mote_write_vector_calls LIST OUT_DIR SET.json...: writes each reference-vector set as a kernel
// call (src/kernels/vector_calls/kernel_call.h) to OUT_DIR/<folder>.<set>.call and their paths, one a
// line, to LIST, for the firmware's vector test (targets/cortex-m/tests/vector_calls.cc).

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/vector_calls/kernel_call_json.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: mote_write_vector_calls LIST OUT_DIR SET.json...\n";
    return 2;
  }
  const fs::path list_path = argv[1];
  const fs::path out_dir = argv[2];
  std::string list;
  for (int i = 3; i < argc; ++i) {
    const fs::path set_path = argv[i];
    try {
      std::ifstream in(set_path);
      const nlohmann::json set = nlohmann::json::parse(in);
      const std::vector<uint32_t> words = mote::kernels::testing::encode_call(set);
      const fs::path out = fs::absolute(out_dir / (set_path.parent_path().filename().string() + "." +
                                                   set_path.stem().string() + ".call"));
      std::ofstream file(out, std::ios::binary);
      file.write(reinterpret_cast<const char*>(words.data()),
                 static_cast<std::streamsize>(words.size() * 4));
      if (!file.flush()) throw std::runtime_error("cannot write " + out.string());
      list += out.string() + "\n";
    } catch (const std::exception& e) {
      std::cerr << "mote_write_vector_calls: " << set_path.string() << ": " << e.what() << "\n";
      return 1;
    }
  }
  std::ofstream file(list_path);
  file << list;
  if (!file.flush()) {
    std::cerr << "mote_write_vector_calls: cannot write " << list_path.string() << "\n";
    return 1;
  }
  return 0;
}
