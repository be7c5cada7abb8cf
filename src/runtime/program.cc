// The load's check (internal::check_program, which Program::load calls: program_load.cc): the
// FlatBuffers verifier, then every semantic rule of the format. Nothing is copied: a loaded
// Program is the verified bytes. The memory plan is checked in plan_check.cc.

#include "mote/runtime/program.h"

#include <float.h>
#include <stdint.h>

#include "mote/kernels/scratch.h"
#include "mote/runtime/crc32.h"
#include "runtime/internal.h"
#include "runtime/plan_check.h"
#include "runtime/stages.h"
#include "runtime/ops/registry.h"

static_assert(mote::runtime::kMaxTensors == 16384 && mote::runtime::kMaxOperators == 16384,
              "the load messages name the limits");

namespace mote {
namespace runtime {
namespace {

using internal::element_size;
using internal::fail;
using schema::Location;

static_assert(static_cast<int>(DataType::kBool) == static_cast<int>(schema::DataType::Bool), "");
static_assert(static_cast<int>(DataType::kInt4) == static_cast<int>(schema::DataType::Int4), "");
static_assert(static_cast<int>(DataType::kUInt8) == static_cast<int>(schema::DataType::UInt8), "");
static_assert(static_cast<int>(DataType::kUInt64) == static_cast<int>(schema::DataType::UInt64), "");
static_assert(static_cast<int>(Extension::kMve) == static_cast<int>(schema::Extension::Mve), "");

constexpr uint32_t kConstantAlignment = 16;
// FlatBuffers' own limit on a buffer; every offset inside fits an int32.
constexpr size_t kMaxProgramSize = 0x7FFFFFFF;
constexpr uint32_t kMaxArenaAlignment = 4096;
// Kernels index tensors with int32 (the compiler's IR has the same limit).
constexpr uint64_t kMaxTensorBytes = 0x7FFFFFFF;

// The extension whose kernels this runtime was built with (kScalar: the portable ones alone,
// which run a program planned for any extension, as the host does).
kernels::Extension built_extension() {
  if (kernels::variant_built(kernels::Variant::kMve)) return kernels::Extension::kMve;
  if (kernels::variant_built(kernels::Variant::kDsp)) return kernels::Extension::kDsp;
  return kernels::Extension::kScalar;
}

// A program planned for another extension's kernels runs where this runtime's kernels fit its
// plan (the checks below make sure); where one does not, the refusal names both sides and the fix
// instead of the check that caught it. (A runtime of the portable kernels alone, the host's,
// never names them: it runs plans for every extension.)
void name_other_target(const schema::Program& program, LoadDiagnostic* diagnostic) {
  if (diagnostic == nullptr || program.target() == nullptr) return;
  const kernels::Extension built = built_extension();
  const auto planned = static_cast<kernels::Extension>(program.target()->extension());
  if (built == kernels::Extension::kScalar || planned == built) return;
  diagnostic->reason =
      "the program was compiled for another CPU's kernels: compile the model again with "
      "--target set to this CPU";
  diagnostic->program_cpu =
      program.target()->cpu() != nullptr ? program.target()->cpu()->c_str() : "";
  diagnostic->runtime_kernels = kernels::to_string(built);
#ifdef MOTE_RUNTIME_CPU
  diagnostic->runtime_cpu = MOTE_RUNTIME_CPU;
#endif
}

class Loader {
 public:
  Loader(const schema::Program& p, LoadDiagnostic* diagnostic, uint32_t* workspace,
         size_t workspace_words)
      : p_(p), diagnostic_(diagnostic), workspace_(workspace), workspace_words_(workspace_words) {}

  Error run(const uint8_t* data) {
    MOTE_TRY(check_header(data));
    MOTE_TRY(check_constants_crc());
    MOTE_TRY(check_tensors());
    MOTE_TRY(check_graph_io());
    MOTE_TRY(check_operators());
    MOTE_TRY(check_stages());
    MOTE_TRY(check_plan());
    return Error::kOk;
  }

 private:
  using Where = LoadDiagnostic::Where;

