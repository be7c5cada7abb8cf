#pragma once
// For runtime tests that cannot link the compiler (their runtime is built another way): a file's
// bytes, and bytes at a 16-byte aligned address, as Program::load requires.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace mote::runtime::testing {

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return {std::istreambuf_iterator<char>(in), {}};
}

struct AlignedBytes {
  explicit AlignedBytes(const std::vector<uint8_t>& bytes) : storage(bytes.size() + 16) {
    const auto at = reinterpret_cast<uintptr_t>(storage.data());
    data = storage.data() + ((16 - at % 16) % 16);
    std::memcpy(data, bytes.data(), bytes.size());
    size = bytes.size();
  }
  std::vector<uint8_t> storage;
  uint8_t* data;
  size_t size;
};

}  // namespace mote::runtime::testing
