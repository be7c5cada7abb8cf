// RESIZE_NEAREST_NEIGHBOR: int8 or int16 NHWC, TFLite's align_corners and half_pixel_centers
// rules. Int8 upsampling along H by an integer factor runs by rows in a stage.

#include "mote/kernels/resize_nearest_neighbor.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const Tensor &x = *c.in(0), &y = c.out();
  if (dim(y, 0) != dim(x, 0) || dim(y, 3) != dim(x, 3)) return c.bad("output shape inconsistent");
  return Error::kOk;
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::ResizeNearestNeighborOptions>();
  const Tensor &x = op.in(0), &y = op.out();
  kernels::ResizeNearestNeighborParams p{};
  set_nhwc_dims(p, x, y);
  // The kernel copies each pixel's bytes: an int16 channel is two.
  p.channels *= static_cast<int32_t>(element_size(x.type()));
  p.align_corners = o.align_corners();
  p.half_pixel_centers = o.half_pixel_centers();
  kernels::resize_nearest_neighbor(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
}

// Inside a row-streamed stage: the factor k of an int8 [1, H, W, C] input to [1, k * H, W', C]
// whose rows TFLite's rule maps y to y / k (no align_corners; each row checked, as the kernel
// computes it in float), or 0.
int32_t row_factor(const schema::Program& p, const schema::Operator& op) {
  const Tensor &x = input_of(p, op, 0), &y = output_of(p, op);
  const auto& o = *op.options_as_ResizeNearestNeighborOptions();
  if (x.type() != DataType::Int8 || dim(x, 0) != 1 || o.align_corners() || dim(x, 1) < 1 ||
      dim(y, 1) % dim(x, 1) != 0) {
    return 0;
  }
  const int32_t factor = dim(y, 1) / dim(x, 1);
  for (int32_t row = 0; row < dim(y, 1); ++row) {
    if (kernels::nearest_neighbor_index(row, dim(x, 1), dim(y, 1), false,
                                        o.half_pixel_centers()) != row / factor) {
      return 0;
    }
  }
  return factor;
}

bool row_reach(const schema::Program& p, const schema::Operator& op, size_t k,
               StageRowReach* reach) {
  const int32_t factor = k == 0 ? row_factor(p, op) : 0;
  if (factor == 1) return stage_window_reach(1, 1, 0, 1, reach);
  return factor > 1 && stage_upsample_reach(factor, reach);
}

// The row-call words: output row y is input row y / factor resized along W on the kernel the
// whole map runs (a one-row map to a one-row map: the same columns, copied).
struct ResizeRowArgs {
  int32_t input_w, output_w, channels;
  int32_t half_pixel_centers, factor;
  RowOperand input, output;
};

bool row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  const Tensor &x = input_of(p, op, 0), &y = output_of(p, op);
  ResizeRowArgs r{};
  r.factor = row_factor(p, op);
  r.input_w = dim(x, 2);
  r.output_w = dim(y, 2);
  r.channels = dim(x, 3);
  r.half_pixel_centers = op.options_as_ResizeNearestNeighborOptions()->half_pixel_centers();
  if (r.factor == 0 || !row_operand(p, input_index(op, 0), &r.input) ||
      !row_operand(p, output_index(op, 0), &r.output) || r.output.at < 0) {
    return false;
  }
  return write_row_args(r, words);
}

void invoke_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  const ResizeRowArgs& r = row_args_of<ResizeRowArgs>(words);
  const kernels::ResizeNearestNeighborParams row = kernels::prepare_resize_nearest_neighbor(
      1, 1, r.input_w, r.channels, 1, r.output_w, false, r.half_pixel_centers != 0);
  const int8_t* input = row_input(env, r.input);
  int8_t* output = row_output(env, r.output);
  for (int32_t y = y_begin; y < y_end; ++y) {
    kernels::resize_nearest_neighbor(
        row, row_of(input, r.input.rows, y / r.factor, r.input_w * r.channels),
        row_of(output, r.output.rows, y, r.output_w * r.channels));
  }
}

}  // namespace

extern const OpRegistration kResizeNearestNeighborOp{
    takes(1, 2, schema::OpOptions::ResizeNearestNeighborOptions).int8(1).int16(1).nhwc(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kResizeNearestNeighborPlain{&invoke};
extern const OpRowForm kResizeNearestNeighborRows{&row_reach, &row_args, kRowWords<ResizeRowArgs>,
                                                  &invoke_rows};

}  // namespace mote::runtime::internal
