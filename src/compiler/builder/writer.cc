#include "compiler/builder/writer.h"

#include <algorithm>
#include <stdexcept>

#include "compiler/tflite/builtin_codes.h"

namespace mote::builder {
namespace {

namespace fb = tflite::fb;

int8_t activation_code(ir::Activation a) {
  switch (a) {
    case ir::Activation::kNone: return 0;
    case ir::Activation::kRelu: return 1;
    case ir::Activation::kReluN1To1: return 2;
    case ir::Activation::kRelu6: return 3;
  }
  return 0;
}

int8_t padding_code(ir::Padding p) { return p == ir::Padding::kSame ? 0 : 1; }

void set_options(const ir::Operator& op, fb::OperatorT* out) {
  auto& u = out->builtin_options;
  switch (op.type) {
    case ir::OpType::kConv2D: {
      const auto& o = std::get<ir::Conv2DOptions>(op.options);
      fb::Conv2DOptionsT t;
      t.padding = padding_code(o.padding);
      t.stride_w = o.stride_w;
      t.stride_h = o.stride_h;
      t.dilation_w_factor = o.dilation_w;
      t.dilation_h_factor = o.dilation_h;
      t.fused_activation_function = activation_code(o.activation);
      u.Set(std::move(t));
      break;
    }
    case ir::OpType::kDepthwiseConv2D: {
      const auto& o = std::get<ir::DepthwiseConv2DOptions>(op.options);
      fb::DepthwiseConv2DOptionsT t;
      t.padding = padding_code(o.padding);
      t.stride_w = o.stride_w;
      t.stride_h = o.stride_h;
      t.depth_multiplier = o.depth_multiplier;
      t.dilation_w_factor = o.dilation_w;
      t.dilation_h_factor = o.dilation_h;
      t.fused_activation_function = activation_code(o.activation);
      u.Set(std::move(t));
      break;
    }
    case ir::OpType::kFullyConnected: {
      const auto& o = std::get<ir::FullyConnectedOptions>(op.options);
      fb::FullyConnectedOptionsT t;
      t.fused_activation_function = activation_code(o.activation);
      t.keep_num_dims = o.keep_num_dims;
      u.Set(std::move(t));
      break;
    }
    case ir::OpType::kAveragePool2D:
    case ir::OpType::kMaxPool2D: {
      const auto& o = std::get<ir::Pool2DOptions>(op.options);
      fb::Pool2DOptionsT t;
      t.padding = padding_code(o.padding);
      t.stride_w = o.stride_w;
      t.stride_h = o.stride_h;
      t.filter_width = o.filter_w;
      t.filter_height = o.filter_h;
      t.fused_activation_function = activation_code(o.activation);
      u.Set(std::move(t));
      break;
    }
    case ir::OpType::kAdd: {
      fb::AddOptionsT t;
      t.fused_activation_function =
          activation_code(std::get<ir::ElementwiseOptions>(op.options).activation);
      u.Set(std::move(t));
      break;
    }
    case ir::OpType::kMul: {
      fb::MulOptionsT t;
      t.fused_activation_function =
          activation_code(std::get<ir::ElementwiseOptions>(op.options).activation);
      u.Set(std::move(t));
      break;
    }
    case ir::OpType::kSoftmax: {
      fb::SoftmaxOptionsT t;
      t.beta = std::get<ir::SoftmaxOptions>(op.options).beta;
      u.Set(std::move(t));
      break;
    }
    case ir::OpType::kReshape: {
      fb::ReshapeOptionsT t;
      t.new_shape = std::get<ir::ReshapeOptions>(op.options).new_shape;
      u.Set(std::move(t));
      break;
    }
    case ir::OpType::kConcatenation: {
      const auto& o = std::get<ir::ConcatenationOptions>(op.options);
      fb::ConcatenationOptionsT t;
      t.axis = o.axis;
      t.fused_activation_function = activation_code(o.activation);
      u.Set(std::move(t));
      break;
    }
    case ir::OpType::kMean: {
      fb::ReducerOptionsT t;
      t.keep_dims = std::get<ir::MeanOptions>(op.options).keep_dims;
      u.Set(std::move(t));
      break;
    }
    case ir::OpType::kResizeNearestNeighbor: {
      const auto& o = std::get<ir::ResizeNearestNeighborOptions>(op.options);
      fb::ResizeNearestNeighborOptionsT t;
      t.align_corners = o.align_corners;
      t.half_pixel_centers = o.half_pixel_centers;
      u.Set(std::move(t));
      break;
    }
    // Empty tables, as TFLite's converter writes them (LOGISTIC has none).
    case ir::OpType::kQuantize: u.Set(fb::QuantizeOptionsT{}); break;
    case ir::OpType::kDequantize: u.Set(fb::DequantizeOptionsT{}); break;
    case ir::OpType::kPad: u.Set(fb::PadOptionsT{}); break;
    case ir::OpType::kTranspose: u.Set(fb::TransposeOptionsT{}); break;
    case ir::OpType::kHardSwish: u.Set(fb::HardSwishOptionsT{}); break;
    case ir::OpType::kLogistic: break;
  }
}

std::vector<uint8_t> pack(const fb::ModelT& model) {
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, &model));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

size_t align16(size_t n) { return (n + 15) & ~size_t{15}; }

}  // namespace

