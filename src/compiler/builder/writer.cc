#include "compiler/builder/writer.h"

#include <algorithm>
#include <stdexcept>

#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "compiler/tflite/builtin_codes.h"

namespace mote::builder {
namespace {

namespace fb = tflite::fb;

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
    ft->is_variable = t.is_variable;
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

  // The builtin code and custom name of each OperatorCode, in order of first use.
  std::vector<std::pair<int32_t, std::string>> codes;
  for (const ir::Operator& op : g.operators) {
    const ops::OpDef& def = ops::op_def(op.type);
    const std::pair<int32_t, std::string> code{
        def.builtin_code, def.custom_code != nullptr ? def.custom_code : ""};
    auto it = std::find(codes.begin(), codes.end(), code);
    if (it == codes.end()) {
      auto oc = std::make_unique<fb::OperatorCodeT>();
      oc->deprecated_builtin_code =
          static_cast<int8_t>(std::min(code.first, tflite::kBuiltinPlaceholderForGreaterOpCodes));
      oc->builtin_code = code.first;
      oc->custom_code = code.second;
      oc->version = 1;
      model->operator_codes.push_back(std::move(oc));
      codes.push_back(code);
      it = codes.end() - 1;
    }
    auto fop = std::make_unique<fb::OperatorT>();
    fop->opcode_index = static_cast<uint32_t>(it - codes.begin());
    fop->inputs = op.inputs;
    fop->outputs = op.outputs;
    // State a TFLite operator keeps inside itself is not among its inputs in the file.
    if (def.internal_state != nullptr) {
      fop->inputs.resize(fop->inputs.size() - def.internal_state(op).size());
    }
    if (def.write_custom != nullptr) fop->custom_options = def.write_custom(op);
    def.write_options(op, fop->builtin_options);
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
