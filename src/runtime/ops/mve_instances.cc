// Which specialised code of the mve convolution kernels an operator may run, read off a program
// (mote_program_ops selects a firmware image's from its programs).

#include "kernels/mve/instances.h"
#include "runtime/ops/convolution.h"

namespace mote::runtime::internal {

kernels::mve::Instances mve_instances(const schema::Program& program, uint32_t index) {
  const schema::Operator& op = *program.operators()->Get(index);
  const kernels::mve::Instances none{0, 0, 0, false};
  if (op.portable_kernel() || direct_loops(program, op)) return none;
  if (op.kind() == schema::OpKind::Conv2D) {
    const kernels::ConvShape s = conv_shape(program, op);
    const schema::Region* shifts = op.options_as_ConvOptions()->shifts();
    return kernels::mve::conv_instances_used(
        s, shifts_all_negative(program, static_cast<int32_t>(shifts->offset()), s.output_c));
  }
  if (op.kind() == schema::OpKind::DepthwiseConv2D) {
    return kernels::mve::depthwise_instances_used(depthwise_shape(program, op),
                                                  row_streamed(program, index));
  }
  return none;
}

}  // namespace mote::runtime::internal