std::unique_ptr<fb::ModelT> to_tflite_object(const ir::Graph& g) {
  auto model = std::make_unique<fb::ModelT>();
  model->version = 3;
  model->description = "mote builder";
  model->buffers.push_back(std::make_unique<fb::BufferT>());  // buffer 0: "no data"

  auto sg = std::make_unique<fb::SubGraphT>();
  sg->name = "main";
  for (const ir::Tensor& t : g.tensors) {
    auto ft = std::make_unique<fb::TensorT>();
    ft->name = t.name;
    ft->shape = t.shape;
    ft->type = tflite::tensor_type(t.type);
    if (t.is_constant) {
      auto buffer = std::make_unique<fb::BufferT>();
      buffer->data = t.data;
      ft->buffer = static_cast<uint32_t>(model->buffers.size());
      model->buffers.push_back(std::move(buffer));
    }
    if (!t.quantization.empty()) {
      auto q = std::make_unique<fb::QuantizationParametersT>();
      q->scale = t.quantization.scale;
      q->zero_point = t.quantization.zero_point;
      q->quantized_dimension = t.quantization.quantized_dimension;
      ft->quantization = std::move(q);
    }
    sg->tensors.push_back(std::move(ft));
  }

  std::vector<int32_t> codes;  // builtin code of each OperatorCode, in order of first use
  for (const ir::Operator& op : g.operators) {
    const int32_t code = tflite::builtin_code(op.type);
    auto it = std::find(codes.begin(), codes.end(), code);
    if (it == codes.end()) {
      auto oc = std::make_unique<fb::OperatorCodeT>();
      oc->deprecated_builtin_code =
          static_cast<int8_t>(std::min(code, tflite::kBuiltinPlaceholderForGreaterOpCodes));
      oc->builtin_code = code;
      oc->version = 1;
      model->operator_codes.push_back(std::move(oc));
      codes.push_back(code);
      it = codes.end() - 1;
    }
    auto fop = std::make_unique<fb::OperatorT>();
    fop->opcode_index = static_cast<uint32_t>(it - codes.begin());
    fop->inputs = op.inputs;
    fop->outputs = op.outputs;
    set_options(op, fop.get());
    sg->operators.push_back(std::move(fop));
  }
  sg->inputs = g.inputs;
  sg->outputs = g.outputs;
  model->subgraphs.push_back(std::move(sg));
  return model;
}

std::vector<uint8_t> pack_model(fb::ModelT& model, const WriteOptions& options) {
  if (!options.external_buffers) return pack(model);

  // Move the data out and pack twice: first with placeholder offsets to learn the flatbuffer's
  // size (offset and size fields are present either way, so the size does not change), then
  // with the real offsets.
  std::vector<std::vector<uint8_t>> data(model.buffers.size());
  for (size_t i = 0; i < model.buffers.size(); ++i) {
    fb::BufferT& b = *model.buffers[i];
    if (b.data.empty()) continue;
    data[i] = std::move(b.data);
    b.data.clear();
    b.offset = 2;
    b.size = data[i].size();
  }
  const size_t flatbuffer_size = pack(model).size();
  size_t offset = align16(flatbuffer_size);
  for (size_t i = 0; i < model.buffers.size(); ++i) {
    if (data[i].empty()) continue;
    model.buffers[i]->offset = offset;
    offset = align16(offset + data[i].size());
  }
  std::vector<uint8_t> bytes = pack(model);
  if (bytes.size() != flatbuffer_size) {
    throw std::logic_error("pack_model: flatbuffer size changed between passes");
  }
  for (size_t i = 0; i < model.buffers.size(); ++i) {
    if (data[i].empty()) continue;
    bytes.resize(model.buffers[i]->offset, 0);
    bytes.insert(bytes.end(), data[i].begin(), data[i].end());
  }
  return bytes;
}

std::vector<uint8_t> write_model(const ir::Graph& graph, const WriteOptions& options) {
  std::unique_ptr<fb::ModelT> model = to_tflite_object(graph);
  return pack_model(*model, options);
}

}  // namespace mote::builder
