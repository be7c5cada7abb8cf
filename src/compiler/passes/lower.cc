#include "compiler/passes/lower.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/ir/validate.h"
#include "compiler/planner/report.h"
#include "mote/kernels/add.h"
#include "mote/kernels/concatenation.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/hard_swish.h"
#include "mote/kernels/logistic.h"
#include "mote/kernels/mean.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/quantization.h"
#include "mote/kernels/quantize.h"
#include "mote/kernels/softmax.h"

namespace mote::passes {
namespace {

using ir::OpType;

kernels::FusedActivation fused(ir::Activation activation) {
  switch (activation) {
    case ir::Activation::kNone: return kernels::FusedActivation::kNone;
    case ir::Activation::kRelu: return kernels::FusedActivation::kRelu;
    case ir::Activation::kReluN1To1: return kernels::FusedActivation::kReluN1To1;
    case ir::Activation::kRelu6: return kernels::FusedActivation::kRelu6;
  }
  return kernels::FusedActivation::kNone;
}

// Scale and zero point of a per-tensor quantized tensor.
float scale_of(const ir::Tensor& t) { return t.quantization.scale.at(0); }
int32_t zero_point_of(const ir::Tensor& t) {
  return static_cast<int32_t>(t.quantization.zero_point.at(0));
}

// The values of a constant int32 or int64 tensor (shapes, axes, paddings, permutations).
std::vector<int32_t> int_values(const ir::Tensor& t) {
  std::vector<int32_t> values(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < values.size(); ++i) {
    if (t.type == ir::DataType::kInt64) {
      int64_t v;
      std::memcpy(&v, t.data.data() + 8 * i, 8);
      values[i] = static_cast<int32_t>(v);
    } else {
      std::memcpy(&values[i], t.data.data() + 4 * i, 4);
    }
  }
  return values;
}

class Lowering {
 public:
  Lowering(const ir::Graph& graph, const MemoryProblem& memory, const planner::Plan& plan,
           const LowerOptions& options)
      : graph_(graph), memory_(memory), plan_(plan), options_(options),
        remap_(graph.tensors.size(), ir::kNoTensor) {}

