#pragma once
// What the commands that read a .mote file say about it: whether a file is a program, and its
// target and types as every command spells them.

#include <filesystem>
#include <memory>
#include <string>

#include "compiler/emit/emit.h"
#include "mote/schema/mote_generated.h"

namespace mote::emit {

/// Whether the file starts as a .mote program does (its FlatBuffers identifier "MOTE" at bytes
/// 4-7), so that a command taking a model or a program can tell which it was given. False for a
/// file it cannot read.
bool is_program_file(const std::filesystem::path& path);

/// A .mote file read and verified: its bytes and what they hold.
struct ProgramFile {
  AlignedBuffer bytes;
  std::unique_ptr<schema::ProgramT> program;
};
/// Throws mote::InputError "<path>: <reason>" for a file that is not a valid program.
ProgramFile read_program_file(const std::filesystem::path& path);

/// The kernels a program was planned for ("scalar", "dsp", "mve": their scratch sizes and
/// overlaps are in its plan); "" when it names no target.
std::string target_kernels(const schema::ProgramT& program);

/// A program's element type as `mote inspect` spells types: "int8", "float32".
std::string data_type_name(schema::DataType type);

}  // namespace mote::emit
