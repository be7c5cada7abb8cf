// The layer-shape grid (grid.h) on this CPU's kernels under QEMU: each layer runs once through the
// kernel entry the runtime calls for it (the extension's kernel where it takes the shape, else
// the portable one the compiler would mark), with the scratch this build plans, and SysTick counts
// the call as the firmware runner counts run(), from just after a tick (timing.h). One line per
// layer, tab-separated:
//   grid <id> <family> <shape> <instructions> <variant> <output checksum>
// bench/shape_grid.sh reads them. The 16x8 and int4 rows also run the portable kernel, after the
// variant (the checksum is the variant's output), on a line of their own that the table leaves out:
//   portable <id> <instructions> <output checksum>
// Static buffers, no heap.

#include <stdint.h>

#include "grid.h"
#include "mote/kernels/add.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/mean.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/pooling.h"
#include "mote/kernels/quantize.h"
#include "mote/kernels/scratch.h"
#include "mote/kernels/softmax.h"
#include "platform/console.h"
#include "platform/cycles.h"
#include "timing.h"

namespace {

namespace k = mote::kernels;
namespace grid = mote::bench::grid;
using grid::Kind;
using grid::timed;
using mote::platform::Line;

// Tensors in the board's large RAM, as a runner's arena; QEMU counts instructions the same
// anywhere.
#define MOTE_GRID_BUFFER __attribute__((section(".arena"), aligned(16)))
MOTE_GRID_BUFFER int8_t input_buf[grid::kMaxInput];
MOTE_GRID_BUFFER int8_t input2_buf[grid::kMaxInput];
MOTE_GRID_BUFFER int8_t filter_buf[grid::kMaxFilter];
MOTE_GRID_BUFFER int8_t output_buf[grid::kMaxOutput];
MOTE_GRID_BUFFER int8_t scratch_buf[grid::kMaxScratch];
alignas(16) int32_t bias_buf[grid::kMaxChannels];
alignas(16) int32_t multiplier_buf[grid::kMaxChannels];
alignas(16) int32_t shift_buf[grid::kMaxChannels];
alignas(16) int32_t kernel_sums_buf[grid::kMaxChannels];
alignas(16) int64_t bias64_buf[grid::kMaxChannels];
// The 16x8 rows' int16 input and output, in the second input's and the output's bytes.
int16_t* const input16 = reinterpret_cast<int16_t*>(input2_buf);
int16_t* const output16 = reinterpret_cast<int16_t*>(output_buf);
const uint8_t* const packed = reinterpret_cast<const uint8_t*>(filter_buf);
// Quantize's float input and dequantize's float output, in the input's and the output's bytes.
const float* const input_float = reinterpret_cast<const float*>(input_buf);
float* const output_float = reinterpret_cast<float*>(output_buf);

k::Extension built_extension() {
  if (k::variant_built(k::Variant::kMve)) return k::Extension::kMve;
  if (k::variant_built(k::Variant::kDsp)) return k::Extension::kDsp;
  return k::Extension::kScalar;
}

struct Measured {
  uint64_t instructions;
  const char* variant;
  bool ran;  // false: the layer's parameters are outside what the kernels take
};

k::Scratch scratch_of(size_t bytes) { return k::Scratch{bytes == 0 ? nullptr : scratch_buf, bytes}; }

Measured run_conv(const grid::Layer& l, const grid::Quantization& q) {
  const grid::Geometry g = grid::geometry(l);
  k::ConvParams p{};
  p.shape = k::ConvShape{1, l.h, l.w, l.c, l.kh, l.kw, l.c / l.groups, g.out_h, g.out_w, l.out_c,
                         l.stride, l.stride, g.pad_h, g.pad_w, 1, 1};
  p.input_offset = q.input_offset;
  p.output_offset = q.output_offset;
  p.act_min = q.act_min;
  p.act_max = q.act_max;
  p.output_multiplier = multiplier_buf;
  p.output_shift = shift_buf;
  const k::Scratch scratch = scratch_of(k::built_conv_scratch_bytes(p.shape));
  if (scratch.size > grid::kMaxScratch) return {0, "", false};
  if (k::conv_extension_takes(p.shape)) {
    return {timed([&] { k::conv2d_extension(p, input_buf, filter_buf, bias_buf, output_buf, scratch); }),
            k::built_conv_kernel_variant(p.shape), true};
  }
  return {timed([&] { k::portable_conv2d(p, input_buf, filter_buf, bias_buf, output_buf, scratch); }),
          "portable", true};
}

Measured run_depthwise(const grid::Layer& l, const grid::Quantization& q) {
  const grid::Geometry g = grid::geometry(l);
  k::DepthwiseConvParams p{};
  p.shape = k::DepthwiseShape{1, l.h, l.w, l.c, l.kh, l.kw, g.out_h, g.out_w, l.out_c,
                              l.stride, l.stride, g.pad_h, g.pad_w, 1, 1};
  p.input_offset = q.input_offset;
  p.output_offset = q.output_offset;
  p.act_min = q.act_min;
  p.act_max = q.act_max;
  p.output_multiplier = multiplier_buf;
  p.output_shift = shift_buf;
  const k::Scratch scratch = scratch_of(k::built_depthwise_conv_scratch_bytes(p.shape));
  if (scratch.size > grid::kMaxScratch) return {0, "", false};
  // The runtime's forms: one input channel into several has a kernel of its own.
  if (l.c == 1 && l.out_c > 1) {
    return {timed([&] {
              k::depthwise_conv2d_one_input(p, input_buf, filter_buf, bias_buf, output_buf, scratch);
            }),
            k::built_depthwise_conv_kernel_variant(p.shape), true};
  }
  if (k::depthwise_conv_extension_takes(p.shape)) {
    return {timed([&] {
              k::depthwise_conv2d_extension(p, input_buf, filter_buf, bias_buf, output_buf, scratch);
            }),
            k::built_depthwise_conv_kernel_variant(p.shape), true};
  }
  return {timed([&] {
            k::portable_depthwise_conv2d(p, input_buf, filter_buf, bias_buf, output_buf, scratch);
          }),
          "portable", true};
}

Measured run_fully_connected(const grid::Layer& l, const grid::Quantization& q) {
  k::FullyConnectedParams p{};
  p.batches = l.h;
  p.input_depth = l.c;
  p.output_depth = l.out_c;
  p.input_offset = q.input_offset;
  p.filter_offset = 0;
  p.output_offset = q.output_offset;
  p.act_min = q.act_min;
  p.act_max = q.act_max;
  p.output_multiplier = &q.multiplier;
  p.output_shift = &q.shift;
  p.per_channel = false;
  // The compiler stores these as a constant of the program.
  k::fully_connected_kernel_sums(p, filter_buf, bias_buf, kernel_sums_buf);
  p.kernel_sums = kernel_sums_buf;
  return {timed([&] { k::fully_connected_extension(p, input_buf, filter_buf, bias_buf, output_buf); }),
          k::built_fully_connected_kernel_variant(l.out_c), true};
}

k::PoolParams pool_params(const grid::Layer& l, const grid::Quantization& q) {
  const grid::Geometry g = grid::geometry(l);
  k::PoolParams p{};
  p.batches = 1;
  p.input_h = l.h;
  p.input_w = l.w;
  p.channels = l.c;
  p.output_h = g.out_h;
  p.output_w = g.out_w;
  p.filter_h = l.kh;
  p.filter_w = l.kw;
  p.stride_h = l.stride;
  p.stride_w = l.stride;
  p.pad_h = g.pad_h;
  p.pad_w = g.pad_w;
  p.act_min = q.act_min;
  p.act_max = q.act_max;
  return p;
}

Measured run_average_pool(const grid::Layer& l, const grid::Quantization& q) {
  const k::PoolParams p = pool_params(l, q);
  const k::Scratch scratch = scratch_of(k::average_pool_scratch_bytes(l.c, built_extension()));
  if (scratch.size > grid::kMaxScratch) return {0, "", false};
  if (k::average_pool_extension_takes(p)) {
    return {timed([&] { k::average_pool_extension(p, input_buf, output_buf, scratch); }),
            k::built_average_pool_kernel_variant(p), true};
  }
  return {timed([&] { k::portable_average_pool(p, input_buf, output_buf, scratch); }), "portable",
          true};
}

Measured run_max_pool(const grid::Layer& l, const grid::Quantization& q) {
  const k::PoolParams p = pool_params(l, q);
  return {timed([&] { k::max_pool(p, input_buf, output_buf); }), k::built_max_pool_kernel_variant(p),
          true};
}

// Input 1 [1, h, w, c] and input 2 of the output's shape, or [1, 1, 1, out_c] broadcast, as the
// runtime passes the tensors' shapes.
k::BroadcastShape binary_shape(const grid::Layer& l) {
  if (!grid::is_broadcast(l.kind)) return k::elementwise_shape(grid::input_elements(l));
  const int32_t dims1[] = {1, l.h, l.w, l.c};
  const int32_t dims2[] = {1, 1, 1, l.out_c};
  k::BroadcastShape shape{};
  k::prepare_broadcast_shape(dims1, 4, dims2, 4, &shape);
  return shape;
}

Measured run_add(const grid::Layer& l, const grid::Quantization& q) {
  k::AddParams p{};
  p.input1_offset = q.input_offset;
  p.input2_offset = q.input2_offset;
  p.output_offset = q.output_offset;
  p.left_shift = q.left_shift;
  p.input1_multiplier = q.input1_multiplier;
  p.input1_shift = q.input1_shift;
  p.input2_multiplier = q.input2_multiplier;
  p.input2_shift = q.input2_shift;
  p.output_multiplier = q.multiplier;
  p.output_shift = q.shift;
  p.act_min = q.act_min;
  p.act_max = q.act_max;
  if (!k::add_fits(p)) return {0, "", false};
  const k::BroadcastShape shape = binary_shape(l);
  return {timed([&] { k::add(p, shape, input_buf, input2_buf, output_buf); }),
          k::built_add_kernel_variant(shape), true};
}

Measured run_mul(const grid::Layer& l, const grid::Quantization& q) {
  k::MulParams p{};
  p.input1_offset = q.input_offset;
  p.input2_offset = q.input2_offset;
  p.output_offset = q.output_offset;
  p.output_multiplier = q.multiplier;
  p.output_shift = q.shift;
  p.act_min = q.act_min;
  p.act_max = q.act_max;
  if (!k::mul_fits(p)) return {0, "", false};
  const k::BroadcastShape shape = binary_shape(l);
  return {timed([&] { k::mul(p, shape, input_buf, input2_buf, output_buf); }),
          k::built_mul_kernel_variant(shape), true};
}

Measured run_requantize(const grid::Layer& l, const grid::Quantization& q) {
  k::RequantizeParams p{};
  p.input_zero_point = -q.input_offset;
  p.output_zero_point = q.output_offset;
  p.multiplier = q.multiplier;
  p.shift = q.shift;
  const size_t count = static_cast<size_t>(grid::input_elements(l));
  return {timed([&] { k::requantize(p, input_buf, output_buf, count); }), "portable", true};
}

// SOFTMAX, MEAN, QUANTIZE and DEQUANTIZE have portable kernels alone, in every build; their
// parameters as the compiler computes them from the scales.
Measured run_softmax(const grid::Layer& l, const grid::Quantization& q) {
  const k::SoftmaxParams p = k::prepare_softmax(l.h * l.w, l.c, q.input_scale, 1.0f);
  return {timed([&] { k::softmax(p, input_buf, output_buf); }), "portable", true};
}

Measured run_mean(const grid::Layer& l, const grid::Quantization& q) {
  const int32_t dims[] = {1, l.h, l.w, l.c};
  const int32_t axes[] = {1, 2};
  const k::QuantizedMultiplier m = k::mean_requant(q.input_scale, q.output_scale, l.h * l.w);
  const k::MeanParams p =
      k::prepare_mean(4, dims, 2, axes, -q.input_offset, q.output_offset, m.multiplier, m.shift);
  return {timed([&] { k::mean(p, input_buf, output_buf); }), "portable", true};
}

Measured run_quantize(const grid::Layer& l, const grid::Quantization& q) {
  const k::QuantizeParams p{q.output_scale, q.output_offset};
  const size_t count = static_cast<size_t>(grid::input_elements(l));
  return {timed([&] { k::quantize(p, input_float, output_buf, count); }), "portable", true};
}

Measured run_dequantize(const grid::Layer& l, const grid::Quantization& q) {
  const k::DequantizeParams p{q.input_scale, -q.input_offset};
  const size_t count = static_cast<size_t>(grid::input_elements(l));
  return {timed([&] { k::dequantize(p, input_buf, output_float, count); }), "portable", true};
}

// The 16x8 and int4 rows: the kernel entry (this build's variant) timed, then portable's.
struct WideMeasured {
  Measured variant;
  uint64_t portable;
  uint32_t portable_checksum;
};

uint32_t output_checksum(const grid::Layer& l) {
  const int32_t bytes = grid::output_elements(l) * grid::output_element_bytes(l.kind);
  return grid::checksum(output_buf, bytes);
}

template <typename Variant, typename Portable>
WideMeasured run_both(const grid::Layer& l, const char* variant, Variant&& v, Portable&& p) {
  const uint64_t portable = timed(p);
  const uint32_t portable_checksum = output_checksum(l);
  return {{timed(v), variant, true}, portable, portable_checksum};
}

k::ConvParams wide_conv_params(const grid::Layer& l, const grid::Quantization& q) {
  const grid::Geometry g = grid::geometry(l);
  k::ConvParams p{};
  p.shape = k::ConvShape{1, l.h, l.w, l.c, l.kh, l.kw, l.c, g.out_h, g.out_w, l.out_c,
                         l.stride, l.stride, g.pad_h, g.pad_w, 1, 1};
  p.input_offset = q.input_offset;
  p.output_offset = q.output_offset;
  p.act_min = q.act_min;
  p.act_max = q.act_max;
  p.output_multiplier = multiplier_buf;
  p.output_shift = shift_buf;
  return p;
}

k::DepthwiseConvParams wide_depthwise_params(const grid::Layer& l, const grid::Quantization& q) {
  const grid::Geometry g = grid::geometry(l);
  k::DepthwiseConvParams p{};
  p.shape = k::DepthwiseShape{1, l.h, l.w, l.c, l.kh, l.kw, g.out_h, g.out_w, l.out_c,
                              l.stride, l.stride, g.pad_h, g.pad_w, 1, 1};
  p.input_offset = q.input_offset;
  p.output_offset = q.output_offset;
  p.act_min = q.act_min;
  p.act_max = q.act_max;
  p.output_multiplier = multiplier_buf;
  p.output_shift = shift_buf;
  return p;
}

k::FullyConnectedParams wide_fully_connected_params(const grid::Layer& l,
                                                    const grid::Quantization& q) {
  k::FullyConnectedParams p{};
  p.batches = l.h;
  p.input_depth = l.c;
  p.output_depth = l.out_c;
  p.input_offset = q.input_offset;
  p.output_offset = q.output_offset;
  p.act_min = q.act_min;
  p.act_max = q.act_max;
  p.output_multiplier = &q.multiplier;
  p.output_shift = &q.shift;
  p.per_channel = false;
  return p;
}

WideMeasured run_wide(const grid::Layer& l, const grid::Quantization& q) {
  switch (l.kind) {
    case Kind::kConv16x8: {
      const k::ConvParams p = wide_conv_params(l, q);
      return run_both(
          l, k::built_conv_16x8_kernel_variant(p.shape),
          [&] { k::conv2d_16x8(p, input16, filter_buf, bias64_buf, output16); },
          [&] { k::portable_conv2d_16x8(p, input16, filter_buf, bias64_buf, output16); });
    }
    case Kind::kConvInt4: {
      const k::ConvParams p = wide_conv_params(l, q);
      return run_both(l, k::built_conv_int4_kernel_variant(p.shape),
                      [&] { k::conv2d_int4(p, input_buf, packed, bias_buf, output_buf); },
                      [&] { k::portable_conv2d_int4(p, input_buf, packed, bias_buf, output_buf); });
    }
    case Kind::kDepthwise16x8: {
      const k::DepthwiseConvParams p = wide_depthwise_params(l, q);
      return run_both(
          l, k::built_depthwise_conv_16x8_kernel_variant(p.shape),
          [&] { k::depthwise_conv2d_16x8(p, input16, filter_buf, bias64_buf, output16); },
          [&] { k::portable_depthwise_conv2d_16x8(p, input16, filter_buf, bias64_buf, output16); });
    }
    case Kind::kDepthwiseInt4: {
      const k::DepthwiseConvParams p = wide_depthwise_params(l, q);
      return run_both(
          l, k::built_depthwise_conv_int4_kernel_variant(p.shape),
          [&] { k::depthwise_conv2d_int4(p, input_buf, packed, bias_buf, output_buf); },
          [&] { k::portable_depthwise_conv2d_int4(p, input_buf, packed, bias_buf, output_buf); });
    }
    case Kind::kFullyConnected16x8: {
      const k::FullyConnectedParams p = wide_fully_connected_params(l, q);
      return run_both(
          l, k::built_fully_connected_16x8_kernel_variant(p.output_depth),
          [&] { k::fully_connected_16x8(p, input16, filter_buf, bias64_buf, output16); },
          [&] { k::portable_fully_connected_16x8(p, input16, filter_buf, bias64_buf, output16); });
    }
    case Kind::kFullyConnectedInt4: {
      const k::FullyConnectedParams p = wide_fully_connected_params(l, q);
      return run_both(
          l, k::built_fully_connected_int4_kernel_variant(p.output_depth),
          [&] { k::fully_connected_int4(p, input_buf, packed, bias_buf, output_buf); },
          [&] { k::portable_fully_connected_int4(p, input_buf, packed, bias_buf, output_buf); });
    }
    default:
      return {{0, "", false}, 0, 0};
  }
}

Measured run(const grid::Layer& l, const grid::Quantization& q) {
  switch (l.kind) {
    case Kind::kConv: return run_conv(l, q);
    case Kind::kDepthwise: return run_depthwise(l, q);
    case Kind::kFullyConnected: return run_fully_connected(l, q);
    case Kind::kAveragePool: return run_average_pool(l, q);
    case Kind::kMaxPool: return run_max_pool(l, q);
    case Kind::kAdd:
    case Kind::kAddBroadcast: return run_add(l, q);
    case Kind::kMul:
    case Kind::kMulBroadcast: return run_mul(l, q);
    case Kind::kRequantize: return run_requantize(l, q);
    case Kind::kSoftmax: return run_softmax(l, q);
    case Kind::kMean: return run_mean(l, q);
    case Kind::kQuantize: return run_quantize(l, q);
    case Kind::kDequantize: return run_dequantize(l, q);
    default: return {0, "", false};  // the 16x8 and int4 rows: run_wide
  }
}

// "49x10x1 -> 25x5x64, 10x4 s2": input, output, window and stride (VALID where it pads
// differently, groups where grouped). Broadcast: "14x14x96 * 1x1x96"; mean "7x7x1280 ->
// 1x1x1280"; quantize "96x96x3 float32 -> int8".
void shape_text(Line& line, const grid::Layer& l) {
  if (grid::shape_kind(l.kind) == Kind::kFullyConnected) {
    line.signed_number(l.c).text(" -> ").signed_number(l.out_c);
    return;
  }
  line.signed_number(l.h).character('x').signed_number(l.w).character('x').signed_number(l.c);
  if (grid::is_broadcast(l.kind)) {
    line.text(l.kind == Kind::kAddBroadcast ? " + " : " * ").text("1x1x").signed_number(l.out_c);
    return;
  }
  if (l.kind == Kind::kQuantize) line.text(" float32 -> int8");
  if (l.kind == Kind::kDequantize) line.text(" int8 -> float32");
  if (grid::keeps_shape(l.kind)) return;
  const grid::Geometry g = grid::geometry(l);
  if (l.kind == Kind::kMean) {
    line.text(" -> ").signed_number(g.out_h).character('x').signed_number(g.out_w).character('x');
    line.signed_number(l.out_c);
    return;
  }
  line.text(" -> ").signed_number(g.out_h).character('x').signed_number(g.out_w).character('x');
  line.signed_number(l.out_c).text(", ").signed_number(l.kh).character('x').signed_number(l.kw);
  if (l.stride != 1) line.text(" s").signed_number(l.stride);
  if (!l.same && (l.kh > 1 || l.kw > 1)) line.text(" valid");
  if (l.groups > 1) line.text(" g").signed_number(l.groups);
}

bool fits(const grid::Layer& l) {
  const bool channel_arrays = grid::filter_elements(l) > 0;
  return grid::input_elements(l) * grid::input_element_bytes(l.kind) <= grid::kMaxInput &&
         grid::input2_elements(l) <= grid::kMaxInput &&
         grid::output_elements(l) * grid::output_element_bytes(l.kind) <= grid::kMaxOutput &&
         grid::filter_elements(l) <= grid::kMaxFilter &&
         (!channel_arrays || l.out_c <= grid::kMaxChannels);
}

}  // namespace