  Error program_error(const char* reason, Error error = Error::kInvalidProgram) {
    return fail(diagnostic_, error, Where::kProgram, 0, reason);
  }
  Error tensor_error(uint32_t i, const char* reason, Error error = Error::kInvalidProgram) {
    return fail(diagnostic_, error, Where::kTensor, i, reason);
  }

  Error check_header(const uint8_t* data) {
    if (p_.version() != kFormatVersion) {
      return program_error("format version differs from the runtime's", Error::kUnsupportedVersion);
    }
    if (p_.target() == nullptr) return program_error("no target");
    const auto extension = static_cast<uint8_t>(p_.target()->extension());
    if (extension > static_cast<uint8_t>(schema::Extension::MAX)) {
      return program_error("unknown target extension");
    }
    const uint32_t alignment = p_.arena_alignment();
    if (alignment < kConstantAlignment || alignment > kMaxArenaAlignment ||
        (alignment & (alignment - 1)) != 0) {
      return program_error("arena alignment must be a power of two in [16, 4096]");
    }
    if (p_.tensors() == nullptr || p_.operators() == nullptr || p_.inputs() == nullptr ||
        p_.outputs() == nullptr) {
      return program_error("missing tensors, operators, inputs or outputs");
    }
    if (p_.tensors()->size() > kMaxTensors) {
      return program_error("more than 16384 tensors (kMaxTensors)", Error::kUnsupported);
    }
    if (p_.operators()->size() > kMaxOperators) {
      return program_error("more than 16384 operators (kMaxOperators)", Error::kUnsupported);
    }
    if (p_.constants() != nullptr) {
      constants_ = p_.constants()->data();
      constants_size_ = p_.constants()->size();
      if (static_cast<size_t>(constants_ - data) % kConstantAlignment != 0) {
        return program_error("constant blob not 16-byte aligned");
      }
    }
    return Error::kOk;
  }

  // A program compiled with --checksum carries the CRC-32 of its constants: flipped bits in
  // flash (or a damaged download) are refused here instead of running with wrong weights.
  Error check_constants_crc() {
    const flatbuffers::Optional<uint32_t> expected = p_.constants_crc32();
    if (!expected.has_value()) return Error::kOk;
    if (crc32(constants_, constants_size_) != *expected) {
      return program_error("constants differ from their CRC-32 (corrupted weights: flash the "
                           "program again)", Error::kCorruptConstants);
    }
    return Error::kOk;
  }

