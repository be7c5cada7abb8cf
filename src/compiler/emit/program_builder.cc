#include "compiler/emit/program_builder.h"

#include <algorithm>
#include <stdexcept>

namespace mote::emit {
namespace {

size_t element_size(schema::DataType type) {
  switch (type) {
    case schema::DataType::Float32: return 4;
    case schema::DataType::Int8: return 1;
    case schema::DataType::Int16: return 2;
    case schema::DataType::Int32: return 4;
    case schema::DataType::Int64: return 8;
    case schema::DataType::UInt8: return 1;
    case schema::DataType::Bool: return 1;
    case schema::DataType::Int4: return 1;  // two elements a byte: byte_size halves the count
    case schema::DataType::UInt32: return 4;
    case schema::DataType::UInt64: return 8;
  }
  throw std::invalid_argument("unknown data type");
}

uint32_t byte_size(schema::DataType type, const std::vector<int32_t>& shape) {
  uint64_t n = element_size(type);
  for (const int32_t d : shape) n *= static_cast<uint64_t>(d < 0 ? 0 : d);
  if (type == schema::DataType::Int4) n = (n + 1) / 2;
  if (n > UINT32_MAX) throw std::invalid_argument("tensor larger than 4 GiB");
  return static_cast<uint32_t>(n);
}

}  // namespace

ProgramBuilder::ProgramBuilder(std::string cpu, schema::Extension extension) {
  program_.target = std::make_unique<schema::TargetT>();
  program_.target->cpu = std::move(cpu);
  program_.target->extension = extension;
  program_.plan = std::make_unique<schema::PlanStatsT>();
}

int32_t ProgramBuilder::add_arena_tensor(std::string name, schema::DataType type,
                                         std::vector<int32_t> shape, uint32_t offset, float scale,
                                         int32_t zero_point) {
  auto t = std::make_unique<schema::TensorT>();
  t->name = std::move(name);
  t->type = type;
  t->size = byte_size(type, shape);
  t->shape = std::move(shape);
  t->scale = scale;
  t->zero_point = zero_point;
  t->location = schema::Location::Arena;
  t->offset = offset;
  program_.tensors.push_back(std::move(t));
  return static_cast<int32_t>(program_.tensors.size() - 1);
}

int32_t ProgramBuilder::add_constant_tensor(std::string name, schema::DataType type,
                                            std::vector<int32_t> shape,
                                            std::span<const uint8_t> bytes, float scale,
                                            int32_t zero_point) {
  auto t = std::make_unique<schema::TensorT>();
  t->name = std::move(name);
  t->type = type;
  t->size = byte_size(type, shape);
  if (t->size != bytes.size()) {
    throw std::invalid_argument("constant " + t->name + ": bytes differ from shape and type");
  }
  t->shape = std::move(shape);
  t->scale = scale;
  t->zero_point = zero_point;
  t->location = schema::Location::Constant;
  t->offset = constants_.add(bytes);
  program_.tensors.push_back(std::move(t));
  return static_cast<int32_t>(program_.tensors.size() - 1);
}

int32_t ProgramBuilder::add_operator(schema::OpKind kind, std::vector<int32_t> inputs,
                                     std::vector<int32_t> outputs, schema::OpOptionsUnion options,
                                     std::optional<schema::Region> scratch) {
  auto op = std::make_unique<schema::OperatorT>();
  op->kind = kind;
  op->inputs = std::move(inputs);
  op->outputs = std::move(outputs);
  op->options = std::move(options);
  if (scratch) op->scratch = std::make_unique<schema::Region>(*scratch);
  program_.operators.push_back(std::move(op));
  return static_cast<int32_t>(program_.operators.size() - 1);
}

void ProgramBuilder::set_graph_io(std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
  program_.inputs = std::move(inputs);
  program_.outputs = std::move(outputs);
}

void ProgramBuilder::set_arena(uint32_t size, uint32_t alignment) {
  program_.arena_size = size;
  program_.arena_alignment = alignment;
}

void ProgramBuilder::set_plan(std::string algorithm, uint32_t lower_bound,
                              uint32_t activation_bytes, uint32_t scratch_bytes, bool optimal) {
  program_.plan->algorithm = std::move(algorithm);
  program_.plan->lower_bound = lower_bound;
  program_.plan->activation_bytes = activation_bytes;
  program_.plan->scratch_bytes = scratch_bytes;
  program_.plan->optimal = optimal;
}

void ProgramBuilder::derive_lifetimes() {
  constexpr uint32_t kUnset = UINT32_MAX;
  const uint32_t steps = static_cast<uint32_t>(program_.operators.size());
  const uint32_t last = steps == 0 ? 0 : steps - 1;
  std::vector<uint32_t> first(program_.tensors.size(), kUnset);
  std::vector<uint32_t> end(program_.tensors.size(), 0);
  auto use = [&](int32_t t, uint32_t step) {
    if (t < 0 || static_cast<size_t>(t) >= first.size()) return;
    first[t] = std::min(first[t], step);
    end[t] = std::max(end[t], step);
  };
  for (uint32_t i = 0; i < steps; ++i) {
    for (const int32_t t : program_.operators[i]->inputs) use(t, i);
    for (const int32_t t : program_.operators[i]->outputs) use(t, i);
  }
  for (const int32_t t : program_.inputs) use(t, 0);
  for (const int32_t t : program_.outputs) use(t, last);
  for (size_t t = 0; t < program_.tensors.size(); ++t) {
    auto& tensor = *program_.tensors[t];
    if (tensor.location != schema::Location::Arena) continue;
    tensor.first_step = first[t] == kUnset ? 0 : first[t];
    tensor.last_step = first[t] == kUnset ? 0 : end[t];
  }
}

schema::ProgramT ProgramBuilder::take_program() {
  program_.constants = constants_.take();
  schema::ProgramT result = std::move(program_);
  program_ = schema::ProgramT();
  return result;
}

}  // namespace mote::emit
