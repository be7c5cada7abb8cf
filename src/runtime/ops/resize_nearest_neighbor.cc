// RESIZE_NEAREST_NEIGHBOR: int8 or int16 NHWC, TFLite's align_corners and half_pixel_centers
// rules.

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

}  // namespace

extern const OpRegistration kResizeNearestNeighborOp{
    takes(1, 2, schema::OpOptions::ResizeNearestNeighborOptions).int8(1).int16(1).nhwc(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kResizeNearestNeighborPlain{&invoke};

}  // namespace mote::runtime::internal
