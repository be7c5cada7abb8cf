// Writes the fuzzers' seed corpora from the project's own builder and compiler, so no binary
// input is ever committed:
//   make_seeds OUT_DIR
// OUT_DIR/fuzz_tflite_reader/*.tflite   small builder models (also with external buffers)
// OUT_DIR/fuzz_program_load/*.mote      those models compiled for a scalar, DSP and MVE CPU
// OUT_DIR/fuzz_planner/*.bin, *.csv     their memory problems and random ones (planner_bytes.h)

#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/emit/emit.h"
#include "compiler/pipeline/compile.h"
#include "compiler/planner/csv.h"
#include "compiler/planner/random_problems.h"
#include "fuzz/planner_bytes.h"

namespace {

namespace fs = std::filesystem;
using mote::builder::ModelBuilder;
using mote::builder::TensorId;
using mote::ir::Activation;
using mote::ir::DataType;
using mote::ir::Padding;

void write(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// Small graphs that reach the operators and kernel variants the named models do not.
// An int8 sequence through a float LSTM or GRU (MoteFloatRnn, which only the ONNX reader makes,
// so no .tflite seed): its load checks and float scratch.
mote::ir::Graph float_rnn_graph(mote::ir::RnnCell cell) {
  namespace ir = mote::ir;
  const int32_t steps = 3, inputs = 4, hidden = 5;
  const int32_t gates = cell == ir::RnnCell::kLstm ? 4 : 3;
  ir::Graph g;
  const auto add = [&](ir::DataType type, std::vector<int32_t> shape, bool constant) {
    ir::Tensor t;
    t.name = "t" + std::to_string(g.tensors.size());
    t.type = type;
    t.shape = std::move(shape);
    if (type == ir::DataType::kInt8) t.quantization = ir::Quantization{{0.05f}, {3}, 0};
    if (constant) {
      t.is_constant = true;
      std::vector<float> values(static_cast<size_t>(t.num_elements()));
      for (size_t i = 0; i < values.size(); ++i) values[i] = 0.01f * static_cast<float>(i % 17) - 0.08f;
      t.data.resize(values.size() * sizeof(float));
      std::memcpy(t.data.data(), values.data(), t.data.size());
    }
    g.tensors.push_back(std::move(t));
    return static_cast<int32_t>(g.tensors.size() - 1);
  };
  const int32_t x = add(ir::DataType::kInt8, {steps, 1, inputs}, false);
  const int32_t w = add(ir::DataType::kFloat32, {1, gates * hidden, inputs}, true);
  const int32_t r = add(ir::DataType::kFloat32, {1, gates * hidden, hidden}, true);
  const int32_t b = add(ir::DataType::kFloat32, {1, 2 * gates * hidden}, true);
  const int32_t y = add(ir::DataType::kInt8, {steps, 1, 1, hidden}, false);
  const int32_t y_h = add(ir::DataType::kInt8, {1, 1, hidden}, false);
  ir::Operator op;
  op.type = ir::OpType::kFloatRnn;
  op.inputs = {x, w, r, b};
  op.outputs = {y, y_h};
  op.options = ir::RnnOptions{cell, ir::RnnDirection::kForward, false};
  g.operators.push_back(std::move(op));
  g.inputs = {x};
  g.outputs = {y, y_h};
  return g;
}

std::vector<mote::builder::NamedModel> small_models() {
  std::vector<mote::builder::NamedModel> models;
  {  // strided valid conv, dilated depthwise with a multiplier, per-channel FC, int16-free head
    ModelBuilder b(2);
    TensorId x = b.add_input({1, 9, 9, 4}, DataType::kInt8, 0.05f, 3);
    x = b.add_conv2d(x, 6, 3, 3, 2, Padding::kValid, Activation::kRelu6);
    x = b.add_depthwise(x, 2, 2, 1, Padding::kSame, Activation::kNone, 2, true, 2);
    x = b.add_average_pool(x, 2, 2, 1, Padding::kSame);
    x = b.add_reshape(x, {1, -1});
    x = b.add_fully_connected(x, 5, Activation::kRelu, true, /*per_channel=*/true);
    b.mark_output(b.add_softmax(x));
    b.mark_output(b.add_operator(mote::ir::OpType::kLogSoftmax, {x}, std::monostate{}, {1, 5},
                                 16.0f / 256, 127));
    // An ONNX model's elementwise function as a table (MoteTableLookup).
    b.mark_output(b.add_operator(mote::ir::OpType::kTableLookup, {x},
                                 mote::ir::TableLookupOptions{mote::ir::ElementFunction::kElu, 1.0f, 0},
                                 {1, 5}, 0.05f, 3));
    models.push_back({"conv_depthwise_fc", b.build()});
  }
  {  // a residual branch: ADD, MUL, CONCATENATION, MAX_POOL, MEAN without keep_dims
    ModelBuilder b(3);
    TensorId x = b.add_input({1, 6, 6, 8}, DataType::kInt8, 0.1f, -5);
    TensorId y = b.add_conv2d(x, 8, 1, 1, 1, Padding::kSame, Activation::kNone);
    TensorId s = b.add_add(x, y, Activation::kRelu);
    TensorId m = b.add_mul(s, y);
    TensorId t = b.add_max_pool(b.add_pad(s, {{0, 0}, {1, 1}, {1, 1}, {0, 0}}), 3, 3, 1);
    TensorId c = b.add_concatenation({s, t}, 3);
    c = b.add_max_pool(c, 2, 2, 2, Padding::kValid);
    b.mark_output(b.add_mean(c, {1, 2}, false));
    b.mark_output(m);
    models.push_back({"residual_concat_mean", b.build()});
  }
  {  // 1xN convolution (CMSIS-NN's MVE 1xN kernel) and a one-channel depthwise with a multiplier
    ModelBuilder b(4);
    TensorId x = b.add_input({1, 1, 12, 4}, DataType::kInt8, 0.02f, 0);
    x = b.add_conv2d(x, 8, 1, 3, 1, Padding::kSame, Activation::kNone);
    TensorId z = b.add_conv2d(x, 1, 1, 1, 1, Padding::kValid, Activation::kNone);
    z = b.add_depthwise(z, 1, 3, 1, Padding::kValid, Activation::kRelu, 4);
    b.mark_output(z);
    models.push_back({"conv_1xn_depthwise_multiplier", b.build()});
  }
  {  // byte movers and the table-driven activations on one small tensor
    ModelBuilder b(5);
    TensorId x = b.add_input({1, 3, 4, 2});
    x = b.add_quantize(x, 1.0f / 64, 1);
    x = b.add_pad(x, {{0, 0}, {1, 0}, {0, 2}, {0, 0}});
    x = b.add_transpose(x, {0, 2, 1, 3});
    x = b.add_resize_nearest(x, 8, 5);
    x = b.add_hard_swish(x);
    x = b.add_logistic(x);
    x = b.add_quantize(x, 1.0f / 32, -3);
    b.mark_output(b.add_dequantize(x));
    models.push_back({"movers_activations", b.build()});
  }
  {  // a bilinear x1.5 (half-pixel centres) joined to a lateral map: a RESIZE_BILINEAR stage member
    ModelBuilder b(6);
    TensorId x = b.add_input({1, 24, 18, 4}, DataType::kInt8, 0.02f, -4);
    TensorId c = b.add_conv2d(x, 32, 3, 3, 1, Padding::kSame, Activation::kRelu);
    TensorId up = b.add_resize_bilinear(b.add_max_pool(c, 3, 3, 3), 12, 9, false, true);
    TensorId joined = b.add_concatenation({up, b.add_max_pool(c, 2, 2, 2)}, 3);
    b.mark_output(b.add_conv2d(joined, 8, 3, 3, 1, Padding::kSame, Activation::kNone));
    models.push_back({"bilinear_merge", b.build()});
  }
  {  // state: SVDF (int16 state) and an LSTM (int8 hidden, int16 cell state), time-major
    ModelBuilder b(3);
    TensorId x = b.add_input({1, 12}, DataType::kInt8, 0.05f, 2);
    x = b.add_svdf(x, 6, 1, 4);
    x = b.add_reshape(x, {2, 1, 3});
    b.mark_output(b.add_lstm(x, 5, /*time_major=*/true, /*cell_clip=*/1.0f));
    models.push_back({"svdf_lstm", b.build()});
  }
  return models;
}

// Inputs on which the fuzzers once found undefined behaviour, written again at every run so the
// replay tests keep running them (each is refused now, with a reason).
size_t write_regression_seeds(const fs::path& tflite_dir, const fs::path& program_dir) {
  {  // an average pool whose filter's area overflows int32 (620756995 * 7), and one whose
     // width overflows the SAME geometry (3 x 2147483647); set after build(), which refuses them
    for (const auto& [h, w, name] :
         {std::tuple{620756995, 7, "regression_pool_filter_overflow.tflite"},
          std::tuple{3, 2147483647, "regression_pool_geometry_overflow.tflite"}}) {
      ModelBuilder b(1);
      TensorId x = b.add_input({1, 4, 4, 2}, DataType::kInt8, 0.1f, 0);
      b.mark_output(b.add_average_pool(x, 3, 3, 1, Padding::kSame));
      mote::ir::Graph g = b.build();
      auto& o = std::get<mote::ir::Pool2DOptions>(g.operators[0].options);
      o.filter_h = h;
      o.filter_w = w;
      write(tflite_dir / name, mote::builder::write_model(g));
    }
  }
  {  // a hard swish whose scales' ratio is infinite in float
    ModelBuilder b(1);
    TensorId x = b.add_input({1, 4}, DataType::kInt8, 0.1f, 0);
    const TensorId y = b.add_hard_swish(x);
    b.mark_output(y);
    mote::ir::Graph g = b.build();
    g.tensors[x].quantization.scale = {3e38f};
    g.tensors[y].quantization.scale = {1e-38f};
    write(tflite_dir / "regression_hard_swish_infinite_scale.tflite", mote::builder::write_model(g));
  }
  {  // an LSTM whose cell scale power overflows the tanh shift (15 + 2147483636)
    ModelBuilder b(3);
    TensorId x = b.add_input({2, 1, 3}, DataType::kInt8, 0.05f, 2);
    b.mark_output(b.add_lstm(x, 5, /*time_major=*/true, /*cell_clip=*/0.0f));
    mote::pipeline::CompileOptions options;
    options.plan.cpu = "cortex-m0";
    const std::unique_ptr<mote::schema::ProgramT> program =
        mote::emit::read_program(mote::pipeline::compile(b.build(), options).program);
    for (auto& op : program->operators) {
      if (auto* o = op->options.AsLstmOptions()) o->cell_scale_power = 2147483636;
    }
    flatbuffers::FlatBufferBuilder fb;
    fb.Finish(mote::schema::Program::Pack(fb, program.get()), mote::schema::ProgramIdentifier());
    write(program_dir / "regression_lstm_cell_scale_power.mote",
          std::vector<uint8_t>(fb.GetBufferPointer(), fb.GetBufferPointer() + fb.GetSize()));
  }
  {  // a pool program whose window area overflows int64 when scaled (1.9e9 squared, times 128)
    ModelBuilder b(1);
    TensorId x = b.add_input({1, 4, 4, 2}, DataType::kInt8, 0.1f, 0);
    b.mark_output(b.add_average_pool(x, 1, 1, 1, Padding::kValid));
    mote::pipeline::CompileOptions options;
    options.plan.cpu = "cortex-m4";
    const std::unique_ptr<mote::schema::ProgramT> program =
        mote::emit::read_program(mote::pipeline::compile(b.build(), options).program);
    for (auto& op : program->operators) {
      if (auto* o = op->options.AsPoolOptions()) {
        o->filter_h = o->filter_w = 1900000000;  // a window the pads make consistent
        o->pad_h = o->pad_w = 1899999998;
      }
    }
    flatbuffers::FlatBufferBuilder fb;
    fb.Finish(mote::schema::Program::Pack(fb, program.get()), mote::schema::ProgramIdentifier());
    write(program_dir / "regression_pool_window_area.mote",
          std::vector<uint8_t>(fb.GetBufferPointer(), fb.GetBufferPointer() + fb.GetSize()));
  }
  return 5;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_seeds OUT_DIR\n";
    return 2;
  }
  try {
    const fs::path out = argv[1];
    const fs::path tflite_dir = out / "fuzz_tflite_reader";
    const fs::path program_dir = out / "fuzz_program_load";
    const fs::path planner_dir = out / "fuzz_planner";
    for (const fs::path& dir : {tflite_dir, program_dir, planner_dir}) fs::create_directories(dir);

    std::vector<mote::builder::NamedModel> models = small_models();
    models.push_back({"conv2d_x3", mote::builder::conv2d_x3()});
    models.push_back({"tiny_all_ops", mote::builder::tiny_all_ops()});
    models.push_back({"kws_dscnn_like", mote::builder::kws_dscnn_like()});
    models.push_back({"conv_chain_3", mote::builder::conv_chain(3)});
    // The 16x8 and int4-weight forms: their own load checks and kernels.
    models.push_back({"int16_layers", mote::builder::int16_layers()});
    models.push_back({"int4_layers", mote::builder::int4_layers()});
    models.push_back({"lstm_16x8", mote::builder::lstm_16x8()});
    // TFLM's signal operators (an audio front end, plain integer tensors and a state).
    models.push_back({"audio_frontend", mote::builder::audio_frontend()});

    size_t files = 0;
    for (const auto& [name, graph] : models) {
      write(tflite_dir / (name + ".tflite"), mote::builder::write_model(graph));
      write(tflite_dir / (name + "_external.tflite"),
            mote::builder::write_model(graph, {.external_buffers = true}));
      files += 2;
      for (const char* cpu : {"cortex-m0", "cortex-m4", "cortex-m55"}) {
        mote::pipeline::CompileOptions options;
        options.plan.cpu = cpu;
        options.plan.node_limit = 2000;
        const mote::pipeline::Compiled compiled = mote::pipeline::compile(graph, options);
        write(program_dir / (name + "_" + cpu + ".mote"), compiled.program);
        // The same with the graph inputs outside the arena (Location::External), bound by the
        // caller.
        options.plan.inputs_outside_arena = true;
        write(program_dir / (name + "_" + cpu + "_inputs_outside.mote"),
              mote::pipeline::compile(graph, options).program);
        ++files;
        // Row-streamed (rings, a stage, a shared scratch, a streamed pool), where it pays.
        options.plan.inputs_outside_arena = false;
        options.plan.stream = true;
        const mote::pipeline::Compiled streamed = mote::pipeline::compile(graph, options);
        if (!streamed.planned.stages.empty()) {
          write(program_dir / (name + "_" + cpu + "_streamed.mote"), streamed.program);
          ++files;
        }
        const mote::planner::Problem& problem = compiled.planned.memory.problem;
        write(planner_dir / (name + "_" + cpu + ".bin"), mote::fuzz::encode_problem(problem, 2000));
        std::ostringstream csv;
        mote::planner::write_csv(csv, problem);
        const std::string text = csv.str();
        write(planner_dir / (name + "_" + cpu + ".csv"),
              std::vector<uint8_t>(text.begin(), text.end()));
        files += 3;
      }
    }
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      const mote::planner::Problem loose = mote::planner::random_loose_problem(12, seed);
      const mote::planner::Problem tight = mote::planner::random_tight_problem(16, seed);
      const mote::planner::Problem small =
          mote::planner::random_small_problem(8, seed, /*allow_fixed=*/true, 4);
      const std::string n = std::to_string(seed);
      write(planner_dir / ("loose_" + n + ".bin"), mote::fuzz::encode_problem(loose, 4000));
      write(planner_dir / ("tight_" + n + ".bin"), mote::fuzz::encode_problem(tight, 4000));
      write(planner_dir / ("small_" + n + ".bin"), mote::fuzz::encode_problem(small, 4000));
      std::ostringstream csv;
      mote::planner::write_csv(csv, small);
      const std::string text = csv.str();
      write(planner_dir / ("small_" + n + ".csv"), std::vector<uint8_t>(text.begin(), text.end()));
      files += 4;
    }
    for (const auto& [name, cell] : {std::pair{"float_lstm", mote::ir::RnnCell::kLstm},
                                      std::pair{"float_gru", mote::ir::RnnCell::kGru}}) {
      for (const char* cpu : {"cortex-m0", "cortex-m4", "cortex-m55"}) {
        mote::pipeline::CompileOptions options;
        options.plan.cpu = cpu;
        write(program_dir / (std::string(name) + "_" + cpu + ".mote"),
              mote::pipeline::compile(float_rnn_graph(cell), options).program);
        ++files;
      }
    }
    files += write_regression_seeds(tflite_dir, program_dir);
    std::cout << "make_seeds: " << files << " files in " << out.string() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "make_seeds: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
