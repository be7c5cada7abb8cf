#pragma once
// Problems (and plans) as CSV, in the form other static allocators use (e.g. minimalloc):
//
//   id,lower,upper,size[,alignment][,kind][,offset]
//   conv1/out,0,3,4096,16,activation,
//
// A buffer lives over the half-open step range [lower, upper). Columns are found by their name
// in the header line and may come in any order; `start`/`begin` may stand for lower, and `end`
// (inclusive last step) for upper. Optional columns: alignment (default: the reader's default),
// kind (input, output, activation or scratch; default activation), offset (a fixed offset; empty
// means none). Blank lines and lines starting with '#' are ignored. Fields may be quoted.

#include <cstdint>
#include <iosfwd>
#include <string_view>

#include "compiler/planner/planner.h"
#include "compiler/planner/problem.h"

namespace mote::planner {

// Throws mote::InputError "<source>:<line>: <reason>" on the first bad line, and for problems
// validate() rejects.
Problem read_csv(std::istream& in, std::string_view source,
                 uint32_t default_alignment = kDefaultAlignment);

// Writes problem (always with the alignment column); with a plan, its offsets fill the offset column (so reading the file back
// gives a problem whose every buffer is fixed where the plan put it).
void write_csv(std::ostream& out, const Problem& problem, const Plan* plan = nullptr);

}  // namespace mote::planner
