// Executor: binds an arena to a verified program and runs its operators in order.

#include "mote/runtime/executor.h"

#include <stdint.h>
#include <string.h>

#include "mote/kernels/quantize.h"
#include "mote/runtime/decimal.h"
#include "runtime/internal.h"
#include "runtime/ops/op_forms.h"
#include "runtime/stages.h"

namespace mote {
namespace runtime {
namespace {

// Whether `tensor` is the output of a RESHAPE, SQUEEZE or EXPAND_DIMS: an alias whose bytes its
// operator leaves as they are.
bool made_by_reshape(const schema::Program& p, int32_t tensor) {
  for (const schema::Operator* op : *p.operators()) {
    if (op->outputs()->size() != 1 || op->outputs()->Get(0) != tensor) continue;
    const schema::OpKind kind = op->kind();
    return kind == schema::OpKind::Reshape || kind == schema::OpKind::Squeeze ||
           kind == schema::OpKind::ExpandDims;
  }
  return false;
}

}  // namespace

Result<Executor> Executor::create(const Program& program, uint8_t* arena, size_t arena_size) {
  if (arena == nullptr && program.arena_size() != 0) return Error::kInvalidArgument;
  if (arena_size < program.arena_size()) return Error::kArenaTooSmall;
  if (reinterpret_cast<uintptr_t>(arena) % program.arena_alignment() != 0) {
    return Error::kArenaMisaligned;
  }
  // Only the planned bytes are ever touched; the rest of a larger arena stays the caller's.
  Executor executor(program, arena);
  for (const schema::Operator* op : *program.root()->operators()) {
    executor.type_forms_ |= internal::type_forms(*program.root(), *op) != 0;
  }
  executor.reset_state();
  return executor;
}

void Executor::reset_state() {
  const auto& tensors = *program_.root()->tensors();
  for (flatbuffers::uoffset_t i = 0; i < tensors.size(); ++i) {
    const schema::Tensor& t = *tensors.Get(i);
    if (!t.state()) continue;
    // TFLite's ResetVariableTensor: int8 takes its zero point (a byte); the rest zero bytes.
    const uint8_t fill = t.type() == schema::DataType::Int8
                             ? static_cast<uint8_t>(static_cast<int8_t>(t.zero_point()))
                             : uint8_t{0};
    uint8_t* p = arena_ + t.offset();
    for (uint32_t k = 0; k < t.size(); ++k) p[k] = fill;
  }
}

TensorView Executor::view(int32_t tensor_index) const {
  const schema::Tensor& t =
      *program_.root()->tensors()->Get(static_cast<flatbuffers::uoffset_t>(tensor_index));
  // An external tensor is a graph input with a slot (Program::load checked); its bytes are the
  // caller's. Nothing writes them: the view is mutable only for the TensorView's sake.
  uint8_t* data =
      t.location() == schema::Location::External
          ? const_cast<uint8_t*>(external_[internal::external_slot(*program_.root(), tensor_index)])
          : arena_ + t.offset();
  return TensorView{data,
                    t.size(),
                    static_cast<DataType>(t.type()),
                    internal::shape_data(t),
                    internal::rank(t),
                    t.scale(),
                    t.zero_point()};
}

TensorView Executor::input(size_t index) const {
  if (index >= program_.num_inputs()) return TensorView{};
  return view(program_.root()->inputs()->Get(static_cast<flatbuffers::uoffset_t>(index)));
}

bool Executor::input_is_external(size_t index) const {
  if (index >= program_.num_inputs()) return false;
  const auto& p = *program_.root();
  const int32_t t = p.inputs()->Get(static_cast<flatbuffers::uoffset_t>(index));
  return p.tensors()->Get(static_cast<flatbuffers::uoffset_t>(t))->location() ==
         schema::Location::External;
}

Error Executor::bind_input(size_t index, const void* data, size_t bytes) {
  // An external input is one of the first kMaxExternalInputs (Program::load), its slot its index.
  if (!input_is_external(index) || data == nullptr) return Error::kInvalidArgument;
  const auto& p = *program_.root();
  const int32_t input = p.inputs()->Get(static_cast<flatbuffers::uoffset_t>(index));
  const schema::Tensor& t = *p.tensors()->Get(static_cast<flatbuffers::uoffset_t>(input));
  if (bytes != t.size()) return Error::kInvalidArgument;
  // Kernels load whole elements (a float32 input, int32 indices).
  if (reinterpret_cast<uintptr_t>(data) % internal::element_size(t.type()) != 0) {
    return Error::kInvalidArgument;
  }
  external_[index] = static_cast<const uint8_t*>(data);
  return Error::kOk;
}

Error Executor::write_input(size_t index, const float* values, size_t count, size_t first) {
  const TensorView in = input(index);
  if (in.data == nullptr || input_is_external(index) || (values == nullptr && count > 0)) {
    return Error::kInvalidArgument;
  }
  const size_t element = internal::element_size(static_cast<schema::DataType>(in.type));
  if (first > in.size / element || count > in.size / element - first) {
    return Error::kInvalidArgument;
  }
  // The QUANTIZE kernel with the tensor's quantization: a program that left the model's first
  // QUANTIZE out gets the very bytes that QUANTIZE would have written.
  const kernels::QuantizeParams q{in.scale, in.zero_point};
  switch (in.type) {
    case DataType::kFloat32:
      memcpy(in.data + first * sizeof(float), values, count * sizeof(float));
      return Error::kOk;
    case DataType::kInt8:
      if (!(in.scale > 0.0f)) return Error::kInvalidArgument;
      kernels::quantize(q, values, reinterpret_cast<int8_t*>(in.data) + first, count);
      return Error::kOk;
    case DataType::kInt16:
      if (!(in.scale > 0.0f)) return Error::kInvalidArgument;
      kernels::quantize(q, values, reinterpret_cast<int16_t*>(in.data) + first, count);
      return Error::kOk;
    default:
      return Error::kInvalidArgument;
  }
}

bool Executor::input_preserved(size_t index) const {
  if (index >= program_.num_inputs()) return false;
  if (input_is_external(index)) return true;
  const schema::Program& p = *program_.root();
  const auto& tensors = *p.tensors();
  const int32_t input = p.inputs()->Get(static_cast<flatbuffers::uoffset_t>(index));
  const schema::Tensor& in = *tensors.Get(static_cast<flatbuffers::uoffset_t>(input));
  const uint64_t begin = in.offset(), end = begin + in.size();
  auto shares = [&](uint64_t offset, uint64_t size) {
    return size != 0 && offset < end && begin < offset + size;
  };
  // Any other buffer on its bytes may write them, whenever it lives: a later tensor, an output
  // over it, an in-place alias. Only the reshapes of the input itself (aliases that share its
  // start and are never written) leave it intact, and those are judged by what shares theirs.
  for (flatbuffers::uoffset_t k = 0; k < tensors.size(); ++k) {
    const schema::Tensor& t = *tensors.Get(k);
    if (static_cast<int32_t>(k) == input || t.location() != schema::Location::Arena) continue;
    if (!shares(t.offset(), t.size())) continue;
    if (t.alias() == input && made_by_reshape(p, static_cast<int32_t>(k))) continue;
    return false;
  }
  for (const schema::Operator* op : *p.operators()) {
    if (op->scratch() != nullptr && shares(op->scratch()->offset(), op->scratch()->size())) {
      return false;
    }
  }
  return true;
}

TensorView Executor::output(size_t index) const {
  if (index >= program_.num_outputs()) return TensorView{};
  return view(program_.root()->outputs()->Get(static_cast<flatbuffers::uoffset_t>(index)));
}

bool Executor::inputs_bound() const {
  const size_t n = program_.num_inputs() < kMaxExternalInputs ? program_.num_inputs()
                                                              : kMaxExternalInputs;
  for (size_t i = 0; i < n; ++i) {
    if (external_[i] == nullptr && input_is_external(i)) return false;
  }
  return true;
}

Error Executor::run() {
  // Also for a program without operators: the caller learns of the missing binding at once.
  if (!inputs_bound()) return Error::kInputNotBound;
  internal::OpEnv env;
  fill_env(&env);
  const size_t n = num_operators();
  for (size_t i = 0; i < n; ++i) MOTE_TRY(run_bound(env, i));
  return Error::kOk;
}

Error Executor::run_operator(size_t index) {
  if (index >= num_operators()) return Error::kInvalidArgument;
  if (!inputs_bound()) return Error::kInputNotBound;
  internal::OpEnv env;
  fill_env(&env);
  return run_bound(env, index);
}

void Executor::fill_env(internal::OpEnv* env) const {
  *env = internal::OpEnv{program_.root(), arena_, program_.constants(), external_, type_forms_};
}

Error Executor::run_bound(const internal::OpEnv& env, size_t index) {
#if MOTE_DEBUG_CHECKS
  const schema::Program& p = *env.program;
  // Re-derive the kernel's scratch need with its own function: catches a compiler that
  // planned too little (or program bytes that changed after load).
  const schema::Operator& op = *p.operators()->Get(static_cast<flatbuffers::uoffset_t>(index));
  const size_t planned = op.scratch() != nullptr ? op.scratch()->size() : 0;
  if (planned < internal::required_scratch_bytes(p, op)) return Error::kScratchTooSmall;
#endif
  return internal::run_step(env, static_cast<uint32_t>(index));
}

MemoryStatus Executor::memory_status() const {
  const schema::PlanStats* plan = program_.root()->plan();
  MemoryStatus s{};
  s.program_size = program_.size();
  s.constant_data = program_.constants_size();
  s.arena_planned = program_.arena_size();
  s.activations = plan != nullptr ? plan->activation_bytes() : 0;
  s.scratch = plan != nullptr ? plan->scratch_bytes() : 0;
  s.lower_bound = plan != nullptr ? plan->lower_bound() : 0;
  s.state = plan != nullptr ? plan->state_bytes() : 0;
  for (size_t i = 0; i < program_.num_inputs(); ++i) {
    if (input_is_external(i)) s.inputs_outside += input(i).size;
  }
  s.runtime_state = sizeof(Program) + sizeof(Executor);
  s.temp_allocator = 0;
  return s;
}

namespace {

// Appends to a bounded buffer; remembers overflow instead of writing past the end.
class Writer {
 public:
  Writer(char* out, size_t capacity) : out_(out), capacity_(capacity) {}
  void text(const char* s) {
    while (*s != '\0') put(*s++);
  }
  void number(size_t v) {
    char digits[kMaxDecimalDigits];
    const size_t n = decimal_digits(v, digits);
    for (size_t i = 0; i < n; ++i) put(digits[i]);
  }
  size_t finish() {
    if (length_ >= capacity_) {  // no room for the terminator: a cut text, still terminated
      if (capacity_ != 0) out_[capacity_ - 1] = '\0';
      return 0;
    }
    out_[length_] = '\0';
    return length_;
  }

