#pragma once
// A thin helper over schema::ProgramT for code that writes programs (the compile pipeline's last
// step, tests): adds tensors, constants (16-byte aligned), operators and the plan, derives
// lifetimes, and emits through emit_program().

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compiler/emit/emit.h"
#include "mote/schema/mote_generated.h"

namespace mote::emit {

class ProgramBuilder {
 public:
  ProgramBuilder(std::string cpu, schema::Extension extension);

  /// An arena tensor at `offset`; size comes from shape and type. Lifetime [0, 0] until set or
  /// derived. Returns its index.
  int32_t add_arena_tensor(std::string name, schema::DataType type, std::vector<int32_t> shape,
                           uint32_t offset, float scale = 0.0f, int32_t zero_point = 0);
  /// A constant tensor whose bytes are appended to the constant blob. Returns its index.
  int32_t add_constant_tensor(std::string name, schema::DataType type, std::vector<int32_t> shape,
                              std::span<const uint8_t> bytes, float scale = 0.0f,
                              int32_t zero_point = 0);
  template <typename T>
  int32_t add_constant_tensor(std::string name, schema::DataType type, std::vector<int32_t> shape,
                              const std::vector<T>& values, float scale = 0.0f,
                              int32_t zero_point = 0) {
    const auto* p = reinterpret_cast<const uint8_t*>(values.data());
    return add_constant_tensor(std::move(name), type, std::move(shape),
                               std::span<const uint8_t>(p, values.size() * sizeof(T)), scale,
                               zero_point);
  }
  /// An int32 array (multipliers, shifts, kernel sums) in the constant blob.
  schema::Region add_constant_array(std::span<const int32_t> values) {
    return constants_.add_array(values);
  }
  schema::Region add_constant_bytes(std::span<const uint8_t> bytes) {
    return constants_.add_array(bytes);
  }

  /// An operator at the next step. `options` may be empty (a default OpOptionsUnion).
  int32_t add_operator(schema::OpKind kind, std::vector<int32_t> inputs,
                       std::vector<int32_t> outputs, schema::OpOptionsUnion options = {},
                       std::optional<schema::Region> scratch = std::nullopt);

  void set_graph_io(std::vector<int32_t> inputs, std::vector<int32_t> outputs);
  void set_arena(uint32_t size, uint32_t alignment = 16);
  void set_plan(std::string algorithm, uint32_t lower_bound, uint32_t activation_bytes,
                uint32_t scratch_bytes, bool optimal);

  /// Sets every arena tensor's lifetime from the operators: graph inputs from step 0, outputs to
  /// the last step, others from their producer to their last consumer.
  void derive_lifetimes();

  schema::ProgramT& program() { return program_; }
  schema::TensorT& tensor(int32_t index) { return *program_.tensors.at(index); }
  schema::OperatorT& op(int32_t index) { return *program_.operators.at(index); }

  /// The ProgramT with the constant blob in place (the builder is left without constants).
  schema::ProgramT take_program();
  /// emit_program(take_program()).
  std::vector<uint8_t> finish() { return emit_program(take_program()); }

 private:
  schema::ProgramT program_;
  ConstantPool constants_;
};

}  // namespace mote::emit
