#pragma once
/// Prepared operator calls, for the tool that writes a program (the compiler): the words an
/// operator lists as its call (schema Operator.call), which the loader requires to be exactly
/// what this runtime's operator derives (its kernel's parameters and where its tensors sit), so
/// that the executor runs it by reading them alone.
/// Embeddable C++17: no heap, no exceptions.

#include <stddef.h>
#include <stdint.h>

#include "mote/schema/mote_generated.h"

namespace mote {
namespace runtime {

/// The most words one operator's call takes.
inline constexpr size_t kMaxOperatorCallWords = 32;

/// The call words of operator `index` of `program` into words[kMaxOperatorCallWords]; returns
/// how many (0: its form runs without, or it is a member of a row-streamed stage), or -1 when
/// its tensors are not where a call can have them. Reads the program unchecked: only for
/// well-formed bytes a tool has just written (Program::load checks a program's words against
/// these).
int operator_call_words(const schema::Program& program, uint32_t index, int32_t* words);

}  // namespace runtime
}  // namespace mote
