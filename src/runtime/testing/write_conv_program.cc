// Build-time helper of kernel_variant_test: compiles the builder's conv2d_x3 with Mote's compiler
// (planned for the portable kernels, as every host and M4 build runs them) and runs it on the
// host runtime, writing <dir>/conv2d_x3.mote, .input and .output (and kws_dscnn_like-cortex-m0plus.mote). The test links a runtime built
// with another convolution variant and so cannot link the compiler (two kernels libraries).
#include <cstdio>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "compiler/builder/models.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"

namespace {

void write_file(const std::string& path, std::span<const uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <dir>\n", argv[0]);
    return 2;
  }
  const std::string stem = std::string(argv[1]) + "/conv2d_x3";
  mote::pipeline::CompileOptions options;
  options.plan.cpu = "cortex-m4";
  // The test variant declares no overlap rules: its load check refuses an overlapped plan.
  options.plan.overlap = false;
  const mote::pipeline::Compiled compiled = mote::pipeline::compile(mote::builder::conv2d_x3(), options);
  mote::pipeline::HostProgram host(compiled.program);
  std::vector<uint8_t> input(host.input_size(0));
  mote::pipeline::DefaultInput().fill(input);
  const mote::pipeline::HostRun run = host.run({input});
  write_file(stem + ".mote", compiled.program);
  write_file(stem + ".input", input);
  write_file(stem + ".output", run.outputs.at(0));
  // For other_target_test: a model with an average pool planned for a CPU without DSP.
  mote::pipeline::CompileOptions scalar;
  scalar.plan.cpu = "cortex-m0plus";
  write_file(std::string(argv[1]) + "/kws_dscnn_like-cortex-m0plus.mote",
             mote::pipeline::compile(mote::builder::kws_dscnn_like(), scalar).program);
  return 0;
}
