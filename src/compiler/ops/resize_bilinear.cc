// RESIZE_BILINEAR of an int8 NHWC tensor to a constant size, TFLite's integer rule
// (mote/kernels/resize_bilinear.h); output quantized as the input. A single image runs in
// row-streamed stages (FPN and segmentation heads' upsampling), every flag and scale.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/resize_bilinear.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  ir::ResizeNearestNeighborOptions r;
  if (const auto* o = t.table<tfl::ResizeBilinearOptions>(
          tfl::BuiltinOptions::ResizeBilinearOptions, false)) {
    r.align_corners = o->align_corners();
    r.half_pixel_centers = o->half_pixel_centers();
  }
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<ir::ResizeNearestNeighborOptions>(op.options);
  tfl::ResizeBilinearOptionsT t;
  t.align_corners = o.align_corners;
  t.half_pixel_centers = o.half_pixel_centers;
  out.Set(std::move(t));
}

void check(Checker& c) {
  const auto& o = c.options<ir::ResizeNearestNeighborOptions>();
  const Tensor& input = c.data_input(0);
  c.expect_rank(0, 4);
  c.data_output();
  const Tensor& size = c.param_input(1, DataType::kInt32);
  if (size.shape != std::vector<int32_t>{2}) {
    c.fail(c.in_label(1) + " (size) has shape " + shape_string(size.shape) + ", expected [2]");
  }
  const std::vector<int32_t> s = int32_values(size);
  if (s[0] < 1 || s[1] < 1) {
    c.fail(c.in_label(1) + " (size) " + shape_string(s) + " must be positive");
  }
  if (o.align_corners && o.half_pixel_centers) {
    c.fail("align_corners and half_pixel_centers are both set; TFLite takes at most one");
  }
  c.expect_output_shape({input.shape[0], s[0], s[1], input.shape[3]});
  c.expect_same_quantization(0);
  const int32_t in_h = input.shape[1], in_w = input.shape[2];
  if (std::max({in_h, in_w, s[0], s[1]}) > kernels::kMaxResizeBilinearSize) {
    c.fail("sizes above " + std::to_string(kernels::kMaxResizeBilinearSize) +
           " overflow TFLite's 10-bit fixed-point positions");
  }
  // TFLite's rounded scale can put the last source row past the input for extreme upscales
  // (it then reads outside the input): refuse what it does not define.
  const kernels::ResizeBilinearParams p = kernels::prepare_resize_bilinear(
      input.shape[0], in_h, in_w, input.shape[3], s[0], s[1], o.align_corners,
      o.half_pixel_centers);
  const auto past = [&](int32_t out, int32_t scale, int32_t in) {
    const int32_t last = kernels::bilinear_source(out - 1, scale, o.half_pixel_centers, in).scaled;
    return last / 1024 > in - 1;
  };
  if (past(s[0], p.scale_h_10, in_h) || past(s[1], p.scale_w_10, in_w)) {
    c.fail("resizing " + shape_string({in_h, in_w}) + " to " + shape_string(s) +
           " puts TFLite's last source pixel outside the input (upscale too large)");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::ResizeNearestNeighborOptions>(ctx.op().options);
  schema::ResizeBilinearOptionsT r;
  r.align_corners = o.align_corners;
  r.half_pixel_centers = o.half_pixel_centers;
  // An ONNX model's Resize is float, its result rounded half to even by the QuantizeLinear after
  // it; TFLite's integer rule rounds half away from zero.
  r.half_to_even = ctx.graph().round_once;
  out.options.Set(std::move(r));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::ResizeNearestNeighborOptions>(op.options);
  d.add(std::string("align_corners ") + (o.align_corners ? "true" : "false") +
        " half_pixel_centers " + (o.half_pixel_centers ? "true" : "false") +
        (g.round_once ? " rounding half to even" : ""));
  d.json["align_corners"] = o.align_corners;
  d.json["half_pixel_centers"] = o.half_pixel_centers;
}

// Inside a row-streamed stage: an int8 [1, H, W, C] map, align_corners or half_pixel_centers or
// neither, upsampled, downsampled or kept along H by any factor. Output row y reads the input
// rows the kernel reads for it (the floor and the ceiling of its source position), and is
// computed by the row function the whole map runs. A source step above 32767 / 1024 rows (a
// downsampling by 32 or more, or align_corners down to one row from 32 or more) stays out: the
// schedule's int16 numbers hold the step.
std::optional<RowReach> row_reach(const ir::Graph& g, const ir::Operator& op, size_t input) {
  const auto& o = std::get<ir::ResizeNearestNeighborOptions>(op.options);
  const ir::Tensor& in = g.tensors[static_cast<size_t>(op.inputs[0])];
  const ir::Tensor& out = g.tensors[static_cast<size_t>(op.outputs[0])];
  if (input != 0 || in.type != ir::DataType::kInt8 || out.type != ir::DataType::kInt8 ||
      in.shape.size() != 4 || out.shape.size() != 4 || in.shape[0] != 1 ||
      std::min({in.shape[1], in.shape[2], out.shape[1], out.shape[2]}) < 1 ||
      std::max({in.shape[1], in.shape[2], out.shape[1], out.shape[2]}) >
          kernels::kMaxResizeBilinearSize) {
    return std::nullopt;
  }
  const kernels::ResizeBilinearParams p = kernels::prepare_resize_bilinear(
      1, in.shape[1], in.shape[2], in.shape[3], out.shape[1], out.shape[2], o.align_corners,
      o.half_pixel_centers);
  if (p.scale_h_10 < 0 || p.scale_h_10 > INT16_MAX) return std::nullopt;
  RowReach reach;
  reach.bilinear_step = p.scale_h_10;
  reach.half_pixel_centers = o.half_pixel_centers;
  return reach;
}

constexpr int8_t kProgramInputs[] = {0};  // the size is the output's shape

}  // namespace

extern const OpDef resize_bilinear{
    .builtin_code = builtin(tfl::BuiltinOperator::RESIZE_BILINEAR), .read_options = read,
    .write_options = write, .inputs = {2, 2}, .check = check, .lower = lower,
    .program_inputs = kProgramInputs, .describe = describe, .row_reach = row_reach};

}  // namespace mote::ops
