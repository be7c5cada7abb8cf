#pragma once
// Seeded random problems for the planner's tests and benchmark. Identical on every machine.

#include <cstdint>
#include <vector>

#include "compiler/planner/problem.h"

namespace mote::planner {

// Model-like: lifetimes mostly a few steps (some long, like skip connections), sizes spread
// log-uniformly from 16 bytes to 64 KiB, one-step scratch buffers mixed in. The optimum usually
// sits a little above the lower bound.
Problem random_loose_problem(size_t num_buffers, uint64_t seed);

// A full rectangle (steps x bytes) cut into num_buffers pieces by random cuts in time or in
// offset: every step is full, so the lower bound is achievable and is the optimum. If packing is
// given, it receives the offsets of that full packing.
Problem random_tight_problem(size_t num_buffers, uint64_t seed,
                             std::vector<uint64_t>* packing = nullptr);

// Tiny problems for exhaustive checks: num_buffers buffers of 1 to 6 units of alignment bytes
// over a few steps, sometimes with one fixed buffer.
Problem random_small_problem(size_t num_buffers, uint64_t seed, bool allow_fixed,
                             uint32_t alignment = kDefaultAlignment);

}  // namespace mote::planner
