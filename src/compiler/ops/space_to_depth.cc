// SPACE_TO_DEPTH of an int8 NHWC tensor: each block_size x block_size block of pixels becomes
// one pixel of block_size^2 times the channels. The runtime walks it as a 6-D strided copy.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

using Options = OneFieldOptions<tfl::BuiltinOptions::SpaceToDepthOptions,
                                &tfl::SpaceToDepthOptions::block_size,
                                &tfl::SpaceToDepthOptionsT::block_size,
                                &ir::BlockSizeOptions::block_size>;

void check(Checker& c) {
  const int32_t b = c.options<ir::BlockSizeOptions>().block_size;
  const Tensor& input = c.nhwc_input(0);
  if (b < 1) c.fail("block_size " + std::to_string(b) + " must be >= 1");
  if (input.shape[1] % b != 0 || input.shape[2] % b != 0) {
    c.fail("input height " + std::to_string(input.shape[1]) + " and width " +
           std::to_string(input.shape[2]) + " must be multiples of block_size " +
           std::to_string(b));
  }
  const int64_t depth = int64_t{input.shape[3]} * b * b;
  if (depth > std::numeric_limits<int32_t>::max()) c.fail("output depth too large");
  c.data_output();
  c.expect_output_shape(
      {input.shape[0], input.shape[1] / b, input.shape[2] / b, static_cast<int32_t>(depth)});
  c.expect_same_quantization(0);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  schema::SpaceDepthOptionsT s;
  s.block_size = std::get<ir::BlockSizeOptions>(ctx.op().options).block_size;
  out.options.Set(std::move(s));
}

}  // namespace

extern const OpDef space_to_depth{.builtin_code = builtin(tfl::BuiltinOperator::SPACE_TO_DEPTH),
                                  .read_options = Options::read, .write_options = Options::write,
                                  .inputs = {1, 1}, .check = check, .lower = lower};

}  // namespace mote::ops
