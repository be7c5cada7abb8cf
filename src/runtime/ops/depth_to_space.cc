// DEPTH_TO_SPACE: int8 NHWC, walked as a 6-D strided copy:
// output[b][h*bs + i][w*bs + j][c] = input[b][h][w][(i*bs + j)*C + c].

#include "runtime/ops/strided_copy_ops.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const int64_t bs = c.options<schema::SpaceDepthOptions>().block_size();
  const Tensor &x = *c.in(0), &y = c.out();
  if (bs < 1 || bs > 0xffff) return c.bad("block_size out of range");
  if (dim(y, 0) != dim(x, 0) || dim(y, 1) != dim(x, 1) * bs || dim(y, 2) != dim(x, 2) * bs ||
      dim(y, 3) * bs * bs != dim(x, 3)) {
    return c.bad("output shape inconsistent with block_size");
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  const int32_t bs = op.options<schema::SpaceDepthOptions>().block_size();
  const Tensor& x = op.in(0);
  const int32_t n = dim(x, 0), h = dim(x, 1), w = dim(x, 2), depth = dim(x, 3);
  const int32_t c = depth / (bs * bs);
  // The output [n, h, bs, w, bs, c] in order; the input's strides for those indices.
  kernels::StridedCopyParams p{};
  p.rank = 6;
  const int32_t dims[6] = {n, h, bs, w, bs, c};
  const int32_t in[6] = {h * w * depth, w * depth, bs * c, depth, c, 1};
  int32_t out = 1;
  for (int d = 5; d >= 0; --d) {
    p.dims[d] = dims[d];
    p.input_strides[d] = in[d];
    p.output_strides[d] = out;
    out *= dims[d];
  }
  kernels::strided_copy(kernels::simplify_strided_copy(p), op.in_data<int8_t>(0),
                        op.out_data<int8_t>());
}

}  // namespace

extern const OpRegistration kDepthToSpaceOp{
    takes(1, 1, schema::OpOptions::SpaceDepthOptions).int8(1).nhwc(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kDepthToSpacePlain{&invoke};

}  // namespace mote::runtime::internal
