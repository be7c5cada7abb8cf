// Planner benchmark: random problems of 50, 200 and 1000 buffers, loose, tight and dense, and for
// each algorithm the median gap above the lower bound and the median time. Prints a Markdown
// table, then the acceptance figure: auto on dense 1,000-buffer problems within 10 s, the
// median gap to the best known arena, the median time and how many plans are proven optimal.
// Recorded in bench/planner.md.
//
//   build/bench/planner_bench [--instances N] [--time-limit-ms MS | --node-limit N]
//                             [--sizes 50,200,1000] [--kinds loose,tight,dense]
//                             [--acceptance-instances N] [--acceptance-only | --no-acceptance]
//   build/bench/planner_bench --csv a.csv,b.csv [--csv-alignment A] [--time-limit-ms MS]
//
// --csv plans problems read from CSV files instead (compiler/planner/csv.h, the format of
// MiniMalloc's benchmarks, e.g. its benchmarks/challenging/*.csv; buffers without an alignment
// column get A bytes, default 1 as there) with auto, and prints arena, bound, proof and time.
//
// Kinds (see compiler/planner/random_problems.h):
//   loose  model-like lifetimes and sizes; the optimum is often a little above the bound;
//   tight  a full 64 KiB x steps rectangle cut into pieces, model-like density (about five
//          buffers live per step): the bound is the optimum;
//   dense  the same cut much finer in both directions (tens of buffers live per step): a
//          harder puzzle than any model's plan, shown to mark the search's limits.
//
// --node-limit N stops the exact search (and auto's) after N nodes instead of a time budget:
// the table then repeats exactly on every machine and load, and leaves out the times
// (bench/planner.md's table, which the ReadmeFigures test reruns).
//
// Exit status 1 if the acceptance run meets a claim of optimality above the best known arena (a
// wrong proof); the figures themselves never fail the run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <fstream>
#include <vector>

#include "compiler/planner/csv.h"
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

std::vector<std::string> split(char* list) {
  std::vector<std::string> items;
  for (char* token = std::strtok(list, ","); token; token = std::strtok(nullptr, ",")) items.push_back(token);
  return items;
}

mote::planner::Problem make(const std::string& kind, size_t buffers, uint64_t seed) {
  using mote::planner::Density;
  if (kind == "loose") return mote::planner::random_loose_problem(buffers, seed);
  return mote::planner::random_tight_problem(buffers, seed, nullptr,
                                             kind == "dense" ? Density::kDense : Density::kModelLike);
}

