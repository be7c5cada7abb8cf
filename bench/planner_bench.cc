// Planner benchmark: random problems of 50, 200 and 1000 buffers, loose and tight, and for each
// algorithm the median gap above the lower bound and the median time. Prints a Markdown table.
//
//   build/bench/planner_bench [--instances N] [--time-limit-ms MS] [--sizes 50,200,1000]
//
// Kinds (see compiler/planner/random_problems.h):
//   loose  model-like lifetimes and sizes; the optimum is often a little above the bound;
//   tight  a full 64 KiB x steps rectangle cut into pieces, model-like density (about five
//          buffers live per step): the bound is the optimum;
//   dense  the same cut much finer in both directions (tens of buffers live per step): a
//          harder puzzle than any model's plan, shown to mark the search's limits.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"
#include "compiler/planner/random_problems.h"

namespace {

using mote::planner::Algorithm;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

mote::planner::Problem make(const std::string& kind, size_t buffers, uint64_t seed) {
  using mote::planner::Density;
  if (kind == "loose") return mote::planner::random_loose_problem(buffers, seed);
  return mote::planner::random_tight_problem(buffers, seed, nullptr,
                                             kind == "dense" ? Density::kDense : Density::kModelLike);
}

}  // namespace

int main(int argc, char** argv) {
  int instances = 5;
  double time_limit_ms = 1000;
  std::vector<size_t> sizes = {50, 200, 1000};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--instances" && i + 1 < argc) {
      instances = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--time-limit-ms" && i + 1 < argc) {
      time_limit_ms = std::atof(argv[++i]);
    } else if (arg == "--sizes" && i + 1 < argc) {
      sizes.clear();
      for (char* token = std::strtok(argv[++i], ","); token; token = std::strtok(nullptr, ",")) {
        sizes.push_back(static_cast<size_t>(std::atol(token)));
      }
    } else {
      std::fprintf(stderr, "usage: %s [--instances N] [--time-limit-ms MS] [--sizes 50,200,1000]\n", argv[0]);
      return 2;
    }
  }
  mote::planner::PlanOptions options;
  options.time_limit_ms = time_limit_ms;
  std::printf("Planner benchmark: %d instances per row (seeds 1..%d), exact/auto budget %.0f ms.\n",
              instances, instances, time_limit_ms);
  std::printf("Gap = arena / lower bound - 1. Optimal = proven minimal (meets the bound, or the search finished).\n\n");
  std::printf("| buffers | kind | algorithm | median gap | worst gap | optimal | median ms | worst ms |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|---:|\n");
  for (size_t buffers : sizes) {
    for (const char* kind : {"loose", "tight", "dense"}) {
      for (Algorithm algorithm : mote::planner::kAllAlgorithms) {
        std::vector<double> gaps, times;
        int optimal = 0;
        for (int seed = 1; seed <= instances; ++seed) {
          const mote::planner::Problem problem = make(kind, buffers, static_cast<uint64_t>(seed));
          const uint64_t bound = mote::planner::lower_bound(problem).bytes;
          const auto start = std::chrono::steady_clock::now();
          const mote::planner::Plan plan = mote::planner::plan(problem, algorithm, options);
          const double ms =
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
          gaps.push_back(100.0 * (static_cast<double>(plan.arena_bytes) / static_cast<double>(bound) - 1.0));
          times.push_back(ms);
          optimal += plan.optimal;
        }
        std::printf("| %zu | %s | %s | %.2f%% | %.2f%% | %d/%d | %.1f | %.1f |\n", buffers, kind,
                    std::string(mote::planner::to_string(algorithm)).c_str(), median(gaps),
                    *std::max_element(gaps.begin(), gaps.end()), optimal, instances, median(times),
                    *std::max_element(times.begin(), times.end()));
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
