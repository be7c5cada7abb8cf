#pragma once
// Seeded random problems for the planner's tests and benchmark. Identical on every machine.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/planner/problem.h"

namespace mote::planner {

// One buffer of `size` bytes live at steps [first, last], for problems written by hand.
Buffer buffer(std::string name, uint64_t size, int32_t first, int32_t last,
              BufferKind kind = BufferKind::kActivation, uint32_t alignment = kDefaultAlignment);

// Model-like: lifetimes mostly a few steps (some long, like skip connections), sizes spread
// log-uniformly from 512 bytes to 64 KiB, one-step scratch buffers mixed in. The optimum usually
// sits a little above the lower bound.
Problem random_loose_problem(size_t num_buffers, uint64_t seed);

// A full rectangle (steps x 64 KiB) cut into num_buffers pieces by random cuts in time or in
// offset: every step is full, so the lower bound is achievable and is the optimum. If packing is
// given, it receives the offsets of that full packing.
//  - kModelLike: num_buffers / 2 steps and pieces mostly a few steps long, so about as many
//    buffers live at once as in random_loose_problem (and in real models);
//  - kDense: num_buffers / 4 steps and cuts in either direction alike: tens of buffers live at
//    each step, a much harder puzzle than a model's plan.
enum class Density { kModelLike, kDense };
Problem random_tight_problem(size_t num_buffers, uint64_t seed,
                             std::vector<uint64_t>* packing = nullptr,
                             Density density = Density::kModelLike);

// Tiny problems for exhaustive checks: num_buffers buffers of 1 to 6 units of alignment bytes
// over a few steps, sometimes with one fixed buffer.
Problem random_small_problem(size_t num_buffers, uint64_t seed, bool allow_fixed,
                             uint32_t alignment = kDefaultAlignment);

}  // namespace mote::planner
