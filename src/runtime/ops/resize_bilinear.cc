// RESIZE_BILINEAR: int8 NHWC, TFLite's integer rule (ResizeBilinearInteger).

#include "mote/kernels/resize_bilinear.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

kernels::ResizeBilinearParams params(const schema::ResizeBilinearOptions& o, const Tensor& x,
                                     const Tensor& y) {
  return kernels::prepare_resize_bilinear(dim(x, 0), dim(x, 1), dim(x, 2), dim(x, 3), dim(y, 1),
                                          dim(y, 2), o.align_corners(), o.half_pixel_centers());
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

}  // namespace

extern const OpRegistration kResizeBilinearOp{
    takes(1, 2, schema::OpOptions::ResizeBilinearOptions).int8(1).nhwc(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kResizeBilinearPlain{&invoke};

}  // namespace mote::runtime::internal
