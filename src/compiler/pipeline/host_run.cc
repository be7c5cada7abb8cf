#include "compiler/pipeline/host_run.h"

#include <cstring>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "mote/runtime/program.h"

namespace mote::pipeline {
namespace {

[[noreturn]] void fail(const std::string& what, runtime::Error error) {
  throw InputError(what + ": " + runtime::to_string(error));
}

std::string describe(const runtime::LoadDiagnostic& d) {
  using Where = runtime::LoadDiagnostic::Where;
  switch (d.where) {
    case Where::kProgram: return d.reason;
    case Where::kTensor: return "tensor " + std::to_string(d.index) + ": " + d.reason;
    case Where::kOperator: return "operator " + std::to_string(d.index) + ": " + d.reason;
    case Where::kInput: return "graph input " + std::to_string(d.index) + ": " + d.reason;
    case Where::kOutput: return "graph output " + std::to_string(d.index) + ": " + d.reason;
  }
  return d.reason;
}

}  // namespace

uint8_t DefaultInput::next() {
  state_ ^= state_ << 13;
  state_ ^= state_ >> 17;
  state_ ^= state_ << 5;
  return static_cast<uint8_t>(state_ & 0xFF);
}

void DefaultInput::fill(std::span<uint8_t> bytes) {
  for (uint8_t& b : bytes) b = next();
}

HostRun run_on_host(std::span<const uint8_t> program_bytes,
                    const std::vector<std::vector<uint8_t>>& inputs, int repeat) {
  const emit::AlignedBuffer bytes(program_bytes);
  runtime::LoadDiagnostic diagnostic;
  auto program = runtime::Program::load(bytes.data(), bytes.size(), &diagnostic);
  if (!program.ok()) {
    throw InputError(std::string("program rejected: ") + runtime::to_string(program.error()) +
                     ": " + describe(diagnostic));
  }
  emit::AlignedBuffer arena(program.value().arena_size(), program.value().arena_alignment());
  auto executor = runtime::Executor::create(program.value(), arena.data(), arena.size());
  if (!executor.ok()) fail("arena", executor.error());

  if (!inputs.empty() && inputs.size() != executor.value().num_inputs()) {
    throw InputError("the program has " + std::to_string(executor.value().num_inputs()) +
                     " inputs, " + std::to_string(inputs.size()) + " given");
  }
  std::vector<std::vector<uint8_t>> bytes_in = inputs;
  DefaultInput generator;
  for (size_t i = 0; i < executor.value().num_inputs(); ++i) {
    const size_t size = executor.value().input(i).size;
    if (inputs.empty()) {
      bytes_in.emplace_back(size);
      generator.fill(bytes_in.back());
    } else if (inputs[i].size() != size) {
      throw InputError("input " + std::to_string(i) + " needs exactly " + std::to_string(size) +
                       " bytes, " + std::to_string(inputs[i].size()) + " given");
    }
  }
  for (int r = 0; r < repeat; ++r) {
    // The plan may reuse an input's bytes for later tensors: write the inputs before every run.
    for (size_t i = 0; i < bytes_in.size(); ++i) {
      std::memcpy(executor.value().input(i).data, bytes_in[i].data(), bytes_in[i].size());
    }
    if (const runtime::Error e = executor.value().run(); e != runtime::Error::kOk) fail("run", e);
  }
  HostRun result;
  result.status = executor.value().memory_status();
  for (size_t i = 0; i < executor.value().num_outputs(); ++i) {
    const runtime::TensorView view = executor.value().output(i);
    result.outputs.emplace_back(view.data, view.data + view.size);
  }
  return result;
}

}  // namespace mote::pipeline
