#include "compiler/pipeline/host_run.h"

#include <cstring>

#include "compiler/ir/error.h"
#include "mote/schema/mote_generated.h"

namespace mote::pipeline {

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
    std::string text(256 + std::strlen(diagnostic.reason), '\0');
    text.resize(runtime::format_load_error(loaded.error(), diagnostic, text.data(), text.size()));
    throw InputError(text);
  }
  arena_ = emit::AlignedBuffer(loaded.value().arena_size(), loaded.value().arena_alignment());
  const auto executor = runtime::Executor::create(loaded.value(), arena_.data(), arena_.size());
  if (!executor.ok()) {
    char text[128];
    const size_t n = runtime::format_create_error(executor.error(), loaded.value(), arena_.data(),
                                                  arena_.size(), text, sizeof(text));
    throw InputError(std::string(text, n));
  }
  executor_ = executor.value();
}

size_t HostProgram::input_size(size_t index) const {
  const runtime::TensorView view = executor_->input(index);
  if (!executor_->input_takes_float(index)) return view.size;
  return view.size / (view.type == runtime::DataType::kInt16 ? 2 : 1) * sizeof(float);
}

void HostProgram::set_input(size_t index, const std::vector<uint8_t>& bytes) {
  runtime::Executor& executor = *executor_;
  if (executor.input_takes_float(index)) {
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    if (const runtime::Error e = executor.write_input(index, values.data(), values.size());
        e != runtime::Error::kOk) {
      throw InputError("input " + std::to_string(index) + ": " + runtime::to_string(e));
    }
    return;
  }
  if (!executor.input_is_external(index)) {
    std::memcpy(executor.input(index).data, bytes.data(), bytes.size());
    return;
  }
  // Kept outside the arena: the program reads the caller's bytes in place.
  if (const runtime::Error e = executor.bind_input(index, bytes.data(), bytes.size());
      e != runtime::Error::kOk) {
    throw InputError("input " + std::to_string(index) + ": " + runtime::to_string(e));
  }
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
      if (executor.input(i).type == runtime::DataType::kFloat32 || input_takes_float(i)) {
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
    for (size_t i = 0; i < bytes_in.size(); ++i) set_input(i, bytes_in[i]);
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

std::vector<std::vector<uint8_t>> HostProgram::default_inputs(uint32_t seed) const {
  DefaultInput generator(seed);
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 0; i < executor_->num_inputs(); ++i) {
    inputs.emplace_back(input_size(i));
    if (executor_->input(i).type == runtime::DataType::kFloat32 || input_takes_float(i)) {
      generator.fill_float(inputs.back());
    } else {
      generator.fill(inputs.back());
    }
  }
  return inputs;
}

std::vector<HostProgram::Layer> HostProgram::run_layers(
    const std::vector<std::vector<uint8_t>>& inputs) {
  runtime::Executor& executor = *executor_;
  if (inputs.size() != executor.num_inputs()) {
    throw InputError("the program has " + std::to_string(executor.num_inputs()) + " input(s), " +
                     std::to_string(inputs.size()) + " given");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].size() != input_size(i)) {
      throw InputError(std::to_string(inputs[i].size()) + " bytes, input " + std::to_string(i) +
                       " needs exactly " + std::to_string(input_size(i)));
    }
    set_input(i, inputs[i]);
  }
  executor.reset_state();
  const schema::Program& root = *executor.program().root();
  std::vector<Layer> layers;
  for (size_t i = 0; i < executor.num_operators(); ++i) {
    if (const runtime::Error e = executor.run_operator(i); e != runtime::Error::kOk) {
      throw InputError("operator " + std::to_string(i) + ": run failed: " + runtime::to_string(e));
    }
    Layer layer;
    layer.op = executor.program().operator_name(i);
    const auto* outputs = root.operators()->Get(static_cast<flatbuffers::uoffset_t>(i))->outputs();
    for (flatbuffers::uoffset_t k = 0; k < outputs->size(); ++k) {
      const schema::Tensor& t =
          *root.tensors()->Get(static_cast<flatbuffers::uoffset_t>(outputs->Get(k)));
      if (t.location() != schema::Location::Arena) continue;  // as the firmware runner skips them
      if (layer.bytes.empty()) layer.type = static_cast<runtime::DataType>(t.type());
      layer.bytes.insert(layer.bytes.end(), arena_.data() + t.offset(),
                         arena_.data() + t.offset() + t.size());
    }
    layers.push_back(std::move(layer));
  }
  return layers;
}

HostRun run_on_host(std::span<const uint8_t> program,
                    const std::vector<std::vector<uint8_t>>& inputs, int repeat) {
  return HostProgram(program).run(inputs, repeat);
}

}  // namespace mote::pipeline
