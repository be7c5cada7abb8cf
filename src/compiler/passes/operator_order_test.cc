#include "compiler/passes/operator_order.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/builder/models.h"
#include "compiler/passes/memory_problem.h"
#include "compiler/planner/lower_bound.h"

namespace mote::passes {
namespace {

using builder::interleaved_branches;

constexpr kernels::Extension kDsp = kernels::Extension::kDsp;

TEST(OperatorOrder, ChainsHaveOneOrder) {
  EXPECT_TRUE(has_one_order(builder::conv_chain(4)));
  EXPECT_TRUE(has_one_order(builder::kws_dscnn_like()));
  EXPECT_TRUE(has_one_order(builder::vww_mobilenet_like()));
  EXPECT_FALSE(has_one_order(interleaved_branches()));
  EXPECT_FALSE(has_one_order(builder::resnet8_like()));
}

TEST(OperatorOrder, PredecessorsAreProducers) {
  const ir::Graph graph = interleaved_branches();
  const std::vector<std::vector<int32_t>> before = operator_predecessors(graph);
  ASSERT_EQ(before.size(), 5u);
  EXPECT_TRUE(before[0].empty());
  EXPECT_TRUE(before[1].empty());
  EXPECT_EQ(before[2], std::vector<int32_t>{0});
  EXPECT_EQ(before[3], std::vector<int32_t>{1});
  EXPECT_EQ(before[4], (std::vector<int32_t>{2, 3}));
}

TEST(OperatorOrder, TopologicalOrdersAreChecked) {
  const ir::Graph graph = interleaved_branches();
  EXPECT_TRUE(is_topological_order(graph, model_order(graph)));
  EXPECT_TRUE(is_topological_order(graph, std::vector<int32_t>{1, 3, 0, 2, 4}));
  EXPECT_FALSE(is_topological_order(graph, std::vector<int32_t>{2, 0, 1, 3, 4}));  // 2 needs 0
  EXPECT_FALSE(is_topological_order(graph, std::vector<int32_t>{0, 1, 2, 3}));     // one short
  EXPECT_FALSE(is_topological_order(graph, std::vector<int32_t>{0, 0, 2, 3, 4}));  // twice
  EXPECT_THROW(reordered(graph, std::vector<int32_t>{4, 0, 1, 2, 3}), std::logic_error);

  const std::vector<int32_t> order = {1, 3, 0, 2, 4};
  const ir::Graph moved = reordered(graph, order);
  ASSERT_EQ(moved.operators.size(), graph.operators.size());
  for (size_t step = 0; step < order.size(); ++step) {
    EXPECT_EQ(moved.operators[step], graph.operators[static_cast<size_t>(order[step])]);
  }
  EXPECT_EQ(moved.tensors, graph.tensors);
  EXPECT_EQ(moved.inputs, graph.inputs);
  EXPECT_EQ(moved.outputs, graph.outputs);
}

TEST(OperatorOrder, StateKeepsTheModelsOrder) {
  // Two operators that read and write one variable tensor and share no data otherwise still
  // keep their order: the second reads what the first left in the state.
  ir::Graph graph = interleaved_branches();
  ir::Tensor state;
  state.name = "state";
  state.shape = {1, 4};
  state.is_variable = true;
  graph.tensors.push_back(state);
  const auto s = static_cast<int32_t>(graph.tensors.size() - 1);
  graph.operators[0].inputs.push_back(s);
  graph.operators[1].inputs.push_back(s);
  EXPECT_EQ(operator_predecessors(graph)[1], std::vector<int32_t>{0});
  EXPECT_FALSE(is_topological_order(graph, std::vector<int32_t>{1, 3, 0, 2, 4}));
}

TEST(OperatorOrder, RanksEveryOrderOfASmallGraphAndFindsTheSmallerArena) {
  const ir::Graph graph = interleaved_branches();
  const OrderRanking ranking = rank_orders(graph, kDsp, 16, true);
  EXPECT_TRUE(ranking.exhaustive);
  EXPECT_EQ(ranking.considered, 6u);  // the two branches of two interleave in C(4, 2) ways
  ASSERT_FALSE(ranking.ranked.empty());
  const RankedOrder& best = ranking.ranked.front();
  EXPECT_TRUE(is_topological_order(graph, best.order));
  EXPECT_NE(best.order, model_order(graph));

  // One branch runs to its end before the other's 8 KiB tensor exists.
  const auto step_of = [&](int32_t op) {
    return std::find(best.order.begin(), best.order.end(), op) - best.order.begin();
  };
  EXPECT_TRUE(step_of(2) < step_of(1) || step_of(3) < step_of(0));

  const uint64_t model_bound =
      planner::lower_bound(build_memory_problem(graph, kDsp, 16).problem).bytes;
  EXPECT_LT(best.lower_bound, model_bound);
  EXPECT_LE(best.lower_bound, best.greedy_arena);
  for (const RankedOrder& r : ranking.ranked) EXPECT_LE(best.greedy_arena, r.greedy_arena);
  // Priced without building the reordered graph, the same problem as the reordered graph's.
  EXPECT_EQ(planner::lower_bound(
                build_memory_problem(reordered(graph, best.order), kDsp, 16).problem).bytes,
            best.lower_bound);
}

TEST(OperatorOrder, BeyondTheEnumerationLimitLocalMovesStillFindIt) {
  const ir::Graph graph = interleaved_branches();
  OrderLimits limits;
  limits.max_enumerated = 2;
  const OrderRanking ranking = rank_orders(graph, kDsp, 16, true, limits);
  EXPECT_FALSE(ranking.exhaustive);
  ASSERT_FALSE(ranking.ranked.empty());
  EXPECT_TRUE(is_topological_order(graph, ranking.ranked.front().order));
  EXPECT_LT(ranking.ranked.front().lower_bound,
            planner::lower_bound(build_memory_problem(graph, kDsp, 16).problem).bytes);
  // The same answer every time.
  EXPECT_EQ(rank_orders(graph, kDsp, 16, true, limits).ranked.front().order,
            ranking.ranked.front().order);
}

}  // namespace
}  // namespace mote::passes