  Error check_tensors() {
    const uint32_t num_tensors = p_.tensors()->size();
    const uint32_t num_ops = p_.operators()->size();
    for (uint32_t i = 0; i < num_tensors; ++i) {
      const schema::Tensor& t = *p_.tensors()->Get(i);
      const size_t elem = element_size(t.type());
      if (elem == 0) return tensor_error(i, "unknown data type");
      const size_t r = internal::rank(t);
      if (r > kMaxRank) return tensor_error(i, "rank above 6", Error::kUnsupported);
      uint64_t count = 1;
      for (size_t d = 0; d < r; ++d) {
        const int32_t n = internal::dim(t, d);
        if (n <= 0) return tensor_error(i, "dimension not positive");
        count *= static_cast<uint64_t>(n);
        if (count > 0xFFFFFFFFu) return tensor_error(i, "element count overflows");
      }
      if (t.ring_rows() != 0) {
        // A ring of rows inside a row-streamed stage (check_stages says whose).
        if (r != 4 || internal::dim(t, 0) != 1 || t.ring_rows() > uint32_t(internal::dim(t, 1)) ||
            t.location() != Location::Arena) {
          return tensor_error(i, "ring of rows not of a [1, H, W, C] arena tensor");
        }
        count = count / static_cast<uint64_t>(internal::dim(t, 1)) * t.ring_rows();
      }
      if (internal::storage_bytes(t.type(), count) != t.size()) {
        return tensor_error(i, "size differs from shape and type");
      }
      if (t.type() == schema::DataType::Int4) {
        if (t.location() != Location::Constant) {
          return tensor_error(i, "int4 tensor not a constant (packed weights only)");
        }
        has_int4_ = true;
      }
      if (t.size() > kMaxTensorBytes) return tensor_error(i, "larger than 2^31 - 1 bytes");
      // A NaN fails both comparisons.
      if (!(t.scale() >= 0.0f && t.scale() <= FLT_MAX)) {
        return tensor_error(i, "scale not finite and non-negative");
      }
      const uint64_t end = uint64_t{t.offset()} + t.size();
      switch (t.location()) {
        case Location::Arena:
          if (end > p_.arena_size()) return tensor_error(i, "outside the arena");
          if (t.offset() % elem != 0) return tensor_error(i, "arena offset misaligned");
          if (t.first_step() > t.last_step() ||
              (num_ops > 0 && t.last_step() >= num_ops) || (num_ops == 0 && t.last_step() != 0)) {
            return tensor_error(i, "lifetime outside the operator steps");
          }
          break;
        case Location::Constant:
          if (end > constants_size_) return tensor_error(i, "outside the constant blob");
          if (t.offset() % kConstantAlignment != 0) {
            return tensor_error(i, "constant offset not 16-byte aligned");
          }
          if (t.alias() != -1) return tensor_error(i, "constant tensor with an alias");
          break;
        case Location::External:
          // The caller's buffer: nothing to place, so nothing may vary (check_graph_io says
          // whether it is a graph input).
          if (t.offset() != 0 || t.first_step() != 0 || t.last_step() != 0) {
            return tensor_error(i, "external tensor with an offset or steps");
          }
          if (t.alias() != -1) return tensor_error(i, "external tensor with an alias");
          break;
        default:
          return tensor_error(i, "unknown location");
      }
      if (t.state()) {
        // State persists between runs: live at every step, so no other buffer may share its
        // bytes (the plan check below), and nothing aliases it.
        const uint32_t last = num_ops > 0 ? num_ops - 1 : 0;
        if (t.location() != Location::Arena) return tensor_error(i, "state not in the arena");
        if (t.first_step() != 0 || t.last_step() != last) {
          return tensor_error(i, "state not live at every step", Error::kInvalidPlan);
        }
        if (t.alias() != -1) return tensor_error(i, "state with an alias");
      }
      if (t.alias() != -1) {
        const int32_t a = t.alias();
        if (a < 0 || static_cast<uint32_t>(a) >= num_tensors || static_cast<uint32_t>(a) == i) {
          return tensor_error(i, "alias index out of range");
        }
        const schema::Tensor& target = *p_.tensors()->Get(static_cast<uint32_t>(a));
        if (target.location() != Location::Arena || target.alias() != -1) {
          return tensor_error(i, "alias target must be an arena tensor without an alias");
        }
        if (target.state()) return tensor_error(i, "alias of a state");
        // Aliases share a start (reshape, in-place operators); nothing else is exempt from the
        // plan check.
        if (target.offset() != t.offset()) return tensor_error(i, "alias at another offset");
      }
    }
    return Error::kOk;
  }

