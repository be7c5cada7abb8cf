#pragma once
// The device operator table (TFLM's registrations, ExecuTorch's kernel registry): each operator
// kind's load-time check, invoke, scratch need and in-place rule, defined in its own file under
// src/runtime/ops/ and looked up by kind. Adding an operator on the device is its file here (its
// line in MOTE_OPERATORS serves compiler and runtime) and its kernel.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/overlap.h"
#include "mote/runtime/error.h"
#include "mote/schema/mote_generated.h"
#include "program/stage_schedule.h"

// Every operator kind comes from MOTE_OPERATORS (mote/operators.h), the one list the compiler
// and the runtime share. The file that defines a kind holds `extern const OpRegistration
// k<Kind>Op`; op_table.cc fails to compile until every kind of schema::OpKind has one.
#include "mote/operators.h"
#include "runtime/ops/op_forms.h"

namespace mote {
namespace runtime {
namespace internal {

// The stage schedule is the program library's (src/program/), shared with the compiler.
using namespace ::mote::program;

class OpChecker;  // ops/op_support.h
class Op;         // ops/op_support.h
struct OpEnv;     // internal.h

// What the loader checks of every operator before its own check, the part most operators share:
// how many inputs and outputs (one output unless said), its options table, and the int8
// operands most kernels take. Written as `takes(2, 3, schema::OpOptions::ConvOptions).int8(2).nhwc()`.
struct OpSignature {
  uint8_t required_inputs;  // present (index >= 0)
  uint8_t max_inputs;       // with optional trailing ones, which may be absent (-1)
  schema::OpOptions options;
  uint8_t int8_inputs;  // the first this many inputs and every output are int8 (0: check says)
  bool rank4;           // input 0 and the output are 4-D (NHWC)
  bool broadcast;       // inputs 0 and 1 broadcast to the output's shape (TFLite's rule)
  bool elementwise;     // input 0 and the output hold as many elements
  uint8_t max_outputs;  // 1 .. max_outputs outputs (1: exactly one)
  // 16x8 form: when input 0 is int16, the first int16_inputs inputs and every output are int16
  // instead, the other int8 inputs (weights) stay int8. 0: int8 only.
  uint8_t int16_inputs;
  // Input 1 (the weights) may also be int4, packed two per byte, where input 0 is int8. No other
  // input of any operator may be int4.
  bool int4_weights;
  // Plain int32 form: when input 0 is int32, the first int32_inputs inputs and every output are
  // int32 instead (TFLM's int32 arithmetic). 0: none.
  uint8_t int32_inputs;

