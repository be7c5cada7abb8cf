// RESIZE_NEAREST_NEIGHBOR to a constant size; output quantized as the input.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

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

constexpr int8_t kProgramInputs[] = {0};  // the size is the output's shape

}  // namespace

extern const OpDef resize_nearest_neighbor{
    .builtin_code = builtin(tfl::BuiltinOperator::RESIZE_NEAREST_NEIGHBOR), .read_options = read,
    .write_options = write, .inputs = {2, 2}, .check = check, .lower = lower,
    .program_inputs = kProgramInputs, .int16_activations = true, .describe = describe};

}  // namespace mote::ops
