// libFuzzer target: bytes -> a planning problem -> every algorithm -> the verifier must accept
// each plan, and the plans must agree with each other and with the lower bound. Inputs starting
// with 'i' or '#' are CSV text for planner::read_csv (the `mote plan` file reader); the rest use
// the binary form of planner_bytes.h.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/ir/error.h"
#include "compiler/planner/csv.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"
#include "compiler/planner/verify.h"
#include "fuzz/planner_bytes.h"

namespace {

using mote::planner::Algorithm;
using mote::planner::Plan;
using mote::planner::Problem;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "mote fuzz: %s\n", what.c_str());
  std::abort();
}

void check_plans(const Problem& problem, uint64_t node_limit) {
  try {
    mote::planner::validate(problem);
  } catch (const mote::InputError&) {
    return;
  }
  const mote::planner::LowerBound bound = mote::planner::lower_bound(problem);
  mote::planner::PlanOptions options;
  options.node_limit = node_limit;
  options.time_limit_ms = 10000;  // the node limit binds first: deterministic results
  uint64_t best = UINT64_MAX;
  std::vector<Plan> plans;
  for (Algorithm algorithm : mote::planner::kAllAlgorithms) {
    // plan() verifies too and throws std::logic_error on a bad plan; check independently anyway.
    Plan plan = mote::planner::plan(problem, algorithm, options);
    const std::string name(mote::planner::to_string(algorithm));
    if (const auto error = mote::planner::verify(problem, plan)) {
      finding(name + " plan rejected: " + *error);
    }
    if (plan.arena_bytes < bound.bytes) finding(name + " plan below the lower bound");
    if (plan.arena_bytes % mote::planner::arena_alignment(problem) != 0) {
      finding(name + " arena not a multiple of the arena alignment");
    }
    best = std::min(best, plan.arena_bytes);
    plans.push_back(std::move(plan));
  }
  for (const Plan& plan : plans) {
    if (plan.optimal && plan.arena_bytes != best) {
      finding(plan.algorithm + " claims optimality but another algorithm did better");
    }
  }
  // auto runs both greedy algorithms and keeps the best plan.
  const uint64_t greedy = std::min(plans[1].arena_bytes, plans[2].arena_bytes);
  if (plans[4].arena_bytes > greedy) finding("auto worse than a greedy algorithm");
}

void check_csv(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Problem problem;
  try {
    std::istringstream in(text);
    problem = mote::planner::read_csv(in, "fuzz.csv");
  } catch (const mote::InputError&) {
    return;
  }
  // write_csv is read_csv's inverse.
  std::ostringstream out;
  mote::planner::write_csv(out, problem);
  std::istringstream back(out.str());
  if (!(mote::planner::read_csv(back, "written.csv") == problem)) {
    finding("read_csv(write_csv(problem)) differs from problem");
  }
  check_plans(problem, 200);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 0 && (data[0] == 'i' || data[0] == '#')) {
    check_csv(data, size);
    return 0;
  }
  const mote::fuzz::DecodedProblem decoded = mote::fuzz::decode_problem(data, size);
  check_plans(decoded.problem, decoded.node_limit);
  return 0;
}