  // The first `inputs` inputs and the outputs are int8.
  constexpr OpSignature int8(uint8_t inputs) const {
    OpSignature s = *this;
    s.int8_inputs = inputs;
    return s;
  }
  constexpr OpSignature nhwc() const {
    OpSignature s = *this;
    s.rank4 = true;
    return s;
  }
  constexpr OpSignature broadcasting() const {
    OpSignature s = *this;
    s.broadcast = true;
    return s;
  }
  constexpr OpSignature one_to_one() const {
    OpSignature s = *this;
    s.elementwise = true;
    return s;
  }
  // Also a 16x8 form: the first `inputs` inputs and the outputs int16 where input 0 is.
  constexpr OpSignature int16(uint8_t inputs) const {
    OpSignature s = *this;
    s.int16_inputs = inputs;
    return s;
  }
  // Also int4 weights (input 1) under int8 activations.
  constexpr OpSignature int4() const {
    OpSignature s = *this;
    s.int4_weights = true;
    return s;
  }
  // Also a plain int32 form: the first `inputs` inputs and the outputs int32 where input 0 is.
  constexpr OpSignature int32(uint8_t inputs) const {
    OpSignature s = *this;
    s.int32_inputs = inputs;
    return s;
  }
  // One to `max` outputs (SPLIT, SPLIT_V, UNPACK), each its own arena tensor.
  constexpr OpSignature outputs(uint8_t max) const {
    OpSignature s = *this;
    s.max_outputs = max;
    return s;
  }
};
constexpr OpSignature takes(uint8_t required_inputs, uint8_t max_inputs,
                            schema::OpOptions options) {
  return {required_inputs, max_inputs, options, 0, false, false, false, 1, 0, false, 0};
}

// What the loader checks of an operator kind (its run-time side is the kind's OpForm objects
// below: an image built with MOTE_VERIFY crc links those alone).
struct OpRegistration {
  OpSignature signature;
  // Load time, after the signature: types, shapes and parameter ranges are what the kernel can
  // run; on failure sets the checker's reason. Null when the signature says all.
  Error (*check)(const OpChecker& op);
  // Scratch bytes the kernel needs on the program's target extension (the kernels' own
  // scratch-size function); null for kernels that need none.
  size_t (*required_scratch)(const schema::Program& program, const schema::Operator& op);
  // The kernel may write its output over an input that starts at the same address.
  bool runs_in_place;
  // Where the output may overlap input `k` when that input dies at this operator: the overlap
  // rule of the kernel built into this library (mote/kernels/overlap.h, the same functions the
  // compiler planned with). Null: nowhere. Called after the operator's check passed.
  kernels::OverlapRule (*overlap)(const schema::Program& program, const schema::Operator& op,
                                  size_t k);
  // The prepared call of the kind's forms that run from one (OpForm::invoke_call): the kernel's
  // parameters and where its tensors sit (call_operand, row_constant in ops/op_support.h),
  // exactly call_words words into words[call_words]; false: its tensors are not where a call
  // can have them. The compiler writes them into the program (Operator.call) and the loader
  // requires them equal to these; an image that checks programs by their CRC links neither.
  bool (*call_args)(const schema::Program& program, const schema::Operator& op,
                    int32_t* words) = nullptr;
  uint8_t call_words = 0;
};

// The most words any kind's row_args writes.
inline constexpr size_t kMaxRowWords = 32;

// An operator's forms (ops/op_forms.h): each is an object of its own, k<Kind><Form>, which the
// operator table references only where the image's programs run that form.
struct OpForm {
  // Run time: the kernel's parameters from the program's options, then the kernel. It cannot
  // fail: everything it relies on was checked at load. In this form:
  // - plain: every kind has one, k<Kind>Plain, which runs all the kind does where it has no
  //   separate forms;
  // - backward (schema Operator.backward): from the last output byte to the first; the kind's
  //   check refuses shapes that cannot run so, and its `overlap` gives the backward rule;
  // - in place (Operator.in_place): through its scratch, so that the output may sit exactly on
  //   its input; `required_scratch` and `overlap` give that kernel's;
  // - portable (Operator.portable_kernel): plain, on the portable kernel, where the target's
  //   extension kernel does not take the shape (plain runs the extension's kernel alone);
  // - one input (one_input_channel): plain, on the extension's kernel for one input channel
  //   with a depth multiplier, which other images do not link;
  // - 16x8, int4 weights, or plain int32.
  // Null for a form that runs from a prepared call (below).
  void (*invoke)(const Op& op);
  // Prepared (null: the form reads the program's tables through invoke): the kernel from the
  // words of the operator's call (Operator.call, OpRegistration::call_args) alone. On a small
  // layer, finding the parameters in the options and tensor tables on every run cost as much
  // as the kernel.
  void (*invoke_call)(const OpEnv& env, const int32_t* words) = nullptr;
};

// The most words any form's call_args writes.
inline constexpr size_t kMaxCallWords = 32;

// Row-streamed stages (schema Stage, program/stage_schedule.h).
struct OpRowForm {
  // How the output rows read the rows of input `k`, where the shape can run by rows (false: it
  // cannot, and a stage holding the operator is refused).
  bool (*row_reach)(const schema::Program& program, const schema::Operator& op, size_t k,
                    StageRowReach* reach);
  // Prepared: the words of the operator's row calls, its kernel's parameters and where its
  // tensors sit (offsets, RowOperand in ops/op_support.h), exactly row_words of them into
  // words[row_words]; false: the operator's tensors are not where a stage can have them. The
  // compiler writes them into the program (StageCalls.args), the loader requires them equal to
  // these, and invoke_rows reads nothing else: a stage calls each member at every few rows, and
  // finding its parameters in the operator's tables cost more than the rows of a small map.
  bool (*row_args)(const schema::Program& program, const schema::Operator& op, int32_t* words);
  uint8_t row_words;
  // Run time, inside a stage: output rows [y_begin, y_end) from the row_args words, each tensor
  // read and written through its ring where the program holds it so (Tensor.ring_rows).
  void (*invoke_rows)(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end);
};

// The separate forms of one kind built into this image; null: not built in.
struct OpFormTable {
  uint16_t separate;  // the kind's separate forms (separate_forms), built in or not
  const OpForm* plain;
  const OpForm* portable;
  const OpRowForm* rows;
  const OpRowForm* rows_portable;  // rows on the portable row kernel (Operator.portable_kernel)
  const OpForm* in_place;
  const OpForm* backward;
  const OpForm* int16;
  const OpForm* int4;
  const OpForm* one_input;
  const OpForm* int32;
};

// `overlap` of the elementwise kinds: over an int8 input of the int8 output's element count
// (not broadcast).
kernels::OverlapRule elementwise_overlap(const schema::Program& program, const schema::Operator& op,
                                         size_t k);

#define MOTE_INTERNAL_DECLARE_OP(kind, name, definition) \
  extern const OpRegistration k##kind##Op;              \
  extern const OpForm k##kind##Plain;
MOTE_OPERATORS(MOTE_INTERNAL_DECLARE_OP)
#undef MOTE_INTERNAL_DECLARE_OP
#define MOTE_INTERNAL_FORM_TYPE_Plain OpForm
#define MOTE_INTERNAL_FORM_TYPE_Portable OpForm
#define MOTE_INTERNAL_FORM_TYPE_Rows OpRowForm
#define MOTE_INTERNAL_FORM_TYPE_RowsPortable OpRowForm
#define MOTE_INTERNAL_FORM_TYPE_InPlace OpForm
#define MOTE_INTERNAL_FORM_TYPE_Backward OpForm
#define MOTE_INTERNAL_FORM_TYPE_Int16 OpForm
#define MOTE_INTERNAL_FORM_TYPE_Int4 OpForm
#define MOTE_INTERNAL_FORM_TYPE_OneInput OpForm
#define MOTE_INTERNAL_FORM_TYPE_Int32 OpForm
#define MOTE_INTERNAL_DECLARE_FORM(kind, form, field) \
  extern const MOTE_INTERNAL_FORM_TYPE_##form k##kind##form;
MOTE_OPERATOR_FORMS(MOTE_INTERNAL_DECLARE_FORM)
#undef MOTE_INTERNAL_DECLARE_FORM

// One kind's entry in this image's table (op_table.cc).
struct OpEntry {
  const char* name;           // "CONV_2D"
  // Its load checks: null when the kind is not built into this image, or the image checks its
  // programs by their CRC alone (MOTE_VERIFY crc).
  const OpRegistration* op;
  bool built_in;  // false: a program using the kind is refused (kAbsentKind)
  // Its separate forms (separate_forms(kind)) built into this image: null when it has none.
  const OpFormTable* forms;
  // Its plain form where it has no separate forms (they hold it otherwise); null when absent.
  const OpForm* plain;
};

// Why a program is refused whose operator's kind this image does not build in. One text for
// every kind (the load diagnostic names the operator and its kind): a text per kind would put
// every unselected kind's sentence into every image.
inline constexpr const char* kAbsentKind =
    "its kind is not built into this image: rebuild the image with this program (mote_add_model)";

// The entry of `kind`, or null for a value outside schema::OpKind.
const OpEntry* op_entry(schema::OpKind kind);

// The form a plain operator (int8, whole tensors, on the extension's kernel) of a kind with
// separate forms runs: its one-input form where this image builds one and `op` reads one channel
// into several (op_forms), else its plain form. (op_table.cc: an image without one-input forms
// reads no shapes.)
const OpForm* plain_form(const OpFormTable& forms, const schema::Program& program,
                         const schema::Operator& op);

// Why a program is refused whose operator of the entry's kind runs `forms` (op_forms) that this
// image does not build in, or null.
const char* absent_form(const OpEntry& entry, uint16_t forms);

// The load checks of `kind` built into this image, or null (outside the enum, not built in, or
// an image with MOTE_VERIFY crc: a loaded program has none of the first two unless its bytes
// changed after the load).
inline const OpRegistration* built_in_op(schema::OpKind kind) {
  const OpEntry* entry = op_entry(kind);
  return entry != nullptr ? entry->op : nullptr;
}

// The row-streamed form `op` runs in (its kind's, on the portable row kernel where the program
// marks it portable_kernel and the kind has that form) built into this image, or null.
inline const OpRowForm* row_form(const schema::Operator& op) {
  const OpEntry* entry = op_entry(op.kind());
  if (entry == nullptr || entry->forms == nullptr) return nullptr;
  const OpFormTable& f = *entry->forms;
  return op.portable_kernel() && (f.separate & kFormRowsPortable) != 0 ? f.rows_portable : f.rows;
}
// A row form of `kind` built into this image (the two take the same words), or null.
inline const OpRowForm* any_row_form(schema::OpKind kind) {
  const OpEntry* entry = op_entry(kind);
  if (entry == nullptr || entry->forms == nullptr) return nullptr;
  return entry->forms->rows != nullptr ? entry->forms->rows : entry->forms->rows_portable;
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
