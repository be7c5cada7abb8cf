#pragma once
// The device operator table (TFLM's registrations, ExecuTorch's kernel registry): each operator
// kind's load-time check, invoke, scratch need and in-place rule, defined in its own file under
// src/runtime/ops/ and looked up by kind. Adding an operator on the device is its file here (its
// line in MOTE_OPERATORS serves compiler and runtime) and its kernel.

#include <stddef.h>

#include "mote/runtime/error.h"
#include "mote/schema/mote_generated.h"

// Every operator kind comes from MOTE_OPERATORS (mote/operators.h), the one list the compiler
// and the runtime share. The file that defines a kind holds `extern const OpRegistration
// k<Kind>Op`; op_table.cc fails to compile until every kind of schema::OpKind has one.
#include "mote/operators.h"

namespace mote {
namespace runtime {
namespace internal {

class OpChecker;  // ops/op_support.h
class Op;         // ops/op_support.h

struct OpRegistration {
  // Load time: arity, types, shapes and parameter ranges are what the kernel can run; on failure
  // sets the checker's reason.
  Error (*check)(const OpChecker& op);
  // Run time: the kernel's parameters from the program's options, then the kernel.
  Error (*invoke)(const Op& op);
  // Scratch bytes the kernel needs on the program's target extension (the kernels' own
  // scratch-size function); null for kernels that need none.
  size_t (*required_scratch)(const schema::Program& program, const schema::Operator& op);
  // The kernel may write its output over an input that starts at the same address.
  bool runs_in_place;
};

#define MOTE_INTERNAL_DECLARE_OP(kind, name, definition) extern const OpRegistration k##kind##Op;
MOTE_OPERATORS(MOTE_INTERNAL_DECLARE_OP)
#undef MOTE_INTERNAL_DECLARE_OP

// One kind's entry in this image's table (op_table.cc).
struct OpEntry {
  const char* name;           // "CONV_2D"
  const OpRegistration* op;   // null when the kind is not built into this image
  const char* absent_reason;  // why a program using it is refused; null when it is built in
};

// The entry of `kind`, or null for a value outside schema::OpKind.
const OpEntry* op_entry(schema::OpKind kind);

}  // namespace internal
}  // namespace runtime
}  // namespace mote