  Error check_graph_io() {
    const uint32_t num_tensors = p_.tensors()->size();
    const uint32_t num_ops = p_.operators()->size();
    const uint32_t last_step = num_ops > 0 ? num_ops - 1 : 0;
    for (uint32_t i = 0; i < p_.inputs()->size(); ++i) {
      const int32_t t = p_.inputs()->Get(i);
      if (t < 0 || static_cast<uint32_t>(t) >= num_tensors) {
        return fail(diagnostic_, Error::kInvalidProgram, Where::kInput, i, "index out of range");
      }
      const schema::Tensor& tensor = *p_.tensors()->Get(static_cast<uint32_t>(t));
      if (tensor.location() == Location::External) {
        MOTE_TRY(check_external_input(i));
        continue;
      }
      if (tensor.location() != Location::Arena || tensor.first_step() != 0) {
        return fail(diagnostic_, Error::kInvalidProgram, Where::kInput, i,
                    "graph input must be an arena tensor live from step 0");
      }
      if (tensor.state()) {
        return fail(diagnostic_, Error::kInvalidProgram, Where::kInput, i, "graph input is a state");
      }
    }
    // An input written as floats is quantized into it: an int8 or int16 tensor with a scale.
    if (const auto* marks = p_.float_inputs(); marks != nullptr) {
      if (marks->size() > p_.inputs()->size()) {
        return program_error("float_inputs lists more inputs than the program has");
      }
      for (uint32_t i = 0; i < marks->size(); ++i) {
        if (marks->Get(i) == 0) continue;
        const schema::Tensor& tensor =
            *p_.tensors()->Get(static_cast<uint32_t>(p_.inputs()->Get(i)));
        const bool int16 = tensor.type() == schema::DataType::Int16;
        if ((tensor.type() != schema::DataType::Int8 && !int16) || !(tensor.scale() > 0.0f) ||
            tensor.location() != Location::Arena ||
            tensor.zero_point() < (int16 ? -32768 : -128) ||
            tensor.zero_point() > (int16 ? 32767 : 127)) {
          return fail(diagnostic_, Error::kInvalidProgram, Where::kInput, i,
                      "an input written as floats must be an int8 or int16 arena tensor with a "
                      "scale and a zero point in range");
        }
      }
    }
    for (uint32_t i = 0; i < p_.outputs()->size(); ++i) {
      const int32_t t = p_.outputs()->Get(i);
      if (t < 0 || static_cast<uint32_t>(t) >= num_tensors) {
        return fail(diagnostic_, Error::kInvalidProgram, Where::kOutput, i, "index out of range");
      }
      const schema::Tensor& tensor = *p_.tensors()->Get(static_cast<uint32_t>(t));
      if (tensor.location() != Location::Arena || tensor.last_step() != last_step) {
        return fail(diagnostic_, Error::kInvalidProgram, Where::kOutput, i,
                    "graph output must be an arena tensor live to the last step");
      }
      if (tensor.state()) {
        return fail(diagnostic_, Error::kInvalidProgram, Where::kOutput, i,
                    "graph output is a state");
      }
    }
    // An external tensor is the caller's buffer for a graph input; any other (an intermediate,
    // an output) would have no bytes at all. Outputs are refused above and by check_operators.
    for (uint32_t t = 0; t < num_tensors; ++t) {
      if (p_.tensors()->Get(t)->location() == Location::External && external_slot(t) < 0) {
        return tensor_error(t, "external tensor that is not one of the first 4 graph inputs");
      }
    }
    return Error::kOk;
  }

  // Graph input `i` is external: the Executor keeps a pointer per slot (one of the first
  // kMaxExternalInputs inputs), and one tensor listed twice would need two.
  Error check_external_input(uint32_t i) {
    if (i >= kMaxExternalInputs) {
      return fail(diagnostic_, Error::kUnsupported, Where::kInput, i,
                  "external graph input beyond the first 4 (kMaxExternalInputs)");
    }
    for (uint32_t k = 0; k < i; ++k) {
      if (p_.inputs()->Get(k) == p_.inputs()->Get(i)) {
        return fail(diagnostic_, Error::kInvalidProgram, Where::kInput, i,
                    "external graph input listed twice");
      }
    }
    return Error::kOk;
  }

  int32_t external_slot(uint32_t tensor) const {
    return internal::external_slot(p_, static_cast<int32_t>(tensor));
  }

