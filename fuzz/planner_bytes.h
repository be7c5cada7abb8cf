#pragma once
// The binary form of a planning problem that fuzz_planner decodes (and the seed generator
// writes). Every byte string decodes to a problem; most decode to valid ones, so the fuzzer
// spends its time in the algorithms rather than in validate().
//
//   byte 0        number of steps - 1 (1 to 256 steps)
//   byte 1        exact search node limit / 16
//   then 9 bytes per buffer (at most kMaxBuffers; a shorter tail is ignored):
//     0  bits 0-1 kind, bits 2-5 log2 of the alignment, bit 6 fixed offset
//     1  first step (modulo the number of steps)
//     2  lifetime length - 1 (clamped to the last step)
//     3-4 size mantissa (little-endian), 5 size exponent (modulo 64): size = mantissa << exponent
//     6-7 offset mantissa, 8 offset exponent: offset = (mantissa << exponent) rounded down to
//        the alignment (when bit 6 is set)

#include <cstddef>
#include <cstdint>
#include <vector>

#include "compiler/planner/problem.h"

namespace mote::fuzz {

inline constexpr size_t kMaxBuffers = 48;
inline constexpr size_t kHeaderBytes = 2;
inline constexpr size_t kBufferBytes = 9;

struct DecodedProblem {
  planner::Problem problem;
  uint64_t node_limit = 0;
};

DecodedProblem decode_problem(const uint8_t* data, size_t size);

// The inverse for seeds: sizes and offsets are rounded to what 16 mantissa bits can hold,
// steps beyond 256 and buffers beyond kMaxBuffers are dropped.
std::vector<uint8_t> encode_problem(const planner::Problem& problem, uint64_t node_limit);

}  // namespace mote::fuzz