  LoweredProgram run(const planner::LowerBound& bound) {
    for (size_t step = 0; step < graph_.operators.size(); ++step) {
      step_ = step;
      program_.operators.push_back(lower_op(graph_.operators[step]));
    }
    for (int32_t t : graph_.inputs) program_.inputs.push_back(use(t));
    for (int32_t t : graph_.outputs) program_.outputs.push_back(use(t));

    program_.target = std::make_unique<schema::TargetT>();
    program_.target->cpu = options_.cpu;
    program_.target->extension = static_cast<schema::Extension>(options_.extension);
    program_.arena_size = static_cast<uint32_t>(plan_.arena_bytes);
    program_.arena_alignment = planner::arena_alignment(memory_.problem);

    const planner::PlanFigures split = planner::plan_figures(memory_.problem, bound, plan_);
    program_.plan = std::make_unique<schema::PlanStatsT>();
    program_.plan->algorithm =
        plan_.chosen.empty() || plan_.chosen == plan_.algorithm
            ? plan_.algorithm
            : plan_.algorithm + " (" + plan_.chosen + ")";
    program_.plan->lower_bound = static_cast<uint32_t>(bound.bytes);
    program_.plan->activation_bytes = static_cast<uint32_t>(split.activation_bytes);
    program_.plan->scratch_bytes = static_cast<uint32_t>(split.scratch_bytes);
    program_.plan->optimal = plan_.optimal;
    program_.constants = constants_.take();
    return {std::move(program_), std::move(remap_)};
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const {
    const ir::Operator& op = graph_.operators[step_];
    throw InputError("operator " + std::to_string(step_) + " (" +
                     std::string(ir::to_string(op.type)) + "): " + reason);
  }

  const ir::Tensor& tensor(int32_t index) const {
    return graph_.tensors[static_cast<size_t>(index)];
  }

  // The program's index of IR tensor `index`, emitting the tensor on first use.
  int32_t use(int32_t index) {
    if (index == ir::kNoTensor) return -1;
    const size_t t = static_cast<size_t>(index);
    if (remap_[t] != ir::kNoTensor) return remap_[t];
    const ir::Tensor& source = graph_.tensors[t];
    auto out = std::make_unique<schema::TensorT>();
    if (options_.keep_names) out->name = source.name;
    out->type = static_cast<schema::DataType>(source.type);
    out->shape = source.shape;
    if (source.quantization.scale.size() == 1) {
      out->scale = source.quantization.scale[0];
      out->zero_point = static_cast<int32_t>(source.quantization.zero_point[0]);
    }
    out->size = static_cast<uint32_t>(source.num_bytes());
    out->alias = -1;
    if (source.is_constant) {
      out->location = schema::Location::Constant;
      out->offset = constants_.add(source.data);
    } else {
      const int32_t buffer = memory_.tensor_buffer[t];
      if (buffer == kNoBuffer) {
        throw std::logic_error("tensor " + std::to_string(t) + " has no arena buffer");
      }
      const int32_t owner = memory_.buffer_owner[t];
      if (owner != index) out->alias = use(owner);
      const planner::Buffer& b = memory_.problem.buffers[static_cast<size_t>(buffer)];
      out->location = schema::Location::Arena;
      out->offset = static_cast<uint32_t>(plan_.offsets[static_cast<size_t>(buffer)]);
      out->first_step = static_cast<uint32_t>(b.first_step);
      out->last_step = static_cast<uint32_t>(b.last_step);
    }
    remap_[t] = static_cast<int32_t>(program_.tensors.size());
    program_.tensors.push_back(std::move(out));
    return remap_[t];
  }

  kernels::ActivationRange activation_range(ir::Activation activation, int32_t output) const {
    const ir::Tensor& out = tensor(output);
    return kernels::activation_range_int8(fused(activation), scale_of(out), zero_point_of(out));
  }

  // Per output channel multipliers and shifts of input_scale * weight_scale[c] / output_scale,
  // computed in double as TFLite's PopulateConvolutionQuantizationParams does.
  void channel_requant(const ir::Operator& op, int32_t channels, schema::Region* multipliers,
                       schema::Region* shifts) {
    const double input_scale = scale_of(tensor(op.inputs[0]));
    const double output_scale = scale_of(tensor(op.outputs[0]));
    const auto& weight_scales = tensor(op.inputs[1]).quantization.scale;
    std::vector<int32_t> m(static_cast<size_t>(channels)), s(static_cast<size_t>(channels));
    for (int32_t c = 0; c < channels; ++c) {
      const double w = weight_scales.size() > 1 ? weight_scales[static_cast<size_t>(c)]
                                                : weight_scales[0];
      const auto q = kernels::quantize_multiplier(input_scale * w / output_scale);
      m[static_cast<size_t>(c)] = q.multiplier;
      s[static_cast<size_t>(c)] = q.shift;
    }
    *multipliers = constants_.add_array(m);
    *shifts = constants_.add_array(s);
  }

  std::unique_ptr<schema::OperatorT> lower_op(const ir::Operator& op) {
    auto out = std::make_unique<schema::OperatorT>();
    // Data inputs the runtime reads; parameter inputs are folded into options below.
    size_t data_inputs = op.inputs.size();
    switch (op.type) {
      case OpType::kConv2D: out->kind = schema::OpKind::Conv2D; lower_conv(op, *out); break;
      case OpType::kDepthwiseConv2D:
        out->kind = schema::OpKind::DepthwiseConv2D;
        lower_depthwise(op, *out);
        break;
      case OpType::kFullyConnected:
        out->kind = schema::OpKind::FullyConnected;
        lower_fully_connected(op, *out);
        break;
      case OpType::kAveragePool2D:
      case OpType::kMaxPool2D:
        out->kind = op.type == OpType::kAveragePool2D ? schema::OpKind::AveragePool2D
                                                      : schema::OpKind::MaxPool2D;
        lower_pool(op, *out);
        break;
      case OpType::kAdd: out->kind = schema::OpKind::Add; lower_add(op, *out); break;
      case OpType::kMul: out->kind = schema::OpKind::Mul; lower_mul(op, *out); break;
      case OpType::kSoftmax: out->kind = schema::OpKind::Softmax; lower_softmax(op, *out); break;
      case OpType::kReshape: out->kind = schema::OpKind::Reshape; data_inputs = 1; break;
      case OpType::kQuantize: out->kind = schema::OpKind::Quantize; lower_quantize(op, *out); break;
      case OpType::kDequantize: out->kind = schema::OpKind::Dequantize; break;
      case OpType::kPad: out->kind = schema::OpKind::Pad; lower_pad(op, *out); data_inputs = 1; break;
      case OpType::kMean: out->kind = schema::OpKind::Mean; lower_mean(op, *out); data_inputs = 1; break;
      case OpType::kConcatenation:
        out->kind = schema::OpKind::Concatenation;
        lower_concatenation(op, *out);
        break;
      case OpType::kTranspose:
        out->kind = schema::OpKind::Transpose;
        lower_transpose(op, *out);
        data_inputs = 1;
        break;
      case OpType::kLogistic: out->kind = schema::OpKind::Logistic; lower_logistic(op, *out); break;
      case OpType::kResizeNearestNeighbor: {
        out->kind = schema::OpKind::ResizeNearestNeighbor;
        const auto& o = std::get<ir::ResizeNearestNeighborOptions>(op.options);
        schema::ResizeNearestNeighborOptionsT r;
        r.align_corners = o.align_corners;
        r.half_pixel_centers = o.half_pixel_centers;
        out->options.Set(std::move(r));
        data_inputs = 1;
        break;
      }
      case OpType::kHardSwish:
        out->kind = schema::OpKind::HardSwish;
        lower_hard_swish(op, *out);
        break;
    }
    for (size_t k = 0; k < data_inputs && k < op.inputs.size(); ++k) {
      out->inputs.push_back(use(op.inputs[k]));
    }
    for (int32_t t : op.outputs) out->outputs.push_back(use(t));
    const int32_t scratch = memory_.op_scratch_buffer[step_];
    if (scratch != kNoBuffer) {
      const auto b = static_cast<size_t>(scratch);
      out->scratch = std::make_unique<schema::Region>(
          static_cast<uint32_t>(plan_.offsets[b]),
          static_cast<uint32_t>(memory_.problem.buffers[b].size));
    }
    return out;
  }

  void lower_conv(const ir::Operator& op, schema::OperatorT& out) {
    const auto& o = std::get<ir::Conv2DOptions>(op.options);
    const kernels::ConvShape shape = conv_shape(graph_, op);
    schema::ConvOptionsT c;
    c.stride_h = shape.stride_h;
    c.stride_w = shape.stride_w;
    c.pad_h = shape.pad_h;
    c.pad_w = shape.pad_w;
    c.dilation_h = shape.dilation_h;
    c.dilation_w = shape.dilation_w;
    c.input_offset = -zero_point_of(tensor(op.inputs[0]));
    c.output_offset = zero_point_of(tensor(op.outputs[0]));
    const auto range = activation_range(o.activation, op.outputs[0]);
    c.activation_min = range.min;
    c.activation_max = range.max;
    schema::Region m, s;
    channel_requant(op, shape.output_c, &m, &s);
    c.multipliers = std::make_unique<schema::Region>(m);
    c.shifts = std::make_unique<schema::Region>(s);
    out.options.Set(std::move(c));
  }

  void lower_depthwise(const ir::Operator& op, schema::OperatorT& out) {
    const auto& o = std::get<ir::DepthwiseConv2DOptions>(op.options);
    const kernels::DepthwiseShape shape = depthwise_shape(graph_, op);
    schema::DepthwiseConvOptionsT d;
    d.stride_h = shape.stride_h;
    d.stride_w = shape.stride_w;
    d.pad_h = shape.pad_h;
    d.pad_w = shape.pad_w;
    d.dilation_h = shape.dilation_h;
    d.dilation_w = shape.dilation_w;
    d.depth_multiplier = shape.output_c / shape.input_c;
    d.input_offset = -zero_point_of(tensor(op.inputs[0]));
    d.output_offset = zero_point_of(tensor(op.outputs[0]));
    const auto range = activation_range(o.activation, op.outputs[0]);
    d.activation_min = range.min;
    d.activation_max = range.max;
    schema::Region m, s;
    channel_requant(op, shape.output_c, &m, &s);
    d.multipliers = std::make_unique<schema::Region>(m);
    d.shifts = std::make_unique<schema::Region>(s);
    out.options.Set(std::move(d));
  }

  void lower_fully_connected(const ir::Operator& op, schema::OperatorT& out) {
    const auto& o = std::get<ir::FullyConnectedOptions>(op.options);
    const ir::Tensor& input = tensor(op.inputs[0]);
    const ir::Tensor& filter = tensor(op.inputs[1]);
    const int32_t output_depth = filter.shape[0];
    const int32_t input_depth = filter.shape[1];

    schema::FullyConnectedOptionsT f;
    f.input_offset = -zero_point_of(input);
    f.filter_offset = -static_cast<int32_t>(filter.quantization.zero_point.at(0));
    f.output_offset = zero_point_of(tensor(op.outputs[0]));
    const auto range = activation_range(o.activation, op.outputs[0]);
    f.activation_min = range.min;
    f.activation_max = range.max;
    if (filter.quantization.per_channel()) {
      schema::Region m, s;
      channel_requant(op, output_depth, &m, &s);
      f.multipliers = std::make_unique<schema::Region>(m);
      f.shifts = std::make_unique<schema::Region>(s);
    } else {
      const auto q = kernels::quantize_multiplier(static_cast<double>(scale_of(input)) *
                                                  static_cast<double>(filter.quantization.scale[0]) /
                                                  static_cast<double>(scale_of(tensor(op.outputs[0]))));
      f.output_requant = std::make_unique<schema::Requant>(q.multiplier, q.shift);
    }

    // Kernel sums: the bias and every input-independent term, so the kernel's inner loop is a
    // plain dot product (and CMSIS-NN's MVE buffer becomes a constant).
    kernels::FullyConnectedParams params{};
    params.batches = static_cast<int32_t>(input.num_elements() / input_depth);
    params.input_depth = input_depth;
    params.output_depth = output_depth;
    params.input_offset = f.input_offset;
    params.filter_offset = f.filter_offset;
    std::vector<int32_t> bias;
    if (op.inputs.size() > 2 && op.inputs[2] != ir::kNoTensor) {
      const ir::Tensor& b = tensor(op.inputs[2]);
      bias.resize(static_cast<size_t>(output_depth));
      std::memcpy(bias.data(), b.data.data(), bias.size() * 4);
    }
    std::vector<int32_t> sums(static_cast<size_t>(output_depth));
    kernels::fully_connected_kernel_sums(params, reinterpret_cast<const int8_t*>(filter.data.data()),
                                         bias.empty() ? nullptr : bias.data(), sums.data());
    f.kernel_sums = std::make_unique<schema::Region>(constants_.add_array(sums));
    out.options.Set(std::move(f));
  }

  void lower_pool(const ir::Operator& op, schema::OperatorT& out) {
    const auto& o = std::get<ir::Pool2DOptions>(op.options);
    const ir::Tensor& input = tensor(op.inputs[0]);
    schema::PoolOptionsT p;
    p.stride_h = o.stride_h;
    p.stride_w = o.stride_w;
    p.filter_h = o.filter_h;
    p.filter_w = o.filter_w;
    p.pad_h = static_cast<int32_t>(
        ir::window_padding_before(input.shape[1], o.filter_h, o.stride_h, 1, o.padding));
    p.pad_w = static_cast<int32_t>(
        ir::window_padding_before(input.shape[2], o.filter_w, o.stride_w, 1, o.padding));
    const auto range = activation_range(o.activation, op.outputs[0]);
    p.activation_min = range.min;
    p.activation_max = range.max;
    out.options.Set(std::move(p));
  }

  void lower_add(const ir::Operator& op, schema::OperatorT& out) {
    const auto& o = std::get<ir::ElementwiseOptions>(op.options);
    const ir::Tensor& a = tensor(op.inputs[0]);
    const ir::Tensor& b = tensor(op.inputs[1]);
    const ir::Tensor& y = tensor(op.outputs[0]);
    const auto range = activation_range(o.activation, op.outputs[0]);
    const kernels::AddParams p =
        kernels::prepare_add(scale_of(a), zero_point_of(a), scale_of(b), zero_point_of(b),
                             scale_of(y), zero_point_of(y), range.min, range.max);
    schema::AddOptionsT add;
    add.input1_offset = p.input1_offset;
    add.input2_offset = p.input2_offset;
    add.output_offset = p.output_offset;
    add.left_shift = p.left_shift;
    add.input1_requant = std::make_unique<schema::Requant>(p.input1_multiplier, p.input1_shift);
    add.input2_requant = std::make_unique<schema::Requant>(p.input2_multiplier, p.input2_shift);
    add.output_requant = std::make_unique<schema::Requant>(p.output_multiplier, p.output_shift);
    add.activation_min = p.act_min;
    add.activation_max = p.act_max;
    out.options.Set(std::move(add));
  }

  void lower_mul(const ir::Operator& op, schema::OperatorT& out) {
    const auto& o = std::get<ir::ElementwiseOptions>(op.options);
    const ir::Tensor& a = tensor(op.inputs[0]);
    const ir::Tensor& b = tensor(op.inputs[1]);
    const ir::Tensor& y = tensor(op.outputs[0]);
    const auto range = activation_range(o.activation, op.outputs[0]);
    const kernels::MulParams p =
        kernels::prepare_mul(scale_of(a), zero_point_of(a), scale_of(b), zero_point_of(b),
                             scale_of(y), zero_point_of(y), range.min, range.max);
    schema::MulOptionsT mul;
    mul.input1_offset = p.input1_offset;
    mul.input2_offset = p.input2_offset;
    mul.output_offset = p.output_offset;
    mul.output_requant = std::make_unique<schema::Requant>(p.output_multiplier, p.output_shift);
    mul.activation_min = p.act_min;
    mul.activation_max = p.act_max;
    out.options.Set(std::move(mul));
  }

  void lower_softmax(const ir::Operator& op, schema::OperatorT& out) {
    const auto& o = std::get<ir::SoftmaxOptions>(op.options);
    const ir::Tensor& input = tensor(op.inputs[0]);
    const int32_t row_size = input.shape.back();
    const auto p = kernels::prepare_softmax(
        static_cast<int32_t>(input.num_elements() / row_size), row_size, scale_of(input), o.beta);
    // The runtime's (and TFLite's) int8 softmax shifts the scaled differences left.
    if (p.input_left_shift < 0) {
      fail("beta x input scale " + std::to_string(o.beta * scale_of(input)) +
           " too small for the int8 kernel (needs at least 2^-27)");
    }
    schema::SoftmaxOptionsT s;
    s.input_multiplier = p.input_multiplier;
    s.input_left_shift = p.input_left_shift;
    s.diff_min = p.diff_min;
    out.options.Set(std::move(s));
  }

  void lower_quantize(const ir::Operator& op, schema::OperatorT& out) {
    const ir::Tensor& input = tensor(op.inputs[0]);
    const ir::Tensor& output = tensor(op.outputs[0]);
    schema::QuantizeOptionsT q;
    q.output_offset = zero_point_of(output);
    if (input.type == ir::DataType::kInt8) {
      const auto p = kernels::prepare_requantize(scale_of(input), zero_point_of(input),
                                                 scale_of(output), zero_point_of(output));
      q.input_offset = -zero_point_of(input);
      q.requant = std::make_unique<schema::Requant>(p.multiplier, p.shift);
    }
    out.options.Set(std::move(q));
  }

  void lower_pad(const ir::Operator& op, schema::OperatorT& out) {
    const std::vector<int32_t> amounts = int_values(tensor(op.inputs[1]));
    schema::PadOptionsT p;
    for (size_t d = 0; d + 1 < amounts.size(); d += 2) {
      p.before.push_back(amounts[d]);
      p.after.push_back(amounts[d + 1]);
    }
    p.pad_value = zero_point_of(tensor(op.outputs[0]));
    out.options.Set(std::move(p));
  }

  void lower_mean(const ir::Operator& op, schema::OperatorT& out) {
    const auto& o = std::get<ir::MeanOptions>(op.options);
    const ir::Tensor& input = tensor(op.inputs[0]);
    const ir::Tensor& output = tensor(op.outputs[0]);
    std::vector<int32_t> axes = int_values(tensor(op.inputs[1]));
    for (int32_t& a : axes) {
      if (a < 0) a += static_cast<int32_t>(input.shape.size());
    }
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    if (input.shape.size() != 4 || axes != std::vector<int32_t>{1, 2}) {
      fail("MEAN is supported over axes [1, 2] of a 4-D input only");
    }
    const auto p = kernels::prepare_mean(input.shape[0], input.shape[1], input.shape[2],
                                         input.shape[3], scale_of(input), zero_point_of(input),
                                         scale_of(output), zero_point_of(output),
                                         kernels::MeanFormula::kTfLite);
    schema::MeanOptionsT m;
    m.axes = axes;
    m.keep_dims = o.keep_dims;
    m.input_offset = -p.input_zero_point;
    m.output_offset = p.output_zero_point;
    m.requant = std::make_unique<schema::Requant>(p.multiplier, p.shift);
    m.formula = schema::MeanFormula::TfLite;
    out.options.Set(std::move(m));
  }

  void lower_concatenation(const ir::Operator& op, schema::OperatorT& out) {
    const auto& o = std::get<ir::ConcatenationOptions>(op.options);
    const ir::Tensor& output = tensor(op.outputs[0]);
    const int32_t rank = static_cast<int32_t>(output.shape.size());
    const int32_t axis = o.axis < 0 ? o.axis + rank : o.axis;
    schema::ConcatenationOptionsT c;
    c.axis = axis;
    bool any_requant = false;
    std::vector<schema::ConcatRequant> requants;
    for (int32_t t : op.inputs) {
      const ir::Tensor& input = tensor(t);
      const auto p = kernels::prepare_concatenation_input(
          rank, input.shape.data(), axis, scale_of(input), zero_point_of(input),
          scale_of(output), zero_point_of(output));
      any_requant = any_requant || p.requantize;
      requants.emplace_back(p.requantize, -p.input_zero_point,
                            schema::Requant(p.multiplier, p.shift));
    }
    if (any_requant) c.requant = std::move(requants);
    out.options.Set(std::move(c));
  }

  void lower_transpose(const ir::Operator& op, schema::OperatorT& out) {
    schema::TransposeOptionsT t;
    t.perm = int_values(tensor(op.inputs[1]));
    out.options.Set(std::move(t));
  }

  void lower_logistic(const ir::Operator& op, schema::OperatorT& out) {
    const ir::Tensor& input = tensor(op.inputs[0]);
    const auto p = kernels::prepare_logistic(scale_of(input), zero_point_of(input));
    // What the runtime's shifts can take: input scales in [2^-59, 8).
    if (p.input_left_shift < -31 || p.input_left_shift > 30) {
      fail("input scale " + std::to_string(scale_of(input)) +
           " outside what the int8 kernel supports ([2^-59, 8))");
    }
    schema::LogisticOptionsT l;
    l.input_zero_point = p.input_zero_point;
    l.input_range_radius = p.input_range_radius;
    l.input_multiplier = p.input_multiplier;
    l.input_left_shift = p.input_left_shift;
    out.options.Set(std::move(l));
  }

  void lower_hard_swish(const ir::Operator& op, schema::OperatorT& out) {
    const ir::Tensor& input = tensor(op.inputs[0]);
    const ir::Tensor& output = tensor(op.outputs[0]);
    const auto p = kernels::prepare_hard_swish(scale_of(input), zero_point_of(input),
                                               scale_of(output), zero_point_of(output));
    if (p.output_multiplier_exponent > 0) {
      fail("output scale too small for the input scale (TFLite requires a non-positive exponent)");
    }
    // The int16 fixed-point kernel shifts by these exponents.
    if (p.output_multiplier_exponent < -30 || p.reluish_multiplier_exponent < -30 ||
        p.reluish_multiplier_exponent > 30) {
      fail("input scale " + std::to_string(scale_of(input)) + " or output scale " +
           std::to_string(scale_of(output)) + " outside what the int8 kernel supports");
    }
    schema::HardSwishOptionsT h;
    h.input_zero_point = p.input_zero_point;
    h.output_zero_point = p.output_zero_point;
    h.reluish_multiplier_fixedpoint_int16 = p.reluish_multiplier_fixedpoint_int16;
    h.reluish_multiplier_exponent = p.reluish_multiplier_exponent;
    h.output_multiplier_fixedpoint_int16 = p.output_multiplier_fixedpoint_int16;
    h.output_multiplier_exponent = p.output_multiplier_exponent;
    out.options.Set(std::move(h));
  }

  const ir::Graph& graph_;
  const MemoryProblem& memory_;
  const planner::Plan& plan_;
  const LowerOptions& options_;
  std::vector<int32_t> remap_;
  schema::ProgramT program_;
  emit::ConstantPool constants_;
  size_t step_ = 0;
};

}  // namespace

LoweredProgram lower(const ir::Graph& graph, const MemoryProblem& memory,
                     const planner::Plan& plan, const planner::LowerBound& bound,
                     const LowerOptions& options) {
  return Lowering(graph, memory, plan, options).run(bound);
}

}  // namespace mote::passes
