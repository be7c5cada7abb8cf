// RESIZE_NEAREST_NEIGHBOR to a constant size; output quantized as the input. Int8 maps
// upsampled along H by an integer factor run in row-streamed stages (FPN and YOLO necks).
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/resize_nearest_neighbor.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  ir::ResizeNearestNeighborOptions r;
  if (const auto* o = t.table<tfl::ResizeNearestNeighborOptions>(
          tfl::BuiltinOptions::ResizeNearestNeighborOptions, false)) {
    r.align_corners = o->align_corners();
    r.half_pixel_centers = o->half_pixel_centers();
  }
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<ir::ResizeNearestNeighborOptions>(op.options);
  tfl::ResizeNearestNeighborOptionsT t;
  t.align_corners = o.align_corners;
  t.half_pixel_centers = o.half_pixel_centers;
  out.Set(std::move(t));
}

void check(Checker& c) {
  c.options<ir::ResizeNearestNeighborOptions>();
  const DataType type = c.activation_type();  // int16 moves as int8 does
  const Tensor& input = c.data_input(0, type);
  c.expect_rank(0, 4);
  c.data_output(type);
  const Tensor& size = c.param_input(1, DataType::kInt32);
  if (size.shape != std::vector<int32_t>{2}) {
    c.fail(c.in_label(1) + " (size) has shape " + shape_string(size.shape) + ", expected [2]");
  }
  const std::vector<int32_t> s = int32_values(size);
  if (s[0] < 1 || s[1] < 1) {
    c.fail(c.in_label(1) + " (size) " + shape_string(s) + " must be positive");
  }
  c.expect_output_shape({input.shape[0], s[0], s[1], input.shape[3]});
  c.expect_same_quantization(0);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::ResizeNearestNeighborOptions>(ctx.op().options);
  schema::ResizeNearestNeighborOptionsT r;
  r.align_corners = o.align_corners;
  r.half_pixel_centers = o.half_pixel_centers;
  out.options.Set(std::move(r));
}

void describe(const ir::Graph&, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::ResizeNearestNeighborOptions>(op.options);
  d.add(std::string("align_corners ") + (o.align_corners ? "true" : "false") +
        " half_pixel_centers " + (o.half_pixel_centers ? "true" : "false"));
  d.json["align_corners"] = o.align_corners;
  d.json["half_pixel_centers"] = o.half_pixel_centers;
}

// Inside a row-streamed stage: an int8 [1, H, W, C] map to [1, k * H, W', C] for an integer k,
// without align_corners, whose rows TFLite's rule maps y to y / k (half-pixel centres or not;
// checked row by row, as the kernel computes them in float): output row y is input row y / k
// resized along W as the whole map is. Other heights (align_corners maps by (H - 1) / (kH - 1))
// and int16 stay out.
std::optional<RowReach> row_reach(const ir::Graph& g, const ir::Operator& op, size_t input) {
  const auto& o = std::get<ir::ResizeNearestNeighborOptions>(op.options);
  const ir::Tensor& in = g.tensors[static_cast<size_t>(op.inputs[0])];
  const ir::Tensor& out = g.tensors[static_cast<size_t>(op.outputs[0])];
  if (input != 0 || o.align_corners || in.type != ir::DataType::kInt8 ||
      out.type != ir::DataType::kInt8 || in.shape.size() != 4 || in.shape[0] != 1 ||
      in.shape[1] < 1 || out.shape[1] % in.shape[1] != 0) {
    return std::nullopt;
  }
  const int32_t factor = out.shape[1] / in.shape[1];
  for (int32_t y = 0; y < out.shape[1]; ++y) {
    if (kernels::nearest_neighbor_index(y, in.shape[1], out.shape[1], false,
                                        o.half_pixel_centers) != y / factor) {
      return std::nullopt;
    }
  }
  RowReach reach;
  if (factor > 1) reach.upsample = factor;
  return reach;
}

constexpr int8_t kProgramInputs[] = {0};  // the size is the output's shape

}  // namespace

extern const OpDef resize_nearest_neighbor{
    .builtin_code = builtin(tfl::BuiltinOperator::RESIZE_NEAREST_NEIGHBOR), .read_options = read,
    .write_options = write, .inputs = {2, 2}, .check = check, .lower = lower,
    .program_inputs = kProgramInputs, .int16_activations = true, .describe = describe,
    .row_reach = row_reach};

}  // namespace mote::ops
