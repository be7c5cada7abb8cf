#pragma once
// Running a program on the host the way firmware does (one aligned arena, no heap in the
// runtime), for `mote run`, `mote demo`, the tests and the benchmarks.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mote/runtime/executor.h"

namespace mote::pipeline {

// Mote's default input: xorshift32 from state 1, one byte per step
// (s ^= s << 13; s ^= s >> 17; s ^= s << 5; byte = s & 0xFF), one stream filling the inputs in order.
class DefaultInput {
 public:
  uint8_t next();
  void fill(std::span<uint8_t> bytes);

 private:
  uint32_t state_ = 1;
};

struct HostRun {
  runtime::MemoryStatus status{};
  std::vector<std::vector<uint8_t>> outputs;  // one per graph output, raw bytes
};

// Loads `program` (copied to an aligned buffer), fills the inputs with `inputs` (one per graph
// input, exactly its size) or, when `inputs` is empty, with DefaultInput, runs it `repeat` times
// and returns the outputs. Throws mote::InputError with the runtime's reason on any status.
HostRun run_on_host(std::span<const uint8_t> program,
                    const std::vector<std::vector<uint8_t>>& inputs = {}, int repeat = 1);

}  // namespace mote::pipeline