int main() {
  mote::platform::start_instruction_counter();
  int failed = 0;
  for (const grid::Layer& l : grid::kLayers) {
    if (!fits(l)) {
      Line().text("grid: ").text(l.id).text(" does not fit the buffers").end();
      ++failed;
      continue;
    }
    const bool wide = grid::is_16x8(l.kind) || grid::is_int4(l.kind);
    const grid::Quantization q =
        wide ? grid::fill_wide(l, input16, input_buf, filter_buf, bias64_buf, bias_buf,
                               multiplier_buf, shift_buf)
             : grid::fill(l, input_buf, input2_buf, filter_buf, bias_buf, multiplier_buf, shift_buf);
    WideMeasured w{};
    const Measured m = wide ? (w = run_wide(l, q)).variant : run(l, q);
    if (!m.ran) {
      Line().text("grid: ").text(l.id).text(" has parameters the kernels do not take").end();
      ++failed;
      continue;
    }
    Line line;
    line.text("grid\t").text(l.id).character('\t').text(l.family).character('\t');
    shape_text(line, l);
    line.character('\t').unsigned_number(m.instructions).character('\t').text(m.variant);
    line.character('\t').hex(output_checksum(l));
    line.end();
    if (wide) {
      Line().text("portable\t").text(l.id).character('\t').unsigned_number(w.portable)
          .character('\t').hex(w.portable_checksum).end();
    }
  }
  Line().text(failed == 0 ? "grid: ok" : "grid: failed").end();
  return failed == 0 ? 0 : 1;
}
