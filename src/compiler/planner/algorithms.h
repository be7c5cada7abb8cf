#pragma once
// The placement algorithms behind plan(). Internal to the planner library (and its tests).

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/planner/planner.h"
#include "compiler/planner/problem.h"

namespace mote::planner::internal {

using Clock = std::chrono::steady_clock;

// xorshift64: small and fully specified, so randomized searches repeat on every machine.
class Random {
 public:
  // From a state directly (never 0, xorshift's fixed point).
  explicit Random(uint64_t state) : state_(state) {}
  // From any seed, 0 included (mixed into a state).
  static Random seeded(uint64_t seed) {
    return Random(seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL);
  }
  uint64_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }

 private:
  uint64_t state_;
};

// Each returns one offset per buffer. Fixed buffers keep their offsets; zero-size buffers that
// are not fixed sit at 0.
std::vector<uint64_t> place_naive(const Problem& problem);
std::vector<uint64_t> place_first_fit(const Problem& problem);
std::vector<uint64_t> place_best_fit(const Problem& problem);
// First-fit and best-fit (the smaller) with each chain of overlaps placed as one unit, its
// members at offsets chosen together (forward and backward overlaps alternating); greedy_order
// otherwise.
std::vector<uint64_t> place_chain_fit(const Problem& problem);

// TensorFlow Lite Micro's order: fixed buffers first (in problem order), then the others by
// aligned size, largest first, equal sizes in reverse problem order.
std::vector<size_t> greedy_order(const Problem& problem);

struct ExactResult {
  std::vector<uint64_t> offsets;
  bool optimal = false;  // the search proved no smaller arena exists
  uint64_t nodes = 0;
};

// Branch and bound; seed (if given) is the plan to beat. Stops at the deadline or after
// options.node_limit nodes, returning the best plan found.
ExactResult place_exact(const Problem& problem, const std::vector<uint64_t>* seed,
                        const PlanOptions& options, Clock::time_point deadline);

// One decision search of the exact algorithm: a plan of problem (which has no overlaps) whose
// non-fixed buffers all end at or below capacity, found within node_budget nodes (and before the
// deadline) with the child ordering `ordering` (0..3), or none. infeasible: the search finished
// and proved there is none.
struct DecisionResult {
  std::optional<std::vector<uint64_t>> offsets;
  bool infeasible = false;
  uint64_t nodes = 0;
};
DecisionResult decide_exact(const Problem& problem, uint64_t capacity, int ordering,
                            uint64_t node_budget, Clock::time_point deadline);

// Large-neighbourhood search (lns.cc): improves start, a valid plan of problem (which has no
// overlaps), towards lower, a lower bound of its arena. Frees a few dozen buffers at a time
// around one that ends high, keeps the others where they are, and places the freed ones again
// with a small decision search of the exact algorithm. The plan returned is valid, keeps fixed
// buffers (and zero-size ones) where start has them, and is never larger than start. Counted in
// nodes and seeded: the same on every machine until the deadline ends it.
struct LnsOptions {
  uint64_t node_limit = 0;  // decision search nodes in all; 0: no limit
  uint64_t seed = 1;
  size_t min_free = 30, max_free = 90;  // buffers freed per move
  uint64_t sub_nodes = 700;             // nodes per move
  uint64_t patience = 64;               // failed repairs before aiming less low
  uint64_t gravity_percent = 67;        // share of gravity moves
  uint64_t lower_top_percent = 30;      // share of gravity moves that ask for a lower top
};
struct LnsResult {
  std::vector<uint64_t> offsets;
  uint64_t nodes = 0;
  uint64_t moves = 0;
  uint64_t improvements = 0;  // times the best plan got smaller
};
LnsResult improve_lns(const Problem& problem, const std::vector<uint64_t>& start, uint64_t lower,
                      const LnsOptions& options, Clock::time_point deadline);

// Guillotine decomposition (cuts.cc): only where every step from the first to the last is
// exactly full at capacity and no buffer is fixed; cuts the rectangle in time where no buffer
// crosses, or in bytes along a subset of buffers whose live bytes are the same at every step,
// and packs the parts the same way. Finds only packings made by such cuts; never claims
// infeasibility. Counted in nodes.
struct CutsOptions {
  uint64_t node_limit = 0;  // 0: no limit
};
struct CutsResult {
  std::optional<std::vector<uint64_t>> offsets;
  uint64_t nodes = 0;
};
CutsResult decide_cuts(const Problem& problem, uint64_t capacity, const CutsOptions& options,
                       Clock::time_point deadline);
// Whether every step from the first buffer's to the last's holds exactly `bound` bytes (each
// buffer at its aligned size): the perfect packings decide_cuts handles.
bool every_step_full(const Problem& problem, uint64_t bound);

// align_up(max(offset + aligned size), arena alignment).
uint64_t arena_bytes(const Problem& problem, const std::vector<uint64_t>& offsets);

}  // namespace mote::planner::internal
