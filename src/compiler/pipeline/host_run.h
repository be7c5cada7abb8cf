#pragma once
// Running a program on the host the way firmware does (one aligned arena, no heap in the
// runtime), for `mote run`, `mote demo`, the tests and the benchmarks.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compiler/emit/emit.h"
#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"

namespace mote::pipeline {

// Mote's default input: xorshift32 from state 1, one byte per step
// (s ^= s << 13; s ^= s >> 17; s ^= s << 5; byte = s & 0xFF), one stream filling the inputs in
// order. An integer input takes the bytes as they come; a float32 input takes one byte per
// element, read as int8 and divided by 128 (values in [-1, 1) on a 1/128 grid, which any int8
// QUANTIZE that follows represents without saturating for scales of 1/128 or more).
class DefaultInput {
 public:
  DefaultInput() = default;
  // Another stream of the same kind (`mote validate --inputs N`); state 0 would stay 0.
  explicit DefaultInput(uint32_t seed) : state_(seed != 0 ? seed : 1) {}
  uint8_t next();
  void fill(std::span<uint8_t> bytes);
  // `bytes` holds float32 elements: each is the next byte as int8, / 128.
  void fill_float(std::span<uint8_t> bytes);

 private:
  uint32_t state_ = 1;
};

struct HostRun {
  runtime::MemoryStatus status{};
  std::vector<std::vector<uint8_t>> outputs;  // one per graph output, raw bytes
};

// A loaded program with its own aligned copy of the bytes and an arena of the planned size.
class HostProgram {
 public:
  // Throws mote::InputError ("invalid program: operator 3: ...") when the runtime rejects it.
  explicit HostProgram(std::span<const uint8_t> program);
  HostProgram(const HostProgram&) = delete;
  HostProgram& operator=(const HostProgram&) = delete;

  size_t num_inputs() const { return executor_->num_inputs(); }
  // The bytes the caller gives for input `index`: the input's own, or float32 elements for an
  // input the program holds quantized (Executor::input_takes_float), which set_input quantizes.
  size_t input_size(size_t index) const;
  bool input_takes_float(size_t index) const { return executor_->input_takes_float(index); }

  // Writes `inputs` (one per graph input, exactly its size; empty: DefaultInput) before each of
  // `repeat` runs and returns the outputs. Throws mote::InputError on a size mismatch or a
  // runtime status.
  HostRun run(const std::vector<std::vector<uint8_t>>& inputs = {}, int repeat = 1);

  // One run, operator by operator: per operator, the bytes of its arena outputs right after it
  // ran (the arena reuses them later), in operator order; what `mote validate` compares with a
  // target CPU. `inputs` as for run(), but given (one per graph input, exactly its size). It
  // starts from the initial state, as the target's run of the same input does.
  struct Layer {
    std::string op;  // "CONV_2D"
    runtime::DataType type = runtime::DataType::kInt8;  // of its first output
    std::vector<uint8_t> bytes;
  };
  std::vector<Layer> run_layers(const std::vector<std::vector<uint8_t>>& inputs);
  // Inputs from a DefaultInput stream with `seed` (1: run()'s default), one per graph input.
  std::vector<std::vector<uint8_t>> default_inputs(uint32_t seed = 1) const;

 private:
  // Copies `bytes` into input `index`, or binds them when the input is outside the arena.
  void set_input(size_t index, const std::vector<uint8_t>& bytes);

  emit::AlignedBuffer bytes_;
  emit::AlignedBuffer arena_;
  std::optional<runtime::Executor> executor_;
};

// HostProgram(program).run(inputs, repeat).
HostRun run_on_host(std::span<const uint8_t> program,
                    const std::vector<std::vector<uint8_t>>& inputs = {}, int repeat = 1);

}  // namespace mote::pipeline