  Error check_operators() {
    const uint32_t num_tensors = p_.tensors()->size();
    for (uint32_t i = 0; i < p_.operators()->size(); ++i) {
      const schema::Operator& op = *p_.operators()->Get(i);
      auto op_error = [&](const char* reason, Error error = Error::kInvalidProgram) {
        const Error e = fail(diagnostic_, error, Where::kOperator, i, reason);
        const internal::OpEntry* entry = internal::op_entry(op.kind());
        if (diagnostic_ != nullptr && entry != nullptr) diagnostic_->op_name = entry->name;
        return e;
      };
      if (op.inputs() == nullptr || op.outputs() == nullptr) {
        return op_error("missing inputs or outputs");
      }
      // Every tensor an operator touches is in range and live at its step; outputs are written,
      // so they must be in the arena.
      for (uint32_t k = 0; k < op.inputs()->size(); ++k) {
        const int32_t t = op.inputs()->Get(k);
        if (t == -1) continue;  // absent optional input; the per-kind check decides if allowed
        if (t < 0 || static_cast<uint32_t>(t) >= num_tensors) {
          return op_error("input index out of range");
        }
        const schema::Tensor& tensor = *p_.tensors()->Get(static_cast<uint32_t>(t));
        if (tensor.location() == Location::Arena &&
            (tensor.first_step() > i || tensor.last_step() < i)) {
          return op_error("input not live at this step", Error::kInvalidPlan);
        }
      }
      for (uint32_t k = 0; k < op.outputs()->size(); ++k) {
        const int32_t t = op.outputs()->Get(k);
        if (t < 0 || static_cast<uint32_t>(t) >= num_tensors) {
          return op_error("output index out of range");
        }
        const schema::Tensor& tensor = *p_.tensors()->Get(static_cast<uint32_t>(t));
        if (tensor.location() != Location::Arena) return op_error("output not in the arena");
        // A state is an input its operator updates (OpRegistration's check says which).
        if (tensor.state()) return op_error("output is a state");
        if (tensor.first_step() > i || tensor.last_step() < i) {
          return op_error("output not live at this step", Error::kInvalidPlan);
        }
      }
      if (const schema::Region* scratch = op.scratch()) {
        if (uint64_t{scratch->offset()} + scratch->size() > p_.arena_size()) {
          return op_error("scratch region outside the arena");
        }
        if (scratch->offset() % 4 != 0) return op_error("scratch region not 4-byte aligned");
      }
      const char* reason = "";
      const internal::OpCheckContext context{&p_, constants_, constants_size_, i, &reason,
                                             has_int4_};
      if (const Error e = internal::validate_operator(context, op); e != Error::kOk) {
        return op_error(reason, e);
      }
    }
    return Error::kOk;
  }

  // Row-streamed stages: in order and apart, each one's rings, lifetimes and schedule sound
  // (internal::check_stage), and every ring made by a stage's operator other than its last
  // (a whole-map kernel must never meet one).
  Error check_stages() {
    const uint32_t num_stages = p_.stages() != nullptr ? p_.stages()->size() : 0;
    const uint32_t num_calls = p_.stage_calls() != nullptr ? p_.stage_calls()->size() : 0;
    if (num_calls != num_stages) return program_error("stage_calls not one per stage");
    for (uint32_t k = 0; k < num_stages; ++k) {
      const schema::Stage& stage = *p_.stages()->Get(k);
      if (k > 0 && stage.first() <= p_.stages()->Get(k - 1)->last()) {
        return program_error("stages out of order or overlapping");
      }
      // The members' table in the workspace, which the plan check uses only later.
      static_assert(internal::kStageTableBytes <= kLoadStackWorkspaceWords * sizeof(uint32_t),
                    "load's own workspace holds a stage's table");
      // (Each member's own check refused a row-streamed form this image does not hold.)
      const internal::StageSupport* stages = internal::built_stages();
      if (stages == nullptr) {
        return fail(diagnostic_, Error::kUnsupported, Where::kOperator, stage.first(),
                    "row-streamed stages are not built into this runtime");
      }
      Error error = Error::kOk;
      if (const char* reason =
              stages->check(p_, k, workspace_, workspace_words_ * sizeof(uint32_t), &error)) {
        return fail(diagnostic_, error, Where::kOperator, stage.first(), reason);
      }
    }
    for (uint32_t i = 0; i < p_.tensors()->size(); ++i) {
      if (p_.tensors()->Get(i)->ring_rows() == 0) continue;
      bool made_in_stage = false;
      for (uint32_t k = 0; k < num_stages && !made_in_stage; ++k) {
        const schema::Stage& stage = *p_.stages()->Get(k);
        for (uint32_t op = stage.first(); op < stage.last() && !made_in_stage; ++op) {
          made_in_stage = p_.operators()->Get(op)->outputs()->Get(0) == static_cast<int32_t>(i);
        }
      }
      if (!made_in_stage) return tensor_error(i, "ring of rows outside any stage");
    }
    return Error::kOk;
  }

