#pragma once
/// Row-streamed stages, for the tool that writes a program (the compiler): the words each stage
/// lists for its members' row calls (schema StageCalls.args), which the loader requires to be
/// exactly what this runtime's operators compute (their kernel parameters and tensor offsets),
/// so that the executor runs a stage by reading them alone.
/// Embeddable C++17: no heap, no exceptions.

#include <stddef.h>
#include <stdint.h>

#include "mote/schema/mote_generated.h"

namespace mote {
namespace runtime {

/// Row-call words an operator of `kind` takes in a stage (0: the kind never runs in one).
size_t stage_row_word_count(schema::OpKind kind);

/// The words stage `k` of `program` must list: every member's, in member order, into
/// words[capacity]. False when they do not fit, or a member cannot run by rows with its
/// tensors where they are. Reads the program unchecked: only for well-formed bytes a tool has
/// just written (Program::load checks a program's words against these).
bool stage_row_words(const schema::Program& program, uint32_t k, int32_t* words, size_t capacity);

}  // namespace runtime
}  // namespace mote
