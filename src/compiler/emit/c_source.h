#pragma once
// A program as C source, for firmware that embeds it: `mote compile --emit c` and
// mote_add_model() write this pair. The header compiles as C (C99 and later) and C++ alike.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mote::emit {

struct CSource {
  std::string header;  // <name>.h: the figures as preprocessor constants, the array's declaration
  std::string source;  // <name>.c: the 16-byte aligned const array
};

/// True for a C identifier: [A-Za-z_][A-Za-z0-9_]*.
bool is_c_identifier(std::string_view text);
/// `text` made a C identifier: other characters become '_', a leading digit gets a '_' before it.
std::string to_c_identifier(std::string_view text);

/// The header and source for verified program bytes. `symbol` (a C identifier) names the array;
/// its upper case prefixes the constants: <NAME>_BYTES, <NAME>_ARENA_BYTES, <NAME>_ARENA_ALIGN,
/// <NAME>_NUM_INPUTS, <NAME>_INPUT<i>_BYTES, ... and `<symbol>_size` stays for older code.
/// `header_name` is what the source includes; `origin` (the model's file name) goes into the
/// comments. Throws mote::InputError for bytes that are not a valid program.
CSource c_source(std::span<const uint8_t> program, const std::string& symbol,
                 const std::string& header_name, const std::string& origin);

}  // namespace mote::emit
