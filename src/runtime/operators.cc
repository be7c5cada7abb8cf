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
    *context.reason = kAbsentKind;
    return Error::kUnsupported;
  }
  const OpChecker checker(context, op);
  const uint16_t has = separate_forms(op.kind());
  if (op.backward() && (has & kFormBackward) == 0) {
    *context.reason = "operator kind cannot run backward";
    return Error::kInvalidProgram;
  }
  if (op.in_place() && ((has & kFormInPlace) == 0 || op.backward())) {
    *context.reason = op.backward() ? "operator cannot run both backward and in place"
                                    : "operator kind cannot run in place";
    return Error::kInvalidProgram;
  }
  if (const char* absent = absent_form(*entry, op_forms(*context.program, context.index))) {
    *context.reason = absent;
    return Error::kUnsupported;
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

// Why a program running `forms` of the entry's kind is refused, or null.
const char* absent_form(const OpEntry& entry, uint16_t forms) {
  const OpFormTable none{};
  const OpFormTable& built = entry.forms != nullptr ? *entry.forms : none;
  if ((forms & kFormPlain) != 0 && built.plain == nullptr) {
    return "its whole-tensor form is not built into this image: rebuild the image with this "
           "program (mote_add_model)";
  }
  if ((forms & kFormPortable) != 0 && built.portable == nullptr) {
    return "its portable-kernel form (a shape this CPU's extension kernel does not take) is not "
           "built into this image: rebuild the image with this program (mote_add_model)";
  }
  if ((forms & kFormRowsPortable) != 0 && built.rows_portable == nullptr) {
    return "its row-streamed form on the portable kernel (a shape this CPU's extension kernel "
           "does not take) is not built into this image: rebuild the image with this program "
           "(mote_add_model)";
  }
  if ((forms & kFormRows) != 0 && built.rows == nullptr) {
    return "its row-streamed form is not built into this image: rebuild the image with this "
           "program (mote_add_model)";
  }
  if ((forms & kFormInPlace) != 0 && built.in_place == nullptr) {
    return "its in-place form is not built into this image: rebuild the image with this program "
           "(mote_add_model)";
  }
  if ((forms & kFormBackward) != 0 && built.backward == nullptr) {
    return "its backward form is not built into this image: rebuild the image with this program "
           "(mote_add_model)";
  }
  if ((forms & kFormInt16) != 0 && built.int16 == nullptr) {
    return "its 16x8 form is not built into this image: rebuild the image with this program "
           "(mote_add_model)";
  }
  if ((forms & kFormInt4) != 0 && built.int4 == nullptr) {
    return "its int4-weight form is not built into this image: rebuild the image with this "
           "program (mote_add_model)";
  }
  if ((forms & kFormInt32) != 0 && built.int32 == nullptr) {
    return "its int32 form is not built into this image: rebuild the image with this program "
           "(mote_add_model)";
  }
  if ((forms & kFormOneInput) != 0 && built.one_input == nullptr) {
    return "its one-input-channel form is not built into this image: rebuild the image with "
           "this program (mote_add_model)";
  }
  return nullptr;
}

Error run_operator(const OpEnv& env, const schema::Operator& op) {
  const OpEntry* entry = op_entry(op.kind());
  if (entry == nullptr || !entry->built_in) return Error::kUnsupported;
  const OpForm* form = entry->plain;
  if (const OpFormTable* forms = entry->forms) {
    if (op.backward()) {
      form = forms->backward;
    } else if (op.in_place()) {
      form = forms->in_place;
    } else {
      const uint16_t types = (forms->separate & (kFormInt16 | kFormInt4 | kFormInt32)) != 0
                                 ? type_forms(*env.program, op) & forms->separate
                                 : 0;
      if ((types & kFormInt32) != 0) {
        form = forms->int32;
      } else if ((types & kFormInt16) != 0) {
        form = forms->int16;
      } else if ((types & kFormInt4) != 0) {
        form = forms->int4;
      } else if (op.portable_kernel() && (forms->separate & kFormPortable) != 0) {
        form = forms->portable;
      } else {
        form = plain_form(*forms, *env.program, op);
      }
    }
  }
  // (Null only where the load refused the form: the program's bytes changed since.)
  if (form == nullptr) return Error::kUnsupported;
  form->invoke(Op(env, op));
  return Error::kOk;
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