// Every algorithm on every size and kind: one table row each.
void table(int instances, const mote::planner::PlanOptions& options,
           const std::vector<size_t>& sizes, const std::vector<std::string>& kinds) {
  const bool timed = options.node_limit == 0;
  if (timed) {
    std::printf("Planner benchmark: %d instances per row (seeds 1..%d), exact/auto budget %.0f ms.\n",
                instances, instances, options.time_limit_ms);
  } else {
    std::printf("Planner benchmark: %d instances per row (seeds 1..%d), exact/auto budget %llu search "
                "nodes.\n", instances, instances,
                static_cast<unsigned long long>(options.node_limit));
  }
  std::printf("Gap = arena / lower bound - 1. Optimal = proven minimal (meets the bound, or the search finished).\n\n");
  std::printf("| buffers | kind | algorithm | median gap | worst gap | optimal |%s\n",
              timed ? " median ms | worst ms |" : "");
  std::printf("|---:|---|---|---:|---:|---:|%s\n", timed ? "---:|---:|" : "");
  for (size_t buffers : sizes) {
    for (const std::string& kind : kinds) {
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
        std::printf("| %zu | %s | %s | %.2f%% | %.2f%% | %d/%d |", buffers, kind.c_str(),
                    std::string(mote::planner::to_string(algorithm)).c_str(), median(gaps),
                    *std::max_element(gaps.begin(), gaps.end()), optimal, instances);
        if (timed) {
          std::printf(" %.1f | %.1f |", median(times), *std::max_element(times.begin(), times.end()));
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }
}

// The acceptance: "on 1,000-buffer dense problems the auto plan's median gap to the best
// known arena <= 1 % within 10 s, proven optimal where it claims it". A dense cut packing fills
// its rectangle, so the best known arena is its lower bound, which is also the optimum: a claim
// of optimality above it is a wrong proof. Returns the number of wrong proofs.
int acceptance(int instances) {
  constexpr size_t kBuffers = 1000;
  constexpr double kBudgetMs = 10'000;
  mote::planner::PlanOptions options;
  options.time_limit_ms = kBudgetMs;
  std::printf("Acceptance: auto on dense %zu-buffer problems, %.0f s each, seeds 1..%d.\n\n",
              kBuffers, kBudgetMs / 1000, instances);
  std::printf("| seed | best known arena | auto arena | gap | proven optimal | ms |\n");
  std::printf("|---:|---:|---:|---:|---|---:|\n");
  std::vector<double> gaps, times;
  int proven = 0, wrong = 0;
  for (int seed = 1; seed <= instances; ++seed) {
    const mote::planner::Problem problem = make("dense", kBuffers, static_cast<uint64_t>(seed));
    const uint64_t best_known = mote::planner::lower_bound(problem).bytes;
    const auto start = std::chrono::steady_clock::now();
    const mote::planner::Plan plan = mote::planner::plan(problem, Algorithm::kAuto, options);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const double gap =
        100.0 * (static_cast<double>(plan.arena_bytes) / static_cast<double>(best_known) - 1.0);
    std::printf("| %d | %llu | %llu | %.2f%% | %s | %.0f |\n", seed,
                static_cast<unsigned long long>(best_known),
                static_cast<unsigned long long>(plan.arena_bytes), gap, plan.optimal ? "yes" : "no", ms);
    std::fflush(stdout);
    gaps.push_back(gap);
    times.push_back(ms);
    proven += plan.optimal;
    wrong += plan.optimal && plan.arena_bytes != best_known;
  }
  const double gap = median(gaps);
  std::printf("\nmedian gap %.2f%% (target <= 1%%: %s), median %.0f ms, proven optimal %d/%d, wrong proofs %d\n",
              gap, gap <= 1.0 ? "met" : "not met", median(times), proven, instances, wrong);
  return wrong;
}

// Auto on each CSV problem.
void csv_problems(const std::vector<std::string>& files, uint32_t alignment, double time_limit_ms) {
  mote::planner::PlanOptions options;
  options.time_limit_ms = time_limit_ms;
  std::printf("Auto on CSV problems, budget %.0f ms.\n\n", time_limit_ms);
  std::printf("| problem | buffers | best greedy | auto arena | lower bound | proven optimal | ms |\n");
  std::printf("|---|---:|---:|---:|---:|---|---:|\n");
  for (const std::string& file : files) {
    std::ifstream in(file);
    if (!in) {
      std::printf("| %s | cannot open | | | | | |\n", file.c_str());
      continue;
    }
    mote::planner::Problem problem;
    try {
      problem = mote::planner::read_csv(in, file, alignment);
    } catch (const std::exception& error) {
      std::printf("| %s | %s | | | | | |\n", file.c_str(), error.what());
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    const std::vector<mote::planner::Plan> plans =
        mote::planner::plan_with_details(problem, Algorithm::kAuto, options);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // plans: auto, naive, first-fit, best-fit, exact.
    const uint64_t greedy = std::min(plans[2].arena_bytes, plans[3].arena_bytes);
    std::printf("| %s | %zu | %llu | %llu | %llu | %s | %.0f |\n", file.c_str(), problem.buffers.size(),
                static_cast<unsigned long long>(greedy), static_cast<unsigned long long>(plans[0].arena_bytes),
                static_cast<unsigned long long>(mote::planner::lower_bound(problem).bytes),
                plans[0].optimal ? "yes" : "no", ms);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int instances = 5;
  int acceptance_instances = 16;
  bool run_table = true, run_acceptance = true;
  double time_limit_ms = 1000;
  uint64_t node_limit = 0;
  std::vector<size_t> sizes = {50, 200, 1000};
  std::vector<std::string> kinds = {"loose", "tight", "dense"};
  std::vector<std::string> csv_files;
  uint32_t csv_alignment = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--instances" && i + 1 < argc) {
      instances = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--time-limit-ms" && i + 1 < argc) {
      time_limit_ms = std::atof(argv[++i]);
    } else if (arg == "--node-limit" && i + 1 < argc) {
      node_limit = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--sizes" && i + 1 < argc) {
      sizes.clear();
      for (const std::string& size : split(argv[++i])) sizes.push_back(static_cast<size_t>(std::atol(size.c_str())));
    } else if (arg == "--kinds" && i + 1 < argc) {
      kinds = split(argv[++i]);
    } else if (arg == "--acceptance-instances" && i + 1 < argc) {
      acceptance_instances = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--csv" && i + 1 < argc) {
      csv_files = split(argv[++i]);
    } else if (arg == "--csv-alignment" && i + 1 < argc) {
      csv_alignment = static_cast<uint32_t>(std::max(1, std::atoi(argv[++i])));
    } else if (arg == "--acceptance-only") {
      run_table = false;
    } else if (arg == "--no-acceptance") {
      run_acceptance = false;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--instances N] [--time-limit-ms MS | --node-limit N] [--sizes 50,200,1000] "
                   "[--kinds loose,tight,dense] [--acceptance-instances N] "
                   "[--acceptance-only | --no-acceptance] | --csv a.csv,b.csv [--csv-alignment A]\n",
                   argv[0]);
      return 2;
    }
  }
  for (const std::string& kind : kinds) {
    if (kind != "loose" && kind != "tight" && kind != "dense") {
      std::fprintf(stderr, "planner_bench: unknown kind '%s' (loose, tight, dense)\n", kind.c_str());
      return 2;
    }
  }
  if (!csv_files.empty()) {
    csv_problems(csv_files, csv_alignment, time_limit_ms);
    return 0;
  }
  mote::planner::PlanOptions options;
  options.time_limit_ms = time_limit_ms;
  if (node_limit > 0) {
    // The node limit binds: no run may end at a wall-clock budget.
    options.node_limit = node_limit;
    options.time_limit_ms = 1e9;
  }
  if (run_table) table(instances, options, sizes, kinds);
  if (run_table && run_acceptance) std::printf("\n");
  return run_acceptance && acceptance(acceptance_instances) > 0 ? 1 : 0;
}
