// The C API (mote/runtime/mote.h) over Program and Executor. The opaque C structs hold the C++
// handles themselves (both trivially copyable), so the C API adds no state and no copies.

#include "mote/runtime/mote.h"

#include <string.h>

#include <new>
#include <type_traits>

#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"

namespace mote {
namespace runtime {
namespace {

// The C structs are exactly the C++ handles: runtime_state (sizeof(Program) + sizeof(Executor))
// stays the RAM a C caller spends besides the arena.
static_assert(sizeof(mote_program) == sizeof(Program), "mote_program must hold a Program");
static_assert(sizeof(mote_executor) == sizeof(Executor), "mote_executor must hold an Executor");
static_assert(alignof(mote_program) >= alignof(Program), "mote_program alignment");
static_assert(alignof(mote_executor) >= alignof(Executor), "mote_executor alignment");

#define MOTE_SAME_VALUE(c, cpp) static_assert(static_cast<int>(c) == static_cast<int>(cpp), #c)
MOTE_SAME_VALUE(MOTE_OK, Error::kOk);
MOTE_SAME_VALUE(MOTE_INTERNAL, Error::kInternal);
MOTE_SAME_VALUE(MOTE_INVALID_PROGRAM, Error::kInvalidProgram);
MOTE_SAME_VALUE(MOTE_UNSUPPORTED_VERSION, Error::kUnsupportedVersion);
MOTE_SAME_VALUE(MOTE_PROGRAM_MISALIGNED, Error::kProgramMisaligned);
MOTE_SAME_VALUE(MOTE_INVALID_PLAN, Error::kInvalidPlan);
MOTE_SAME_VALUE(MOTE_CORRUPT_CONSTANTS, Error::kCorruptConstants);
MOTE_SAME_VALUE(MOTE_ARENA_TOO_SMALL, Error::kArenaTooSmall);
MOTE_SAME_VALUE(MOTE_ARENA_MISALIGNED, Error::kArenaMisaligned);
MOTE_SAME_VALUE(MOTE_SCRATCH_TOO_SMALL, Error::kScratchTooSmall);
MOTE_SAME_VALUE(MOTE_INPUT_NOT_BOUND, Error::kInputNotBound);
MOTE_SAME_VALUE(MOTE_INVALID_ARGUMENT, Error::kInvalidArgument);
MOTE_SAME_VALUE(MOTE_UNSUPPORTED, Error::kUnsupported);
MOTE_SAME_VALUE(MOTE_FLOAT32, DataType::kFloat32);
MOTE_SAME_VALUE(MOTE_INT8, DataType::kInt8);
MOTE_SAME_VALUE(MOTE_INT16, DataType::kInt16);
MOTE_SAME_VALUE(MOTE_INT32, DataType::kInt32);
MOTE_SAME_VALUE(MOTE_INT64, DataType::kInt64);
MOTE_SAME_VALUE(MOTE_UINT8, DataType::kUInt8);
MOTE_SAME_VALUE(MOTE_BOOL, DataType::kBool);
MOTE_SAME_VALUE(MOTE_INT4, DataType::kInt4);
MOTE_SAME_VALUE(MOTE_UINT32, DataType::kUInt32);
MOTE_SAME_VALUE(MOTE_UINT64, DataType::kUInt64);
MOTE_SAME_VALUE(MOTE_WHERE_PROGRAM, LoadDiagnostic::Where::kProgram);
MOTE_SAME_VALUE(MOTE_WHERE_TENSOR, LoadDiagnostic::Where::kTensor);
MOTE_SAME_VALUE(MOTE_WHERE_OPERATOR, LoadDiagnostic::Where::kOperator);
MOTE_SAME_VALUE(MOTE_WHERE_INPUT, LoadDiagnostic::Where::kInput);
MOTE_SAME_VALUE(MOTE_WHERE_OUTPUT, LoadDiagnostic::Where::kOutput);
#undef MOTE_SAME_VALUE

mote_status status(Error error) { return static_cast<mote_status>(error); }

// A struct that mote_load or mote_executor_init filled, or null: a failed (or zeroed) one holds
// a null program pointer, which every function below refuses.
const Program* program_of(const mote_program* p) {
  if (p == nullptr) return nullptr;
  const Program* program = std::launder(reinterpret_cast<const Program*>(p->opaque));
  return program->data() != nullptr ? program : nullptr;
}

Executor* executor_of(mote_executor* e) {
  if (e == nullptr) return nullptr;
  Executor* executor = std::launder(reinterpret_cast<Executor*>(e->opaque));
  return executor->program().data() != nullptr ? executor : nullptr;
}

const Executor* executor_of(const mote_executor* e) {
  return executor_of(const_cast<mote_executor*>(e));
}

void describe(const TensorView& v, mote_tensor* tensor) {
  tensor->data = v.data;
  tensor->size = v.size;
  tensor->type = static_cast<mote_type>(v.type);
  tensor->shape = v.shape;
  tensor->rank = v.rank;
  tensor->scale = v.scale;
  tensor->zero_point = v.zero_point;
}

mote_status view(const TensorView& v, mote_tensor* tensor) {
  if (v.data == nullptr) {
    memset(tensor, 0, sizeof(*tensor));
    return MOTE_INVALID_ARGUMENT;
  }
  describe(v, tensor);
  return MOTE_OK;
}

}  // namespace
}  // namespace runtime
}  // namespace mote

