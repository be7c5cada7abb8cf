// The loader's and executor's use of the operator table (ops/registry.h): every per-operator
// rule lives in the operator's own file under ops/.

#include "runtime/ops/op_support.h"

namespace mote {
namespace runtime {
namespace internal {

Error validate_operator(const OpCheckContext& context, const schema::Operator& op) {
  const OpEntry* entry = op_entry(op.kind());
  if (entry == nullptr) {
    *context.reason = "unknown operator kind";
    return Error::kInvalidProgram;
  }
  if (entry->op == nullptr) {
    *context.reason = entry->absent_reason;
    return Error::kUnsupported;
  }
  const OpChecker checker(context, op);
  if (op.backward() && entry->op->invoke_backward == nullptr) {
    *context.reason = "operator kind cannot run backward";
    return Error::kInvalidProgram;
  }
  if (op.in_place() && (entry->op->invoke_in_place == nullptr || op.backward())) {
    *context.reason = op.backward() ? "operator cannot run both backward and in place"
                                    : "operator kind cannot run in place";
    return Error::kInvalidProgram;
  }
  MOTE_TRY(checker.signature(entry->op->signature));
  if (entry->op->check != nullptr) MOTE_TRY(entry->op->check(checker));
  // The scratch region the plan gave this operator must hold what the kernel needs.
  const size_t planned = op.scratch() != nullptr ? op.scratch()->size() : 0;
  if (planned < required_scratch_bytes(*context.program, op)) {
    *context.reason = "scratch region smaller than the kernel needs";
    return Error::kScratchTooSmall;
  }
  return Error::kOk;
}

size_t required_scratch_bytes(const schema::Program& program, const schema::Operator& op) {
  const OpRegistration* registration = built_in_op(op.kind());
  return registration != nullptr && registration->required_scratch != nullptr
             ? registration->required_scratch(program, op)
             : 0;
}

Error run_operator(const OpEnv& env, const schema::Operator& op) {
  const OpRegistration* registration = built_in_op(op.kind());
  if (registration == nullptr) return Error::kUnsupported;
  if (op.backward()) {
    registration->invoke_backward(Op(env, op));  // validate_operator: not null
  } else if (op.in_place()) {
    registration->invoke_in_place(Op(env, op));  // validate_operator: not null
  } else {
    registration->invoke(Op(env, op));
  }
  return Error::kOk;
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