  Error check_plan() {
    return internal::check_plan(p_, workspace_, workspace_words_, diagnostic_);
  }

  const schema::Program& p_;
  LoadDiagnostic* diagnostic_;
  uint32_t* workspace_;
  size_t workspace_words_;
  const uint8_t* constants_ = nullptr;
  uint32_t constants_size_ = 0;
  bool has_int4_ = false;  // some tensor is Int4 (check_tensors)
};

}  // namespace

namespace internal {

Error check_program(const uint8_t* data, size_t size, uint32_t* workspace,
                    size_t workspace_words, LoadDiagnostic* diagnostic) {
  using Where = LoadDiagnostic::Where;
  MOTE_TRY(check_program_bytes(data, size, diagnostic));
  // Depth: Program > operators > Operator > options is 4 levels; 16 leaves room.
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/16, /*max_tables=*/1000000);
  if (!schema::VerifyProgramBuffer(verifier)) {
    return fail(diagnostic, Error::kInvalidProgram, Where::kProgram, 0,
                "not a well-formed Mote FlatBuffer");
  }
  const schema::Program* root = schema::GetProgram(data);
  Loader loader(*root, diagnostic, workspace, workspace_words);
  const Error error = loader.run(data);
  if (error != Error::kOk) name_other_target(*root, diagnostic);
  return error;
}

Error check_trusted_target(const schema::Program& program, LoadDiagnostic* diagnostic) {
  const kernels::Extension built = built_extension();
  const auto planned = static_cast<kernels::Extension>(program.target()->extension());
  if (built == kernels::Extension::kScalar || planned == built) return Error::kOk;
  fail(diagnostic, Error::kUnsupported, LoadDiagnostic::Where::kProgram, 0, "");
  name_other_target(program, diagnostic);
  return Error::kUnsupported;
}

Error check_program_bytes(const uint8_t* data, size_t size, LoadDiagnostic* diagnostic) {
  using Where = LoadDiagnostic::Where;
  if (data == nullptr) {
    return fail(diagnostic, Error::kInvalidArgument, Where::kProgram, 0, "null program");
  }
  if (reinterpret_cast<uintptr_t>(data) % kProgramAlignment != 0) {
    return fail(diagnostic, Error::kProgramMisaligned, Where::kProgram, 0,
                "program bytes not 16-byte aligned");
  }
  if (size > kMaxProgramSize) {
    return fail(diagnostic, Error::kInvalidProgram, Where::kProgram, 0, "program too large");
  }
  return Error::kOk;
}

}  // namespace internal

const schema::Program* Program::root() const { return schema::GetProgram(data_); }
size_t Program::num_tensors() const { return root()->tensors()->size(); }
size_t Program::num_operators() const { return root()->operators()->size(); }
size_t Program::num_inputs() const { return root()->inputs()->size(); }
size_t Program::num_outputs() const { return root()->outputs()->size(); }
bool Program::input_takes_float(size_t index) const {
  const auto* marks = root()->float_inputs();
  return marks != nullptr && index < marks->size() && index < num_inputs() &&
         marks->Get(static_cast<flatbuffers::uoffset_t>(index)) != 0;
}
size_t Program::arena_size() const { return root()->arena_size(); }
size_t Program::arena_alignment() const { return root()->arena_alignment(); }
const uint8_t* Program::constants() const {
  const auto* c = root()->constants();
  return c != nullptr ? c->data() : nullptr;
}
size_t Program::constants_size() const {
  const auto* c = root()->constants();
  return c != nullptr ? c->size() : 0;
}
const char* Program::operator_name(size_t index) const {
  if (index >= num_operators()) return "";
  const auto i = static_cast<flatbuffers::uoffset_t>(index);
  const internal::OpEntry* entry = internal::op_entry(root()->operators()->Get(i)->kind());
  return entry != nullptr ? entry->name : "";
}

Extension Program::extension() const {
  return static_cast<Extension>(root()->target()->extension());
}

const char* Program::target_cpu() const {
  const flatbuffers::String* cpu = root()->target()->cpu();
  return cpu != nullptr ? cpu->c_str() : "";
}

}  // namespace runtime
}  // namespace mote
