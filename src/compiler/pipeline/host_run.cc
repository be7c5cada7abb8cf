#include "compiler/pipeline/host_run.h"

#include <cstring>

#include "compiler/ir/error.h"

namespace mote::pipeline {
namespace {

std::string describe(const runtime::LoadDiagnostic& d) {
  using Where = runtime::LoadDiagnostic::Where;
  switch (d.where) {
    case Where::kProgram: return d.reason;
    case Where::kTensor: return "tensor " + std::to_string(d.index) + ": " + d.reason;
    case Where::kOperator:
      return "operator " + std::to_string(d.index) + (*d.op_name ? std::string(" (") + d.op_name + ")" : "") +
             ": " + d.reason;
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

void DefaultInput::fill_float(std::span<uint8_t> bytes) {
  for (size_t i = 0; i + sizeof(float) <= bytes.size(); i += sizeof(float)) {
    const float value = static_cast<float>(static_cast<int8_t>(next())) / 128.0f;
    std::memcpy(bytes.data() + i, &value, sizeof value);
  }
}

HostProgram::HostProgram(std::span<const uint8_t> program) : bytes_(program) {
  runtime::LoadDiagnostic diagnostic;
  const auto loaded = emit::load_program(bytes_.span(), &diagnostic);
  if (!loaded.ok()) {
    throw InputError(std::string(runtime::to_string(loaded.error())) + ": " +
                     describe(diagnostic));
  }
  arena_ = emit::AlignedBuffer(loaded.value().arena_size(), loaded.value().arena_alignment());
  const auto executor = runtime::Executor::create(loaded.value(), arena_.data(), arena_.size());
  if (!executor.ok()) throw InputError(runtime::to_string(executor.error()));
  executor_ = executor.value();
}

HostRun HostProgram::run(const std::vector<std::vector<uint8_t>>& inputs, int repeat) {
  runtime::Executor& executor = *executor_;
  if (!inputs.empty() && inputs.size() != executor.num_inputs()) {
    throw InputError("the program has " + std::to_string(executor.num_inputs()) + " input(s), " +
                     std::to_string(inputs.size()) + " given");
  }
  std::vector<std::vector<uint8_t>> bytes_in = inputs;
  DefaultInput generator;
  for (size_t i = 0; i < executor.num_inputs(); ++i) {
    const size_t size = input_size(i);
    if (inputs.empty()) {
      bytes_in.emplace_back(size);
      if (executor.input(i).type == runtime::DataType::kFloat32) {
        generator.fill_float(bytes_in.back());
      } else {
        generator.fill(bytes_in.back());
      }
    } else if (inputs[i].size() != size) {
      throw InputError(std::to_string(inputs[i].size()) + " bytes, input " + std::to_string(i) +
                       " needs exactly " + std::to_string(size));
    }
  }
  for (int r = 0; r < repeat; ++r) {
    // The plan may reuse an input's bytes for later tensors: write the inputs before every run.
    for (size_t i = 0; i < bytes_in.size(); ++i) {
      std::memcpy(executor.input(i).data, bytes_in[i].data(), bytes_in[i].size());
    }
    if (const runtime::Error e = executor.run(); e != runtime::Error::kOk) {
      throw InputError(std::string("run failed: ") + runtime::to_string(e));
    }
  }
  HostRun result;
  result.status = executor.memory_status();
  for (size_t i = 0; i < executor.num_outputs(); ++i) {
    const runtime::TensorView view = executor.output(i);
    result.outputs.emplace_back(view.data, view.data + view.size);
  }
  return result;
}

HostRun run_on_host(std::span<const uint8_t> program,
                    const std::vector<std::vector<uint8_t>>& inputs, int repeat) {
  return HostProgram(program).run(inputs, repeat);
}

}  // namespace mote::pipeline
