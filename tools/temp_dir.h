#pragma once
// A folder of its own under the system's temporary folder, removed when the object dies: where
// `mote validate` and `mote analyze --measure` put the files the QEMU runner reads and writes.
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "compiler/ir/error.h"

namespace mote::tools {

struct TempDir {
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "mote-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw InputError("cannot create a temporary folder");
    path = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::filesystem::path path;
};

}  // namespace mote::tools
