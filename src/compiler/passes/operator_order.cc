#include "compiler/passes/operator_order.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>
#include <utility>

#include "compiler/passes/memory_problem.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"

namespace mote::passes {

std::vector<std::vector<int32_t>> operator_predecessors(const ir::Graph& graph) {
  const size_t num_ops = graph.operators.size();
  std::vector<int32_t> producer(graph.tensors.size(), -1);
  std::vector<int32_t> last_state_user(graph.tensors.size(), -1);
  std::vector<std::vector<int32_t>> predecessors(num_ops);
  for (size_t k = 0; k < num_ops; ++k) {
    const ir::Operator& op = graph.operators[k];
    std::vector<int32_t>& before = predecessors[k];
    auto touch = [&](int32_t t, bool reads) {
      if (t == ir::kNoTensor) return;
      const size_t i = static_cast<size_t>(t);
      if (reads && producer[i] >= 0) before.push_back(producer[i]);
      if (graph.tensors[i].is_variable) {
        if (last_state_user[i] >= 0) before.push_back(last_state_user[i]);
        last_state_user[i] = static_cast<int32_t>(k);
      }
    };
    for (int32_t t : op.inputs) touch(t, true);
    for (int32_t t : op.outputs) touch(t, false);
    for (int32_t t : op.outputs) producer[static_cast<size_t>(t)] = static_cast<int32_t>(k);
    std::erase(before, static_cast<int32_t>(k));
    std::sort(before.begin(), before.end());
    before.erase(std::unique(before.begin(), before.end()), before.end());
  }
  return predecessors;
}

bool has_one_order(const ir::Graph& graph) {
  const std::vector<std::vector<int32_t>> predecessors = operator_predecessors(graph);
  for (size_t k = 1; k < predecessors.size(); ++k) {
    const std::vector<int32_t>& before = predecessors[k];
    if (!std::binary_search(before.begin(), before.end(), static_cast<int32_t>(k - 1))) {
      return false;
    }
  }
  return true;
}

bool is_topological_order(const ir::Graph& graph, std::span<const int32_t> order) {
  const size_t num_ops = graph.operators.size();
  if (order.size() != num_ops) return false;
  std::vector<int32_t> step_of(num_ops, -1);
  for (size_t step = 0; step < num_ops; ++step) {
    const int32_t k = order[step];
    if (k < 0 || static_cast<size_t>(k) >= num_ops || step_of[static_cast<size_t>(k)] >= 0) {
      return false;
    }
    step_of[static_cast<size_t>(k)] = static_cast<int32_t>(step);
  }
  const std::vector<std::vector<int32_t>> predecessors = operator_predecessors(graph);
  for (size_t k = 0; k < num_ops; ++k) {
    for (int32_t p : predecessors[k]) {
      if (step_of[static_cast<size_t>(p)] >= step_of[k]) return false;
    }
  }
  return true;
}

ir::Graph reordered(const ir::Graph& graph, std::span<const int32_t> order) {
  if (!is_topological_order(graph, order)) {
    throw std::logic_error("reordered: not a topological order of the graph's operators");
  }
  ir::Graph out = graph;  // tensors, inputs, outputs and what the model says of them
  out.operators.clear();
  out.operators.reserve(order.size());
  for (int32_t k : order) out.operators.push_back(graph.operators[static_cast<size_t>(k)]);
  return out;
}

std::vector<int32_t> model_order(const ir::Graph& graph) {
  std::vector<int32_t> order(graph.operators.size());
  std::iota(order.begin(), order.end(), 0);
  return order;
}

namespace {

std::vector<std::vector<int32_t>> successors_of(
    const std::vector<std::vector<int32_t>>& predecessors) {
  std::vector<std::vector<int32_t>> successors(predecessors.size());
  for (size_t k = 0; k < predecessors.size(); ++k) {
    for (int32_t p : predecessors[k]) {
      successors[static_cast<size_t>(p)].push_back(static_cast<int32_t>(k));
    }
  }
  return successors;
}

// Every topological order, the smallest operator index first at each choice (so the model's own
// order comes first); false, with `orders` incomplete, when there are more than `limit`.
bool enumerate_orders(const std::vector<std::vector<int32_t>>& predecessors, uint64_t limit,
                      std::vector<std::vector<int32_t>>& orders) {
  const size_t num_ops = predecessors.size();
  const std::vector<std::vector<int32_t>> successors = successors_of(predecessors);
  std::vector<int32_t> waiting(num_ops, 0);  // predecessors not yet placed
  for (size_t k = 0; k < num_ops; ++k) waiting[k] = static_cast<int32_t>(predecessors[k].size());
  std::vector<int32_t> prefix;
  std::vector<bool> placed(num_ops, false);
  bool complete = true;
  auto extend = [&](auto&& self) -> void {
    if (!complete) return;
    if (prefix.size() == num_ops) {
      if (orders.size() >= limit) {
        complete = false;
        return;
      }
      orders.push_back(prefix);
      return;
    }
    for (size_t k = 0; k < num_ops && complete; ++k) {
      if (placed[k] || waiting[k] != 0) continue;
      placed[k] = true;
      prefix.push_back(static_cast<int32_t>(k));
      for (int32_t s : successors[k]) --waiting[static_cast<size_t>(s)];
      self(self);
      for (int32_t s : successors[k]) ++waiting[static_cast<size_t>(s)];
      prefix.pop_back();
      placed[k] = false;
    }
  };
  extend(extend);
  return complete;
}

// What local moves compare: the lower bound, then the live bytes summed over the steps (a lower
// total below the peak leaves the placement more room).
struct OrderCost {
  uint64_t lower_bound = 0;
  uint64_t live_total = 0;
  auto operator<=>(const OrderCost&) const = default;
};

class OrderPricer {
 public:
  OrderPricer(const ir::Graph& graph, kernels::Extension extension, uint32_t alignment,
              bool with_overlaps)
      : graph_(graph), extension_(extension), alignment_(alignment), overlaps_(with_overlaps) {}

