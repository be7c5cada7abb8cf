#pragma once
// Operator dispatch: one switch over the operator kind, calling the kernel with a parameter
// struct built from the program's options (no per-operator RAM state).

#include <stdint.h>

#include "mote/runtime/error.h"
#include "mote/schema/mote_generated.h"

namespace mote {
namespace runtime {
namespace internal {

struct OpEnv {
  const schema::Program* program;
  uint8_t* arena;
  const uint8_t* constants;
};

// Runs one operator of a verified program. Every operator kind has a kernel; the Error return
// leaves room for builds that leave some out (Error::kUnsupported).
Error run_operator(const OpEnv& env, const schema::Operator& op);

}  // namespace internal
}  // namespace runtime
}  // namespace mote
