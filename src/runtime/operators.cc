// The loader's and executor's use of the operator table (ops/registry.h): every per-operator
// rule lives in the operator's own file under ops/.

#include "mote/runtime/call_words.h"
#include "runtime/ops/op_support.h"

namespace mote {
namespace runtime {
namespace internal {

namespace {

// The operator's prepared call (Operator.call): exactly the words its form derives, where its
// form runs from one outside a stage, and none otherwise.
Error check_call(const OpCheckContext& context, const schema::Operator& op, uint16_t forms) {
  const flatbuffers::Vector<int32_t>* call = op.call();
  int32_t words[kMaxCallWords];
  size_t count = 0;
  const bool derived = (forms & (kFormRows | kFormRowsPortable)) != 0 ||
                       call_words(*context.program, op, words, &count);
  if (count == 0) {
    if (call == nullptr) return Error::kOk;
    *context.reason = "call words (Operator.call) on an operator whose form takes none";
    return Error::kInvalidProgram;
  }
  if (!derived) {
    *context.reason = "its tensors are not where a prepared call can have them";
    return Error::kInvalidProgram;
  }
  if (call == nullptr) {
    *context.reason = "without its call words (Operator.call): compile the model again";
    return Error::kInvalidProgram;
  }
  bool same = call->size() == count;
  for (size_t k = 0; same && k < count; ++k) {
    same = call->Get(static_cast<uint32_t>(k)) == words[k];
  }
  if (!same) {
    *context.reason = "call words (Operator.call) differ from its parameters and tensors";
    return Error::kInvalidProgram;
  }
  return Error::kOk;
}

}  // namespace

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
  const uint16_t forms = op_forms(*context.program, context.index);
  if (const char* absent = absent_form(*entry, forms)) {
    *context.reason = absent;
    return Error::kUnsupported;
  }
  MOTE_TRY(checker.signature(entry->op->signature));
  if (entry->op->check != nullptr) MOTE_TRY(entry->op->check(checker));
  MOTE_TRY(check_call(context, op, forms));
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

namespace {

// The form an operator outside a row-streamed stage runs; `type_forms` false: no operator of
// the program runs a type form (16x8, int4, int32), so none is looked for.
const OpForm* whole_form(const OpEntry& entry, const schema::Program& program,
                         const schema::Operator& op, bool type_forms) {
  const OpFormTable* forms = entry.forms;
  if (forms == nullptr) return entry.plain;
  if (op.backward()) return forms->backward;
  if (op.in_place()) return forms->in_place;
  const uint16_t kinds = forms->separate & (kFormInt16 | kFormInt4 | kFormInt32);
  const uint16_t types =
      type_forms && kinds != 0 ? internal::type_forms(program, op) & forms->separate : 0;
  if ((types & kFormInt32) != 0) return forms->int32;
  if ((types & kFormInt16) != 0) return forms->int16;
  if ((types & kFormInt4) != 0) return forms->int4;
  if (op.portable_kernel() && (forms->separate & kFormPortable) != 0) return forms->portable;
  return plain_form(*forms, program, op);
}

}  // namespace

Error run_operator(const OpEnv& env, const schema::Operator& op) {
  const OpEntry* entry = op_entry(op.kind());
  if (entry == nullptr || !entry->built_in) return Error::kUnsupported;
  const OpForm* form = whole_form(*entry, *env.program, op, env.type_forms);
  // (Null only where the load refused the form or its call: the program's bytes changed since.)
  if (form == nullptr) return Error::kUnsupported;
  if (form->invoke_call != nullptr) {
    const flatbuffers::Vector<int32_t>* call = op.call();
    if (call == nullptr) return Error::kUnsupported;
    form->invoke_call(env, call->data());
  } else {
    form->invoke(Op(env, op));
  }
  return Error::kOk;
}

bool call_words(const schema::Program& program, const schema::Operator& op, int32_t* words,
                size_t* count) {
  *count = 0;
  const OpEntry* entry = op_entry(op.kind());
  if (entry == nullptr) return true;
  const OpForm* form = whole_form(*entry, program, op, /*type_forms=*/true);
  if (form == nullptr || form->invoke_call == nullptr) return true;
  const OpRegistration* registration = built_in_op(op.kind());
  if (registration == nullptr || registration->call_args == nullptr) return false;
  *count = registration->call_words;
  return registration->call_args(program, op, words);
}

}  // namespace internal

int operator_call_words(const schema::Program& program, uint32_t index, int32_t* words) {
  static_assert(kMaxOperatorCallWords == internal::kMaxCallWords, "one limit");
  if (internal::row_streamed(program, index)) return 0;
  size_t count = 0;
  if (!internal::call_words(program, *program.operators()->Get(index), words, &count)) return -1;
  return static_cast<int>(count);
}

}  // namespace runtime
}  // namespace mote
