#pragma once
// Shared by the fuzz targets: an exact-size aligned copy of the input (so ASan sees every read
// past its end), a cost estimate that keeps a run within the fuzzer's time budget, and running a
// loaded program in an arena of exactly the planned size whose unplanned bytes are poisoned.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include "mote/runtime/program.h"

namespace mote::fuzz {

// Heap bytes at `alignment` holding exactly `size` bytes (never fewer than 1 allocated, so the
// pointer is never null).
class ExactBuffer {
 public:
  ExactBuffer(size_t size, size_t alignment);
  ExactBuffer(const uint8_t* data, size_t size, size_t alignment);
  ~ExactBuffer();
  ExactBuffer(const ExactBuffer&) = delete;
  ExactBuffer& operator=(const ExactBuffer&) = delete;

  uint8_t* data() { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_;
  size_t size_;
  std::align_val_t alignment_;
};

// Roughly how many inner-loop iterations one run of a loaded program costs (multiply-accumulates
// of the weighted operators, window reads of pooling, element visits of the rest), saturating
// at UINT64_MAX. The harnesses skip running programs above a budget.
uint64_t estimated_work(const runtime::Program& program);

// What the harnesses allow a run to cost: the arena they allocate and the work it may do.
inline constexpr size_t kMaxRunArenaBytes = size_t{4} << 20;
inline constexpr uint64_t kMaxRunWork = 20'000'000;

// Runs a loaded program once, if it fits the budgets above (returns false when skipped): an arena
// of exactly arena_size() bytes, zeroed, with every byte that no arena tensor or scratch region
// covers poisoned for ASan; graph inputs filled from a xorshift32 stream seeded with `seed`.
// Aborts when the runtime breaks its contract: Executor::create or run() failing on a loaded
// program, or a graph input or output view outside the arena.
bool run_loaded_program(const runtime::Program& program, uint32_t seed);

// How far inputs got, for the seed replay (replay_main.cc prints these and can require runs).
struct Counters {
  size_t programs_loaded = 0;  // Program::load accepted the bytes (or the compiler's output)
  size_t programs_run = 0;     // run_loaded_program ran them
};
Counters& counters();

// FNV-1a of the bytes, to derive deterministic choices from an input.
uint32_t hash_bytes(const uint8_t* data, size_t size);

}  // namespace mote::fuzz
