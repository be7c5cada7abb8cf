#include "compiler/planner/random_problems.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace mote::planner {

Buffer buffer(std::string name, uint64_t size, int32_t first, int32_t last, BufferKind kind,
              uint32_t alignment) {
  return Buffer{.name = std::move(name), .kind = kind, .size = size, .alignment = alignment,
                .first_step = first, .last_step = last, .fixed_offset = std::nullopt};
}

namespace {

// Own helpers over mt19937_64 (fully specified by the standard), because the standard
// distributions may differ between library versions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  // Uniform in [low, high].
  int64_t uniform(int64_t low, int64_t high) {
    return low + static_cast<int64_t>(engine_() % static_cast<uint64_t>(high - low + 1));
  }
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }

 private:
  std::mt19937_64 engine_;
};

std::string name(const char* prefix, size_t i) { return prefix + std::to_string(i); }

}  // namespace

Problem random_loose_problem(size_t num_buffers, uint64_t seed) {
  Rng rng(seed);
  Problem problem;
  problem.num_steps = static_cast<int32_t>(std::max<size_t>(2, num_buffers / 2));
  for (size_t i = 0; i < num_buffers; ++i) {
    Buffer b;
    b.first_step = static_cast<int32_t>(rng.uniform(0, problem.num_steps - 1));
    int32_t length = 1;
    if (rng.chance(0.25)) {
      b.kind = BufferKind::kScratch;
    } else {
      b.kind = BufferKind::kActivation;
      length = 2;
      while (rng.chance(0.4)) length += 1;            // a few steps
      if (rng.chance(0.12)) length += static_cast<int32_t>(rng.uniform(4, 20));  // a skip
    }
    b.last_step = std::min(problem.num_steps - 1, b.first_step + length - 1);
    // 512 B .. 64 KiB, log-uniform, in whole 16-byte units.
    const double bytes = std::exp2(9.0 + 7.0 * rng.unit());
    b.size = static_cast<uint64_t>(bytes) / 16 * 16 + 16;
    b.name = name(b.kind == BufferKind::kScratch ? "s" : "a", i);
    problem.buffers.push_back(std::move(b));
  }
  return problem;
}

Problem random_tight_problem(size_t num_buffers, uint64_t seed, std::vector<uint64_t>* packing,
                             Density density) {
  Rng rng(seed);
  struct Piece {
    int32_t first, last;   // steps, inclusive
    uint64_t low, high;    // 16-byte units, [low, high)
  };
  const bool dense = density == Density::kDense;
  const int32_t steps = static_cast<int32_t>(std::max<size_t>(2, num_buffers / (dense ? 4 : 2)));
  const uint64_t units = 4096;  // 64 KiB
  std::vector<Piece> pieces = {{0, steps - 1, 0, units}};
  while (pieces.size() < num_buffers) {
    // Pick a piece with probability proportional to its area, then cut it in time or offset.
    double total = 0;
    for (const Piece& p : pieces) total += double(p.last - p.first + 1) * double(p.high - p.low);
    double pick = rng.unit() * total;
    size_t k = 0;
    for (; k + 1 < pieces.size(); ++k) {
      pick -= double(pieces[k].last - pieces[k].first + 1) * double(pieces[k].high - pieces[k].low);
      if (pick < 0) break;
    }
    Piece p = pieces[k];
    const bool can_cut_time = p.last > p.first;
    const bool can_cut_bytes = p.high - p.low > 1;
    if (!can_cut_time && !can_cut_bytes) continue;
    // Model-like: long pieces are mostly cut in time, short ones in offset.
    const int32_t length = p.last - p.first + 1;
    const double time_share = dense ? 0.5 : double(length) / double(length + 3);
    const bool cut_time = can_cut_time && (!can_cut_bytes || rng.chance(time_share));
    Piece q = p;
    if (cut_time) {
      const auto at = static_cast<int32_t>(rng.uniform(p.first, p.last - 1));
      p.last = at;
      q.first = at + 1;
    } else {
      const auto at = static_cast<uint64_t>(rng.uniform(static_cast<int64_t>(p.low) + 1,
                                                        static_cast<int64_t>(p.high) - 1));
      p.high = at;
      q.low = at;
    }
    pieces[k] = p;
    pieces.push_back(q);
  }
  // Shuffle so that problem order says nothing about the packing.
  for (size_t i = pieces.size(); i > 1; --i) {
    std::swap(pieces[i - 1], pieces[static_cast<size_t>(rng.uniform(0, int64_t(i) - 1))]);
  }
  Problem problem;
  problem.num_steps = steps;
  for (size_t i = 0; i < pieces.size(); ++i) {
    Buffer b;
    b.name = name("t", i);
    b.kind = pieces[i].first == pieces[i].last ? BufferKind::kScratch : BufferKind::kActivation;
    b.first_step = pieces[i].first;
    b.last_step = pieces[i].last;
    b.size = (pieces[i].high - pieces[i].low) * 16;
    problem.buffers.push_back(std::move(b));
    if (packing != nullptr) packing->push_back(pieces[i].low * 16);
  }
  return problem;
}

Problem random_small_problem(size_t num_buffers, uint64_t seed, bool allow_fixed,
                             uint32_t alignment) {
  Rng rng(seed);
  Problem problem;
  problem.num_steps = static_cast<int32_t>(rng.uniform(1, 6));
  for (size_t i = 0; i < num_buffers; ++i) {
    Buffer b;
    b.name = name("b", i);
    b.alignment = alignment;
    b.first_step = static_cast<int32_t>(rng.uniform(0, problem.num_steps - 1));
    b.last_step = static_cast<int32_t>(rng.uniform(b.first_step, problem.num_steps - 1));
    b.kind = b.first_step == b.last_step ? BufferKind::kScratch : BufferKind::kActivation;
    // Mostly whole units, sometimes a ragged size that alignment rounds up.
    b.size = static_cast<uint64_t>(rng.uniform(1, 6)) * alignment;
    if (alignment > 1 && rng.chance(0.2)) b.size -= static_cast<uint64_t>(rng.uniform(1, alignment - 1));
    if (rng.chance(0.05)) b.size = 0;
    problem.buffers.push_back(std::move(b));
  }
  if (allow_fixed && num_buffers > 0 && rng.chance(0.3)) {
    Buffer& b = problem.buffers[static_cast<size_t>(rng.uniform(0, int64_t(num_buffers) - 1))];
    b.fixed_offset = static_cast<uint64_t>(rng.uniform(0, 4)) * alignment;
  }
  return problem;
}

}  // namespace mote::planner
