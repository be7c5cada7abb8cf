// Calls kernels once each, for counting instructions per call with callgrind:
//   mote_kernel_calls <layer>...      each named layer once
//   mote_kernel_calls model:<m>       every layer of MLPerf Tiny model m (kws, vww, ic, ad) as many
//                                     times as the model has it
//   mote_kernel_calls --list          layer names
//   --kernel-sums                     fully connected with precomputed kernel sums
// Only mote_bench_run_layer runs kernels, so
//   valgrind --tool=callgrind --toggle-collect=mote_bench_run_layer build/bench/mote_kernel_calls kws_pw_64_64
// counts exactly the kernel's instructions. bench/callgrind_kernels.sh prints a table of all layers.

#include <cstdio>
#include <cstring>
#include <string>

#include "kernel_layers.h"

// The only function callgrind collects in: one kernel call, nothing else.
extern "C" __attribute__((noinline)) void mote_bench_run_layer(mote::bench::Layer* layer) {
  layer->Run();
}

int main(int argc, char** argv) {
  bool kernel_sums = false;
  std::vector<std::string> wanted;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--list") == 0) {
      for (const auto& spec : mote::bench::Layers()) std::printf("%s\n", spec.name);
      return 0;
    }
    if (std::strcmp(argv[i], "--kernel-sums") == 0) {
      kernel_sums = true;
    } else {
      wanted.push_back(argv[i]);
    }
  }
  int ran = 0;
  for (const auto& spec : mote::bench::Layers()) {
    int32_t calls = 0;
    for (const auto& w : wanted) {
      if (w == spec.name) calls = 1;
      if (w == std::string("model:") + spec.model) calls = spec.count;
    }
    if (calls == 0) continue;
    mote::bench::Layer layer(spec, mote::kernels::Extension::kScalar, kernel_sums);
    for (int32_t c = 0; c < calls; ++c) mote_bench_run_layer(&layer);
    unsigned checksum = 0;
    for (int8_t v : layer.output()) checksum = checksum * 31 + static_cast<uint8_t>(v);
    std::printf("%-24s x%d MACs %9lld checksum %08x\n", spec.name, calls,
                static_cast<long long>(layer.macs() * calls), checksum);
    ++ran;
  }
  return ran > 0 ? 0 : 1;
}
