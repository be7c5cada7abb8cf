// Google Benchmark timings of the convolution-family kernels at MLPerf Tiny layer shapes, with
// scratch sized for the scalar extension (the host runs the portable kernels).
//   build/bench/mote_kernels_bench [--benchmark_filter=kws]

#include <benchmark/benchmark.h>

#include "kernel_layers.h"

namespace {

void BM_Layer(benchmark::State& state, const mote::bench::LayerSpec& spec) {
  mote::bench::Layer layer(spec, mote::kernels::Extension::kScalar);
  for (auto _ : state) {
    layer.Run();
    benchmark::DoNotOptimize(layer.output().data());
    benchmark::ClobberMemory();
  }
  state.counters["MACs"] = static_cast<double>(layer.macs());
  state.counters["MAC/s"] = benchmark::Counter(static_cast<double>(layer.macs()),
                                               benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

int main(int argc, char** argv) {
  for (const auto& spec : mote::bench::Layers()) {
    benchmark::RegisterBenchmark(spec.name, BM_Layer, spec);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
