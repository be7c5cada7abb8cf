#pragma once
// A structure-aware mutation for fuzz_program_load: unpack a valid .mote program, change one
// field that Program::load checks (an offset, a size, a dimension, a lifetime, an alias, an
// operand index, a scratch region, a stride...) to a nearby or boundary value, and pack it
// again. Byte-level mutations rarely get past the FlatBuffers verifier; these test the loader's
// semantic rules and the kernels behind them.

#include <cstddef>
#include <cstdint>

namespace mote::fuzz {

// Mutates data[0, size) in place (at most max_size bytes); returns the new size, or 0 when the
// bytes are not a well-formed program (the caller falls back to libFuzzer's own mutations).
size_t mutate_program(uint8_t* data, size_t size, size_t max_size, uint32_t seed);

}  // namespace mote::fuzz
