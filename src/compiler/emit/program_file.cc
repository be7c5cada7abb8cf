#include "compiler/emit/program_file.h"

#include <cctype>
#include <cstring>
#include <fstream>

#include "compiler/ir/error.h"
#include "compiler/target/target.h"

namespace mote::emit {

bool is_program_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  char head[8] = {};
  return file.read(head, sizeof head) &&
         std::memcmp(head + 4, schema::ProgramIdentifier(), 4) == 0;
}

ProgramFile read_program_file(const std::filesystem::path& path) {
  ProgramFile file{read_file_aligned(path), nullptr};
  try {
    file.program = read_program(file.bytes.span());
  } catch (const InputError& e) {
    throw InputError(path.string() + ": " + e.what());
  }
  return file;
}

std::string target_kernels(const schema::ProgramT& program) {
  if (!program.target) return "";
  return std::string(
      target::extension_name(static_cast<kernels::Extension>(program.target->extension)));
}

std::string data_type_name(schema::DataType type) {
  std::string name = schema::EnumNameDataType(type);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

}  // namespace mote::emit
