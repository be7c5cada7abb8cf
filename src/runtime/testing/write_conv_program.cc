// Build-time helper of kernel_variant_test, other_target_test and portable_kernel_test: compiles
// the builder's conv2d_x3 with Mote's compiler (planned for the portable kernels, as every host
// and M4 build runs them) and runs it on the host runtime, writing <dir>/conv2d_x3.mote, .input
// and .output; kws_dscnn_like-cortex-m0plus.mote; wide_pool.mote, .input and .output;
// kws_streamed.mote, .input and .output (kws_dscnn_like streamed, for cortex-m4); and
// one_input.mote, .input and .output (a depthwise of one input channel, for cortex-m4). The
// tests link runtimes built with other kernel variants and so cannot link the compiler (two
// kernels libraries).
#include <cstdio>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"

namespace {

void write_file(const std::string& path, std::span<const uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// `program` with its input (DefaultInput) and the host runtime's output, as <stem>.mote, .input
// and .output.
void write_run(const std::string& stem, const std::vector<uint8_t>& program) {
  mote::pipeline::HostProgram host(program);
  std::vector<uint8_t> input(host.input_size(0));
  mote::pipeline::DefaultInput().fill(input);
  const mote::pipeline::HostRun run = host.run({input});
  write_file(stem + ".mote", program);
  write_file(stem + ".input", input);
  write_file(stem + ".output", run.outputs.at(0));
}

// A pointwise convolution, which the dsp kernels take, then an average pool over 400 pixels,
// which they do not (windows of at most 256): planned for cortex-m4, the pool runs the portable
// kernel (Operator.portable_kernel), the convolution the dsp one.
mote::ir::Graph wide_pool() {
  mote::builder::ModelBuilder b(7);
  auto x = b.add_input({1, 20, 20, 8}, mote::ir::DataType::kInt8, 0.05f, -3);
  x = b.add_conv2d(x, 8, 1, 1, 1, mote::ir::Padding::kValid, mote::ir::Activation::kRelu);
  b.mark_output(b.add_average_pool(x, 20, 20, 1));
  return b.build();
}

// A depthwise convolution of one input channel and depth multiplier 8 (micro_speech's first
// layer, smaller), then one of multiplier 1 beside it for contrast.
mote::ir::Graph one_input() {
  mote::builder::ModelBuilder b(11);
  auto x = b.add_input({1, 25, 20, 1}, mote::ir::DataType::kInt8, 0.1f, -128);
  x = b.add_depthwise(x, 10, 8, 2, mote::ir::Padding::kSame, mote::ir::Activation::kRelu, 8);
  b.mark_output(b.add_depthwise(x, 3, 3, 1, mote::ir::Padding::kSame));
  return b.build();
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
  // The test variant declares no overlap rules: its load check refuses an overlapped plan. The
  // float input stays float: the tests write its bytes and look for the QUANTIZE's kernel.
  options.plan.overlap = false;
  options.plan.quantize_float_inputs = false;
  const mote::pipeline::Compiled compiled = mote::pipeline::compile(mote::builder::conv2d_x3(), options);
  write_run(stem, compiled.program);
  // For other_target_test: a model with an average pool planned for a CPU without DSP.
  mote::pipeline::CompileOptions scalar;
  scalar.plan.cpu = "cortex-m0plus";
  write_file(std::string(argv[1]) + "/kws_dscnn_like-cortex-m0plus.mote",
             mote::pipeline::compile(mote::builder::kws_dscnn_like(), scalar).program);
  mote::pipeline::CompileOptions m4;
  m4.plan.cpu = "cortex-m4";
  write_run(std::string(argv[1]) + "/wide_pool", mote::pipeline::compile(wide_pool(), m4).program);
  write_run(std::string(argv[1]) + "/one_input", mote::pipeline::compile(one_input(), m4).program);
  m4.plan.stream = true;
  write_run(std::string(argv[1]) + "/kws_streamed",
            mote::pipeline::compile(mote::builder::kws_dscnn_like(), m4).program);
  return 0;
}
