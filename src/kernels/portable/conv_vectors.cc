// Reference-vector runner for "conv" sets (CONV_2D, incl. 1x1, 1xN, dilated and grouped).

#include "mote/kernels/conv.h"

#include "conv_vectors_util.h"
#include "kernels/testing/vector_runner.h"

namespace mote::kernels::testing {
namespace {

std::vector<int64_t> RunConvSet(const nlohmann::json& set) {
  ConvParams p{};
  ConvShape& s = p.shape;
  s.batches = Param(set, {"input_batches"});
  s.input_h = Param(set, {"input_h"});
  s.input_w = Param(set, {"input_w"});
  s.input_c = Param(set, {"in_ch"});
  s.filter_h = Param(set, {"filter_y"});
  s.filter_w = Param(set, {"filter_x"});
  s.filter_c = Param(set, {"filter_ch"}, s.input_c);
  s.output_h = Param(set, {"output_h"});
  s.output_w = Param(set, {"output_w"});
  s.output_c = Param(set, {"out_ch"});
  s.stride_h = Param(set, {"stride_y"});
  s.stride_w = Param(set, {"stride_x"});
  s.pad_h = Param(set, {"pad_y"});
  s.pad_w = Param(set, {"pad_x"});
  s.dilation_h = Param(set, {"dilation_y"}, 1);
  s.dilation_w = Param(set, {"dilation_x"}, 1);
  p.input_offset = Param(set, {"input_offset"});
  p.output_offset = Param(set, {"output_offset"});
  p.act_min = ActMin(set);
  p.act_max = ActMax(set);
  const auto input = Tensor<int8_t>(set, "input");
  const auto filter = Tensor<int8_t>(set, "weights");
  const auto bias = Tensor<int32_t>(set, "bias");
  const auto multiplier = Tensor<int32_t>(set, "output_mult");
  const auto shift = Tensor<int32_t>(set, "output_shift");
  p.output_multiplier = multiplier.data();
  p.output_shift = shift.data();
  const size_t out_size = static_cast<size_t>(s.batches) * s.output_h * s.output_w * s.output_c;
  auto run = [&](Scratch scratch) {
    std::vector<int8_t> out(out_size);
    conv2d(p, input.data(), filter.data(), bias.empty() ? nullptr : bias.data(), out.data(), scratch);
    return out;
  };
  return Widen(RunWithEveryScratch(run, {conv_scratch_bytes(s, Extension::kScalar),
                                         conv_scratch_bytes(s, Extension::kDsp),
                                         conv_scratch_bytes(s, Extension::kMve), 0}));
}

const RegisterVectorRunner kRegister("conv", RunConvSet);

}  // namespace
}  // namespace mote::kernels::testing