  planner::Problem problem(std::span<const int32_t> order) const {
    return build_memory_problem(graph_, extension_, alignment_, overlaps_, order).problem;
  }

  OrderCost cost(std::span<const int32_t> order) {
    ++priced_;
    const planner::Problem p = problem(order);
    OrderCost c;
    c.lower_bound = planner::lower_bound(p).bytes;
    for (uint64_t live : planner::live_bytes_per_step(p)) c.live_total += live;
    return c;
  }

  uint64_t greedy_arena(std::span<const int32_t> order) const {
    const planner::Problem p = problem(order);
    uint64_t best = planner::plan(p, planner::Algorithm::kFirstFit).arena_bytes;
    best = std::min(best, planner::plan(p, planner::Algorithm::kBestFit).arena_bytes);
    // As auto does: chain-fit only where there are overlaps.
    if (!p.overlaps.empty()) {
      best = std::min(best, planner::plan(p, planner::Algorithm::kChainFit).arena_bytes);
    }
    return best;
  }

  uint64_t priced() const { return priced_; }

 private:
  const ir::Graph& graph_;
  kernels::Extension extension_;
  uint32_t alignment_;
  bool overlaps_;
  uint64_t priced_ = 0;
};

struct Candidate {
  std::vector<int32_t> order;
  OrderCost cost;
  size_t found = 0;  // when it was found: ties go to the earlier one
};

// Hill climbing from the model's order: move one operator to another step between its last
// predecessor and its first successor, keep the first move that lowers the cost, start the sweep
// again; until no move helps or `budget` orders were priced. Every order priced is a candidate.
std::vector<Candidate> local_moves(const ir::Graph& graph, OrderPricer& pricer, uint64_t budget) {
  const std::vector<std::vector<int32_t>> predecessors = operator_predecessors(graph);
  const size_t num_ops = predecessors.size();
  const std::vector<std::vector<int32_t>> successors = successors_of(predecessors);
  std::vector<Candidate> seen;
  std::set<std::vector<int32_t>> known;
  std::vector<int32_t> current = model_order(graph);
  OrderCost current_cost = pricer.cost(current);
  seen.push_back({current, current_cost, 0});
  known.insert(current);
  uint64_t priced = 1;
  bool improved = true;
  while (improved && priced < budget) {
    improved = false;
    std::vector<size_t> step_of(num_ops);
    for (size_t s = 0; s < num_ops; ++s) step_of[static_cast<size_t>(current[s])] = s;
    for (size_t from = 0; from < num_ops && !improved && priced < budget; ++from) {
      const size_t k = static_cast<size_t>(current[from]);
      size_t lo = 0, hi = num_ops - 1;
      for (int32_t p : predecessors[k]) lo = std::max(lo, step_of[static_cast<size_t>(p)] + 1);
      for (int32_t s : successors[k]) hi = std::min(hi, step_of[static_cast<size_t>(s)] - 1);
      for (size_t to = lo; to <= hi && !improved && priced < budget; ++to) {
        if (to == from) continue;
        std::vector<int32_t> moved = current;
        moved.erase(moved.begin() + static_cast<std::ptrdiff_t>(from));
        moved.insert(moved.begin() + static_cast<std::ptrdiff_t>(to), static_cast<int32_t>(k));
        if (!known.insert(moved).second) continue;
        const OrderCost cost = pricer.cost(moved);
        ++priced;
        seen.push_back({moved, cost, seen.size()});
        if (cost < current_cost) {
          current = std::move(moved);
          current_cost = cost;
          improved = true;
        }
      }
    }
  }
  return seen;
}

}  // namespace

OrderRanking rank_orders(const ir::Graph& graph, kernels::Extension extension, uint32_t alignment,
                         bool with_overlaps, const OrderLimits& limits) {
  OrderPricer pricer(graph, extension, alignment, with_overlaps);
  OrderRanking ranking;
  std::vector<Candidate> candidates;
  std::vector<std::vector<int32_t>> orders;
  if (enumerate_orders(operator_predecessors(graph), limits.max_enumerated, orders)) {
    ranking.exhaustive = true;
    for (size_t i = 0; i < orders.size(); ++i) {
      const OrderCost cost = pricer.cost(orders[i]);
      candidates.push_back({std::move(orders[i]), cost, i});
    }
  } else {
    orders.clear();
    candidates = local_moves(graph, pricer, limits.max_moves);
  }
  ranking.considered = pricer.priced();

  // Place the orders with the lowest bounds; one whose bound is not below the best greedy arena
  // so far cannot beat it (a tie keeps the order found first).
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     return a.cost.lower_bound < b.cost.lower_bound;
                   });
  uint64_t best = UINT64_MAX;
  for (const Candidate& c : candidates) {
    if (ranking.ranked.size() >= limits.max_placed || c.cost.lower_bound >= best) break;
    const uint64_t arena = pricer.greedy_arena(c.order);
    best = std::min(best, arena);
    ranking.ranked.push_back({c.order, c.cost.lower_bound, arena});
  }
  // Ties: the smaller bound, then the order found first (candidates are sorted by bound, stable).
  std::stable_sort(ranking.ranked.begin(), ranking.ranked.end(),
                   [](const RankedOrder& a, const RankedOrder& b) {
                     return a.greedy_arena < b.greedy_arena;
                   });
  return ranking;
}

}  // namespace mote::passes