using mote::runtime::Error;
using mote::runtime::Executor;
using mote::runtime::Program;
using mote::runtime::Result;

extern "C" {

const char* mote_status_string(mote_status s) {
  // Read as its underlying integer: a C caller may pass any value, which C++ may not load as the
  // enum (UBSan's enum check).
  std::underlying_type_t<mote_status> raw;
  memcpy(&raw, &s, sizeof raw);
  const int64_t value = static_cast<int64_t>(raw);
  if (value < 0 || value > 0xff) return "unknown error";
  return mote::runtime::to_string(static_cast<Error>(value));
}

mote_status mote_load(mote_program* program, const uint8_t* data, size_t size,
                      mote_diagnostic* diagnostic) {
  if (program == nullptr) return MOTE_INVALID_ARGUMENT;
  memset(program, 0, sizeof(*program));
  mote::runtime::LoadDiagnostic d;
  const Result<Program> loaded = Program::load(data, size, &d);
  if (diagnostic != nullptr) {
    diagnostic->where = static_cast<mote_where>(d.where);
    diagnostic->index = d.index;
    diagnostic->reason = d.reason;
    diagnostic->op_name = d.op_name;
    diagnostic->program_cpu = d.program_cpu;
    diagnostic->runtime_kernels = d.runtime_kernels;
    diagnostic->runtime_cpu = d.runtime_cpu;
  }
  if (!loaded.ok()) return mote::runtime::status(loaded.error());
  new (program->opaque) Program(*loaded);
  return MOTE_OK;
}

size_t mote_arena_bytes(const mote_program* program) {
  const Program* p = mote::runtime::program_of(program);
  return p != nullptr ? p->arena_size() : 0;
}

size_t mote_arena_align(const mote_program* program) {
  const Program* p = mote::runtime::program_of(program);
  return p != nullptr ? p->arena_alignment() : 0;
}

const char* mote_target_cpu(const mote_program* program) {
  const Program* p = mote::runtime::program_of(program);
  return p != nullptr ? p->target_cpu() : "";
}

mote_status mote_executor_init(mote_executor* executor, const mote_program* program,
                               uint8_t* arena, size_t arena_size) {
  if (executor == nullptr) return MOTE_INVALID_ARGUMENT;
  memset(executor, 0, sizeof(*executor));
  const Program* p = mote::runtime::program_of(program);
  if (p == nullptr) return MOTE_INVALID_ARGUMENT;
  const Result<Executor> created = Executor::create(*p, arena, arena_size);
  if (!created.ok()) return mote::runtime::status(created.error());
  new (executor->opaque) Executor(*created);
  return MOTE_OK;
}

size_t mote_num_inputs(const mote_executor* executor) {
  const Executor* e = mote::runtime::executor_of(executor);
  return e != nullptr ? e->num_inputs() : 0;
}

size_t mote_num_outputs(const mote_executor* executor) {
  const Executor* e = mote::runtime::executor_of(executor);
  return e != nullptr ? e->num_outputs() : 0;
}

size_t mote_num_operators(const mote_executor* executor) {
  const Executor* e = mote::runtime::executor_of(executor);
  return e != nullptr ? e->num_operators() : 0;
}

mote_status mote_input(const mote_executor* executor, size_t index, mote_tensor* tensor) {
  if (tensor == nullptr) return MOTE_INVALID_ARGUMENT;
  const Executor* e = mote::runtime::executor_of(executor);
  if (e != nullptr && e->input_is_external(index) && e->input(index).data == nullptr) {
    mote::runtime::describe(e->input(index), tensor);  // to size the buffer to bind
    return MOTE_INPUT_NOT_BOUND;
  }
  return mote::runtime::view(e != nullptr ? e->input(index) : mote::runtime::TensorView{}, tensor);
}

int mote_input_preserved(const mote_executor* executor, size_t index) {
  const Executor* e = mote::runtime::executor_of(executor);
  return e != nullptr && e->input_preserved(index) ? 1 : 0;
}

int mote_input_is_external(const mote_executor* executor, size_t index) {
  const Executor* e = mote::runtime::executor_of(executor);
  return e != nullptr && e->input_is_external(index) ? 1 : 0;
}

mote_status mote_bind_input(mote_executor* executor, size_t index, const void* data,
                            size_t bytes) {
  Executor* e = mote::runtime::executor_of(executor);
  return e != nullptr ? mote::runtime::status(e->bind_input(index, data, bytes))
                      : MOTE_INVALID_ARGUMENT;
}

int mote_input_takes_float(const mote_executor* executor, size_t index) {
  const Executor* e = mote::runtime::executor_of(executor);
  return e != nullptr && e->input_takes_float(index) ? 1 : 0;
}

mote_status mote_write_input_float(mote_executor* executor, size_t index, const float* values,
                                   size_t count, size_t first) {
  Executor* e = mote::runtime::executor_of(executor);
  return e != nullptr ? mote::runtime::status(e->write_input(index, values, count, first))
                      : MOTE_INVALID_ARGUMENT;
}

mote_status mote_output(const mote_executor* executor, size_t index, mote_tensor* tensor) {
  if (tensor == nullptr) return MOTE_INVALID_ARGUMENT;
  const Executor* e = mote::runtime::executor_of(executor);
  return mote::runtime::view(e != nullptr ? e->output(index) : mote::runtime::TensorView{},
                             tensor);
}

mote_status mote_run(mote_executor* executor) {
  Executor* e = mote::runtime::executor_of(executor);
  return e != nullptr ? mote::runtime::status(e->run()) : MOTE_INVALID_ARGUMENT;
}

mote_status mote_reset_state(mote_executor* executor) {
  Executor* e = mote::runtime::executor_of(executor);
  if (e == nullptr) return MOTE_INVALID_ARGUMENT;
  e->reset_state();
  return MOTE_OK;
}

mote_status mote_run_operator(mote_executor* executor, size_t index) {
  Executor* e = mote::runtime::executor_of(executor);
  return e != nullptr ? mote::runtime::status(e->run_operator(index)) : MOTE_INVALID_ARGUMENT;
}

const char* mote_operator_name(const mote_executor* executor, size_t index) {
  const Executor* e = mote::runtime::executor_of(executor);
  return e != nullptr ? e->program().operator_name(index) : "";
}

mote_status mote_get_memory_status(const mote_executor* executor, mote_memory_status* status) {
  const Executor* e = mote::runtime::executor_of(executor);
  if (e == nullptr || status == nullptr) return MOTE_INVALID_ARGUMENT;
  const mote::runtime::MemoryStatus s = e->memory_status();
  status->program_size = s.program_size;
  status->constant_data = s.constant_data;
  status->arena_planned = s.arena_planned;
  status->activations = s.activations;
  status->scratch = s.scratch;
  status->lower_bound = s.lower_bound;
  status->runtime_state = s.runtime_state;
  status->temp_allocator = s.temp_allocator;
  status->state = s.state;
  status->inputs_outside = s.inputs_outside;
  return MOTE_OK;
}

size_t mote_format_memory_status(const mote_memory_status* status, char* out, size_t capacity) {
  if (status == nullptr || out == nullptr) return 0;
  mote::runtime::MemoryStatus s{};
  s.program_size = status->program_size;
  s.constant_data = status->constant_data;
  s.arena_planned = status->arena_planned;
  s.activations = status->activations;
  s.scratch = status->scratch;
  s.lower_bound = status->lower_bound;
  s.runtime_state = status->runtime_state;
  s.temp_allocator = status->temp_allocator;
  s.state = status->state;
  s.inputs_outside = status->inputs_outside;
  return mote::runtime::format_memory_status(s, out, capacity);
}

}  // extern "C"
