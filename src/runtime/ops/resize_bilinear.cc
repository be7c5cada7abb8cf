// RESIZE_BILINEAR: int8 NHWC, TFLite's integer rule (ResizeBilinearInteger). A single image runs
// by rows in a stage, every flag and scale.

#include "mote/kernels/resize_bilinear.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

kernels::ResizeBilinearParams params(const schema::ResizeBilinearOptions& o, const Tensor& x,
                                     const Tensor& y) {
  return kernels::prepare_resize_bilinear(dim(x, 0), dim(x, 1), dim(x, 2), dim(x, 3), dim(y, 1),
                                          dim(y, 2), o.align_corners(), o.half_pixel_centers(),
                                          o.half_to_even());
}

// The last output's source (in 1/1024) stays inside the input: every weight is then in
// [-512, 1536] and the kernel's int32 sums cannot overflow.
bool inside(int32_t out, int32_t scale, bool half, int32_t in) {
  return kernels::bilinear_source(out - 1, scale, half, in).scaled / 1024 <= in - 1;
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::ResizeBilinearOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  if (dim(y, 0) != dim(x, 0) || dim(y, 3) != dim(x, 3)) return c.bad("output shape inconsistent");
  if (o.align_corners() && o.half_pixel_centers()) {
    return c.bad("align_corners and half_pixel_centers both set");
  }
  for (size_t d = 1; d <= 2; ++d) {
    if (dim(x, d) < 1 || dim(y, d) < 1 || dim(x, d) > kernels::kMaxResizeBilinearSize ||
        dim(y, d) > kernels::kMaxResizeBilinearSize) {
      return c.bad("resize_bilinear size out of range", Error::kUnsupported);
    }
  }
  const kernels::ResizeBilinearParams p = params(o, x, y);
  if (!inside(p.output_h, p.scale_h_10, p.half_pixel_centers, p.input_h) ||
      !inside(p.output_w, p.scale_w_10, p.half_pixel_centers, p.input_w)) {
    return c.bad("resize_bilinear upscale beyond TFLite's fixed-point positions",
                 Error::kUnsupported);
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  const kernels::ResizeBilinearParams p =
      params(op.options<schema::ResizeBilinearOptions>(), op.in(0), op.out());
  kernels::resize_bilinear(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
}

// Inside a row-streamed stage: an int8 [1, H, W, C] map, any size, align_corners or
// half_pixel_centers or neither. Output row y reads the input rows the kernel reads for it
// (kernels::bilinear_source: the floor and the ceiling of its source position). A source step
// above 32767/1024 rows (a downsampling by 32 or more, or align_corners to one row from 32 or
// more) stays out: the schedule's int16 numbers hold the step.
bool row_params(const schema::Program& p, const schema::Operator& op,
                kernels::ResizeBilinearParams* out, StageRowReach* reach) {
  const Tensor &x = input_of(p, op, 0), &y = output_of(p, op);
  if (x.type() != DataType::Int8 || dim(x, 0) != 1) return false;
  *out = params(*op.options_as_ResizeBilinearOptions(), x, y);
  return stage_bilinear_reach(out->scale_h_10, out->half_pixel_centers, reach);
}

bool row_reach(const schema::Program& p, const schema::Operator& op, size_t k,
               StageRowReach* reach) {
  kernels::ResizeBilinearParams unused{};
  return k == 0 && row_params(p, op, &unused, reach);
}

// The row-call words: the kernel's parameters of one image and the rings.
struct BilinearRowArgs {
  int32_t input_h, input_w, channels, output_w;
  int32_t scale_h_10, scale_w_10, half_pixel_centers, half_to_even;
  RowOperand input, output;
};

bool row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  kernels::ResizeBilinearParams k{};
  StageRowReach reach{};
  BilinearRowArgs r{};
  if (!row_params(p, op, &k, &reach) || !row_operand(p, input_index(op, 0), &r.input) ||
      !row_operand(p, output_index(op, 0), &r.output) || r.output.at < 0) {
    return false;
  }
  r.input_h = k.input_h;
  r.input_w = k.input_w;
  r.channels = k.channels;
  r.output_w = k.output_w;
  r.scale_h_10 = k.scale_h_10;
  r.scale_w_10 = k.scale_w_10;
  r.half_pixel_centers = k.half_pixel_centers;
  r.half_to_even = k.half_to_even;
  return write_row_args(r, words);
}

// Output row y from input rows bilinear_source(y).lower and .upper, read through the input's
// ring, on the row function the whole-map kernel runs each row through.
void invoke_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  const BilinearRowArgs& r = row_args_of<BilinearRowArgs>(words);
  kernels::ResizeBilinearParams row{};
  row.batches = 1;
  row.input_h = r.input_h;
  row.input_w = r.input_w;
  row.channels = r.channels;
  row.output_w = r.output_w;
  row.scale_h_10 = r.scale_h_10;
  row.scale_w_10 = r.scale_w_10;
  row.half_pixel_centers = r.half_pixel_centers != 0;
  row.half_to_even = r.half_to_even != 0;
  const int32_t in_width = r.input_w * r.channels, out_width = r.output_w * r.channels;
  const int8_t* input = row_input(env, r.input);
  int8_t* output = row_output(env, r.output);
  for (int32_t y = y_begin; y < y_end; ++y) {
    const kernels::BilinearSource s =
        kernels::bilinear_source(y, r.scale_h_10, row.half_pixel_centers, r.input_h);
    kernels::resize_bilinear_row(row, y, row_of(input, r.input.rows, s.lower, in_width),
                                 row_of(input, r.input.rows, s.upper, in_width),
                                 row_of(output, r.output.rows, y, out_width));
  }
}

}  // namespace

extern const OpRegistration kResizeBilinearOp{
    takes(1, 2, schema::OpOptions::ResizeBilinearOptions).int8(1).nhwc(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kResizeBilinearPlain{&invoke};
extern const OpRowForm kResizeBilinearRows{&row_reach, &row_args, kRowWords<BilinearRowArgs>,
                                           &invoke_rows};

}  // namespace mote::runtime::internal
