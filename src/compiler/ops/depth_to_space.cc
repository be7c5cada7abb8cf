// DEPTH_TO_SPACE of an int8 NHWC tensor: blocks of block_size x block_size pixels from the
// channels (TFLite's DCR order). The runtime walks it as a 6-D strided copy.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

using Options = OneFieldOptions<tfl::BuiltinOptions::DepthToSpaceOptions,
                                &tfl::DepthToSpaceOptions::block_size,
                                &tfl::DepthToSpaceOptionsT::block_size,
                                &ir::BlockSizeOptions::block_size>;

void check(Checker& c) {
  const int32_t b = c.options<ir::BlockSizeOptions>().block_size;
  const Tensor& input = c.nhwc_input(0);
  if (b < 1) c.fail("block_size " + std::to_string(b) + " must be >= 1");
  const int64_t bb = int64_t{b} * b;
  if (input.shape[3] % bb != 0) {
    c.fail("input depth " + std::to_string(input.shape[3]) + " is not a multiple of block_size^2 " +
           std::to_string(bb));
  }
  const int64_t h = int64_t{input.shape[1]} * b, w = int64_t{input.shape[2]} * b;
  if (h > std::numeric_limits<int32_t>::max() || w > std::numeric_limits<int32_t>::max()) {
    c.fail("output too large");
  }
  c.data_output();
  c.expect_output_shape({input.shape[0], static_cast<int32_t>(h), static_cast<int32_t>(w),
                         static_cast<int32_t>(input.shape[3] / bb)});
  c.expect_same_quantization(0);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  schema::SpaceDepthOptionsT s;
  s.block_size = std::get<ir::BlockSizeOptions>(ctx.op().options).block_size;
  out.options.Set(std::move(s));
}

}  // namespace

extern const OpDef depth_to_space{.builtin_code = builtin(tfl::BuiltinOperator::DEPTH_TO_SPACE),
                                  .read_options = Options::read, .write_options = Options::write,
                                  .inputs = {1, 1}, .check = check, .lower = lower};

}  // namespace mote::ops
