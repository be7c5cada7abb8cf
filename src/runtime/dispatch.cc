// Operator dispatch to the kernels.

#include "runtime/dispatch.h"

#include <string.h>

#include "runtime/internal.h"

namespace mote {
namespace runtime {
namespace internal {
namespace {

using schema::Location;
using schema::OpKind;
using schema::Tensor;

const Tensor& tensor(const OpEnv& env, int32_t index) {
  return *env.program->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
}

// Where a tensor's bytes are: the arena or the constant blob.
const uint8_t* bytes(const OpEnv& env, const Tensor& t) {
  return (t.location() == Location::Arena ? env.arena : env.constants) + t.offset();
}
uint8_t* arena_bytes(const OpEnv& env, const Tensor& t) { return env.arena + t.offset(); }

// The compiler aliases a reshape's output to its input; otherwise copy (the regions may overlap
// only when aliased, so memmove covers both).
Error reshape(const OpEnv& env, const schema::Operator& op) {
  const Tensor& x = tensor(env, input_index(op, 0));
  const Tensor& y = tensor(env, output_index(op, 0));
  const uint8_t* src = bytes(env, x);
  uint8_t* dst = arena_bytes(env, y);
  if (src != dst) memmove(dst, src, y.size());
  return Error::kOk;
}

}  // namespace

Error run_operator(const OpEnv& env, const schema::Operator& op) {
  switch (op.kind()) {
    case OpKind::Reshape: return reshape(env, op);
    default: return Error::kUnsupported;
  }
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