 private:
  void put(char c) {
    if (length_ < capacity_) out_[length_] = c;
    ++length_;
  }
  char* out_;
  size_t capacity_;
  size_t length_ = 0;
};

}  // namespace

size_t format_memory_status(const MemoryStatus& s, char* out, size_t capacity) {
  if (out == nullptr) return 0;
  Writer w(out, capacity);
  // Each figure after its label; the text after the last closes the report.
  const struct {
    const char* label;
    size_t value;
  } figures[] = {
      {"I mote: program_size: ", s.program_size},
      {" bytes\nI mote: constant_data: ", s.constant_data},
      {" bytes\nI mote: arena_planned: ", s.arena_planned},
      // The arena's parts, in parentheses on its line.
      {" bytes (activations ", s.activations}, {", scratch ", s.scratch},
      {", lower bound ", s.lower_bound}};
  for (const auto& f : figures) {
    w.text(f.label);
    w.number(f.value);
  }
  // A program with state says how much of the activations it is (most have none).
  if (s.state != 0) {
    w.text(", state ");
    w.number(s.state);
  }
  w.text(")\nI mote: runtime_state: ");
  w.number(s.runtime_state);
  w.text(" bytes\nI mote: temp_allocator: ");
  w.number(s.temp_allocator);
  w.text(" bytes\n");
  // Only a program that keeps inputs outside the arena has this line (the caller's buffers).
  if (s.inputs_outside != 0) {
    w.text("I mote: inputs_outside_arena: ");
    w.number(s.inputs_outside);
    w.text(" bytes (the caller's buffers)\n");
  }
  return w.finish();
}

size_t format_load_error(Error error, const LoadDiagnostic& d, char* out, size_t capacity) {
  if (out == nullptr) return 0;
  using Where = LoadDiagnostic::Where;
  static constexpr const char* kPlaces[] = {"", "tensor ", "operator ", "graph input ",
                                            "graph output "};
  Writer w(out, capacity);
  w.text(to_string(error));
  w.text(": ");
  if (d.program_cpu[0] != '\0') {
    w.text("a program for ");
    w.text(d.program_cpu);
    if (d.runtime_cpu[0] != '\0') {
      w.text(" on a runtime for ");
      w.text(d.runtime_cpu);
      w.text(" (");
      w.text(d.runtime_kernels);
      w.text(" kernels): ");
    } else {
      w.text(" on a runtime with ");
      w.text(d.runtime_kernels);
      w.text(" kernels: ");
    }
  }
  const size_t place = static_cast<size_t>(d.where);
  if (d.where != Where::kProgram && place < sizeof(kPlaces) / sizeof(kPlaces[0])) {
    w.text(kPlaces[place]);
    w.number(d.index);
    if (d.where == Where::kOperator && d.op_name[0] != '\0') {
      w.text(" (");
      w.text(d.op_name);
      w.text(")");
    }
    w.text(": ");
  }
  w.text(d.reason);
  if (d.program_cpu[0] != '\0' && d.runtime_cpu[0] != '\0') {
    w.text(" (mote compile <model> --target ");
    w.text(d.runtime_cpu);
    w.text(")");
  }
  return w.finish();
}

size_t format_create_error(Error error, const Program& program, const uint8_t* arena,
                           size_t arena_size, char* out, size_t capacity) {
  if (out == nullptr) return 0;
  Writer w(out, capacity);
  w.text(to_string(error));
  if (error == Error::kArenaTooSmall) {
    w.text(": the program needs ");
    w.number(program.arena_size());
    w.text(" bytes, the arena has ");
    w.number(arena_size);
  } else if (error == Error::kArenaMisaligned) {
    const size_t alignment = program.arena_alignment();
    w.text(": the program needs ");
    w.number(alignment);
    w.text("-byte alignment, the arena's address % ");
    w.number(alignment);
    w.text(" is ");
    w.number(reinterpret_cast<uintptr_t>(arena) % alignment);
  }
  return w.finish();
}

}  // namespace runtime
}  // namespace mote
