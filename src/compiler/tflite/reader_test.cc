#include "compiler/tflite/reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <span>
#include <vector>

#include <unistd.h>

#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"
#include "compiler/tflite/builtin_codes.h"

namespace mote::tflite {
namespace {

using builder::pack_model;
using builder::to_tflite_object;
using ::testing::HasSubstr;

using Edit = std::function<void(fb::ModelT&)>;

std::vector<uint8_t> edited(const ir::Graph& g, const Edit& edit,
                            const builder::WriteOptions& options = {}) {
  auto model = to_tflite_object(g);
  edit(*model);
  return pack_model(*model, options);
}

// The reader's message for `bytes`, or "accepted".
std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    read_model(bytes);
    return "accepted";
  } catch (const InputError& e) {
    return e.what();
  }
}

fb::SubGraphT& main_graph(fb::ModelT& m) { return *m.subgraphs[0]; }
fb::TensorT& tensor(fb::ModelT& m, size_t i) { return *main_graph(m).tensors[i]; }
fb::OperatorT& op(fb::ModelT& m, size_t i) { return *main_graph(m).operators[i]; }
fb::OperatorCodeT& code_of(fb::ModelT& m, size_t op_index) {
  return *m.operator_codes[op(m, op_index).opcode_index];
}

// conv2d_x3: tensors 0 input, 1 quantize output, 2 weights, 3 conv output, ...; operator 0 is
// QUANTIZE, operators 1-3 CONV_2D (one operator code), 4 DEQUANTIZE.
const ir::Graph& model() {
  static const ir::Graph g = builder::conv2d_x3();
  return g;
}

TEST(Reader, ReadsWhatTheBuilderWrites) {
  for (const auto& m : builder::all_named_models()) {
    SCOPED_TRACE(m.name);
    EXPECT_EQ(read_model(builder::write_model(m.graph)), m.graph);
  }
}

// These two only fail in the sanitizer build (scripts/test.sh --sanitize): x86 forgives the
// misaligned loads that UBSan reports.
TEST(Reader, ReadsZeroPointsStoredOffTheirAlignment) {
  // Found by fuzz_tflite_reader: the verifier aligns a vector's length, not its elements, so an
  // int64 zero point vector may start 4 bytes off an 8-byte boundary. Move one there: copy its
  // length and elements to the end of the file, length on an 8-byte boundary, and point the
  // QuantizationParameters table at the copy.
  const ir::Graph g = builder::conv2d_x3();
  std::vector<uint8_t> bytes = builder::write_model(g);
  const fb::Model* model = fb::GetModel(bytes.data());
  const fb::QuantizationParameters* q = nullptr;
  for (const fb::Tensor* t : *model->subgraphs()->Get(0)->tensors()) {
    if (t->quantization() != nullptr && t->quantization()->zero_point() != nullptr &&
        t->quantization()->zero_point()->size() > 1) {
      q = t->quantization();
      break;
    }
  }
  ASSERT_NE(q, nullptr);
  const auto* zero_points = q->zero_point();
  const size_t field = static_cast<size_t>(
      reinterpret_cast<const flatbuffers::Table*>(q)->GetAddressOf(
          fb::QuantizationParameters::VT_ZERO_POINT) -
      bytes.data());
  const size_t old_vector = static_cast<size_t>(
      reinterpret_cast<const uint8_t*>(zero_points) - bytes.data());
  const size_t vector_bytes = 4 + 8 * zero_points->size();
  while (bytes.size() % 8 != 0) bytes.push_back(0);
  const size_t new_vector = bytes.size();
  bytes.insert(bytes.end(), bytes.begin() + static_cast<ptrdiff_t>(old_vector),
               bytes.begin() + static_cast<ptrdiff_t>(old_vector + vector_bytes));
  const auto offset = static_cast<uint32_t>(new_vector - field);
  std::memcpy(bytes.data() + field, &offset, 4);
  EXPECT_EQ(read_model(bytes), g);
}

TEST(Reader, ReadsFromAnyAddress) {
  // A span into a larger buffer need not be aligned; the reader must not load scalars there.
  const ir::Graph g = builder::tiny_all_ops();
  const std::vector<uint8_t> bytes = builder::write_model(g);
  std::vector<uint8_t> shifted(bytes.size() + 8);
  for (size_t shift : {1, 2, 4}) {
    std::memcpy(shifted.data() + shift, bytes.data(), bytes.size());
    EXPECT_EQ(read_model(std::span<const uint8_t>(shifted.data() + shift, bytes.size())), g);
  }
}

TEST(Reader, OperatorCodeFields) {
  // Old files: only the byte-sized field.
  EXPECT_EQ(read_model(edited(builder::tiny_all_ops(), [](fb::ModelT& m) {
              for (auto& c : m.operator_codes) c->builtin_code = 0;
            })),
            builder::tiny_all_ops());
  // Writers that fill only the extended field.
  EXPECT_EQ(read_model(edited(builder::tiny_all_ops(), [](fb::ModelT& m) {
              for (auto& c : m.operator_codes) c->deprecated_builtin_code = 0;
            })),
            builder::tiny_all_ops());
  // Codes beyond the byte: the placeholder 127 in the old field, the code in the new one.
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              code_of(m, 1).deprecated_builtin_code = kBuiltinPlaceholderForGreaterOpCodes;
              code_of(m, 1).builtin_code = 150;
            })),
            "operator 1 (GELU): not supported");
}

TEST(Reader, RejectsUnsupportedOperators) {
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              code_of(m, 1).deprecated_builtin_code = 52;
              code_of(m, 1).builtin_code = 52;
            })),
            "operator 1 (BIDIRECTIONAL_SEQUENCE_LSTM): not supported");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              code_of(m, 1).deprecated_builtin_code = kBuiltinCustom;
              code_of(m, 1).builtin_code = kBuiltinCustom;
              code_of(m, 1).custom_code = "MyOp";
            })),
            "operator 1 (CUSTOM 'MyOp'): not supported: a custom operator, which the application "
            "registers in TFLite Micro; Mote compiles TFLite's built-in operators and TFLM's "
            "signal operators only (run the custom part outside the model)");
  // A model Vela compiled for an Ethos-U NPU: say so, and which model to give instead.
  EXPECT_THAT(error_of(edited(model(), [](fb::ModelT& m) {
                code_of(m, 1).deprecated_builtin_code = kBuiltinCustom;
                code_of(m, 1).builtin_code = kBuiltinCustom;
                code_of(m, 1).custom_code = "ethos-u";
              })),
              ::testing::HasSubstr("operator 1 (CUSTOM 'ethos-u'): not supported: this model was "
                                   "compiled by Vela for an Arm Ethos-U NPU"));
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { code_of(m, 4).builtin_code = 999; })),
            "operator 4 (BUILTIN_999): not supported");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { op(m, 0).opcode_index = 9; })),
            "operator 0: opcode index 9 out of range (3 operator codes)");
}

TEST(Reader, RejectsUnsupportedTypes) {
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { tensor(m, 3).type = 5; })),
            "tensor 3 (conv2d_0): type STRING not supported");
  // uint8 is read (a camera frame into a first QUANTIZE); an operator of int8 refuses it.
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { tensor(m, 3).type = 3; })),
            "operator 1 (CONV_2D): output (tensor 3) has type uint8, expected int8");
  // uint8 weights (TensorFlow 1's quantization): refused saying how to make int8 ones.
  EXPECT_THAT(error_of(edited(model(), [](fb::ModelT& m) { tensor(m, 2).type = 3; })),
              ::testing::AllOf(::testing::StartsWith("tensor 2 (conv2d_0/weights): uint8 constant"),
                               ::testing::HasSubstr("TensorFlow Lite Micro does not run either"),
                               ::testing::HasSubstr("TFLITE_BUILTINS_INT8")));
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { tensor(m, 3).type = 100; })),
            "tensor 3 (conv2d_0): type TYPE_100 not supported");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { tensor(m, 2).type = kTensorFloat32; })),
            "tensor 2 (conv2d_0/weights): constant holds 216 bytes, float32 [8,3,3,3] needs 864");
  // A tensor without a name is named by its index alone.
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              tensor(m, 3).type = 5;
              tensor(m, 3).name.clear();
            })),
            "tensor 3: type STRING not supported");
}

TEST(Reader, RejectsIndicesOutOfRange) {
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { tensor(m, 2).buffer = 99; })),
            "tensor 2 (conv2d_0/weights): buffer index 99 out of range (4 buffers)");
  EXPECT_THAT(error_of(edited(model(), [](fb::ModelT& m) { op(m, 2).inputs[0] = 99; })),
              HasSubstr("operator 2 (CONV_2D): input 0 refers to tensor 99, out of range"));
  EXPECT_THAT(error_of(edited(model(), [](fb::ModelT& m) { op(m, 2).outputs[0] = -1; })),
              HasSubstr("operator 2 (CONV_2D): output 0 refers to tensor -1"));
  EXPECT_THAT(error_of(edited(model(), [](fb::ModelT& m) { main_graph(m).outputs[0] = 12345; })),
              HasSubstr("graph output 0 refers to tensor 12345"));
  EXPECT_THAT(error_of(edited(model(), [](fb::ModelT& m) { main_graph(m).inputs.clear(); })),
              HasSubstr("operator 0 (QUANTIZE): input 0"));
}

TEST(Reader, ConstantsStoredAfterTheFlatbuffer) {
  const builder::WriteOptions external{.external_buffers = true};
  EXPECT_EQ(read_model(builder::write_model(model(), external)), model());
  // Offsets are checked against the file.
  EXPECT_THAT(error_of(edited(model(), [](fb::ModelT& m) {
                m.buffers[1]->data.clear();
                m.buffers[1]->offset = uint64_t{1} << 40;
                m.buffers[1]->size = 216;
              })),
              HasSubstr("buffer 1 (offset 1099511627776, size 216) lies outside the file"));
  EXPECT_THAT(error_of(edited(model(), [](fb::ModelT& m) {
                m.buffers[1]->data.clear();
                m.buffers[1]->offset = 64;
                m.buffers[1]->size = ~uint64_t{0} - 10;  // offset + size wraps around
              })),
              HasSubstr("lies outside the file"));
  EXPECT_THAT(error_of(edited(model(), [](fb::ModelT& m) { m.buffers[1]->offset = 64; })),
              HasSubstr("buffer 1 has both inline data and an offset"));
  // Offset 1 is the converter's placeholder: ignored.
  EXPECT_EQ(read_model(edited(model(), [](fb::ModelT& m) { m.buffers[1]->offset = 1; })), model());
  // External data of the wrong size.
  EXPECT_THAT(error_of(edited(model(), [](fb::ModelT& m) {
                m.buffers[1]->data.clear();
                m.buffers[1]->offset = 16;
                m.buffers[1]->size = 10;
              })),
              HasSubstr("tensor 2 (conv2d_0/weights): constant holds 10 bytes"));
}

TEST(Reader, TensorChecks) {
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { tensor(m, 0).shape = {-1, 8, 8, 3}; })),
            "tensor 0 (input): shape [-1,8,8,3] is dynamic");
  // A dynamic batch in the signature is fine when the shape itself is concrete.
  EXPECT_EQ(read_model(edited(model(), [](fb::ModelT& m) {
              tensor(m, 0).shape_signature = {-1, 8, 8, 3};
            })),
            model());
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { tensor(m, 0).shape_signature = {1, 8}; })),
            "tensor 0 (input): shape_signature [1,8] does not match shape [1,8,8,3]");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { tensor(m, 1).shape = {1, 8, 0, 3}; })),
            "tensor 1 (quantize_0): shape [1,8,0,3] has no elements");
  // A tensor no operator uses cannot change a result: the converter leaves an LSTM's
  // intermediates behind with shape [0] (TFLM ignores them too).
  const ir::Graph with_unused = read_model(edited(model(), [](fb::ModelT& m) {
    auto t = std::make_unique<fb::TensorT>();
    t->shape = {0};
    t->type = 9;  // INT8
    t->name = "input_to_input_intermediate";
    main_graph(m).tensors.push_back(std::move(t));
  }));
  EXPECT_THAT(with_unused.notes,
              ::testing::Contains(HasSubstr("(input_to_input_intermediate): shape [0] has no "
                                            "elements: ignored, as no operator uses the tensor")));
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              tensor(m, 1).quantization->zero_point.clear();
            })),
            "tensor 1 (quantize_0): quantization has 1 scales but 0 zero points");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              tensor(m, 2).sparsity = std::make_unique<fb::SparsityPlaceholderT>();
            })),
            "tensor 2 (conv2d_0/weights): sparse tensors not supported");
  // A variable tensor is read (SVDF's state); as an operator's output the validator refuses it.
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { tensor(m, 3).is_variable = true; })),
            "operator 1 (CONV_2D): output 0 (tensor 3 (conv2d_0)) is a variable tensor (state); an "
            "operator updates its state as an input");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              tensor(m, 3).quantization->details.Set(fb::CustomQuantizationPlaceholderT{});
            })),
            "tensor 3 (conv2d_0): custom quantization not supported");
  // Names are printed on one line whatever they hold.
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              tensor(m, 3).name = "a\nb";
              tensor(m, 3).type = 5;
            })),
            "tensor 3 (a?b): type STRING not supported");
  // A float tensor with an empty quantization table is plain float.
  EXPECT_EQ(read_model(edited(model(), [](fb::ModelT& m) {
              tensor(m, 0).quantization = std::make_unique<fb::QuantizationParametersT>();
            })),
            model());
}

TEST(Reader, ModelChecks) {
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { m.version = 2; })),
            "schema version 2 not supported (expected 3)");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { m.subgraphs.clear(); })),
            "model has no subgraphs");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { main_graph(m).tensors.clear(); })),
            "subgraph 0 has no tensors");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { m.buffers[0]->data = {1, 2}; })),
            "buffer 0 must be empty (it stands for \"no data\")");
  EXPECT_EQ(error_of({1, 2, 3}), "file too small for a TFLite model (3 bytes)");
  std::vector<uint8_t> bytes = builder::write_model(model());
  bytes[4] = 'X';
  EXPECT_EQ(error_of(bytes), "not a TFLite model (file identifier is not TFL3)");
  bytes = builder::write_model(model());
  bytes.resize(bytes.size() / 2);
  EXPECT_EQ(error_of(bytes), "not a valid TFLite flatbuffer (verification failed: truncated or corrupt)");
}

TEST(Reader, OperatorOptions) {
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) { op(m, 1).builtin_options.Reset(); })),
            "operator 1 (CONV_2D): missing Conv2DOptions");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              op(m, 1).builtin_options.Set(fb::Pool2DOptionsT{});
            })),
            "operator 1 (CONV_2D): has Pool2DOptions, expected Conv2DOptions");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              op(m, 1).builtin_options.AsConv2DOptions()->fused_activation_function = 4;
            })),
            "operator 1 (CONV_2D): fused activation TANH not supported");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              op(m, 1).builtin_options.AsConv2DOptions()->padding = 5;
            })),
            "operator 1 (CONV_2D): padding 5 is not valid");
  EXPECT_EQ(error_of(edited(model(), [](fb::ModelT& m) {
              op(m, 0).builtin_options.Set(fb::AddOptionsT{});
            })),
            "operator 0 (QUANTIZE): has unexpected AddOptions");
  EXPECT_EQ(error_of(edited(builder::ad_autoencoder_like(), [](fb::ModelT& m) {
              op(m, 0).builtin_options.AsFullyConnectedOptions()->weights_format = 1;
            })),
            "operator 0 (FULLY_CONNECTED): weights format SHUFFLED4x16INT8 not supported");
  // Options TFLite lets a writer leave out take their defaults.
  ir::Graph expected = builder::tiny_all_ops();
  for (auto& o : expected.operators) {
    if (o.type == ir::OpType::kAdd || o.type == ir::OpType::kMul) o.options = ir::ElementwiseOptions{};
    if (o.type == ir::OpType::kReshape) o.options = ir::ReshapeOptions{};
  }
  EXPECT_EQ(read_model(edited(builder::tiny_all_ops(), [](fb::ModelT& m) {
              for (auto& o : main_graph(m).operators) {
                const auto t = o->builtin_options.type;
                if (t == fb::BuiltinOptions::AddOptions || t == fb::BuiltinOptions::MulOptions ||
                    t == fb::BuiltinOptions::ReshapeOptions || t == fb::BuiltinOptions::PadOptions ||
                    t == fb::BuiltinOptions::QuantizeOptions) {
                  o->builtin_options.Reset();
                }
              }
            })),
            expected);
}

TEST(Reader, ReadsFiles) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("mote_reader_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "conv2d_x3.tflite";
  const std::vector<uint8_t> bytes = builder::write_model(model());
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  EXPECT_EQ(read_model_file(file), model());
  try {
    read_model_file(dir / "missing.tflite");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "cannot open: no such file");
  }
  try {
    read_model_file(dir);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "cannot open: not a regular file");
  }
  std::filesystem::remove_all(dir);
}

TEST(BuiltinCodes, NamesAndMapping) {
  EXPECT_EQ(builtin_operator_name(3), "CONV_2D");
  EXPECT_EQ(builtin_operator_name(44), "UNIDIRECTIONAL_SEQUENCE_LSTM");
  EXPECT_EQ(builtin_operator_name(117), "HARD_SWISH");
  EXPECT_EQ(builtin_operator_name(209), "STABLEHLO_CASE");
  EXPECT_EQ(builtin_operator_name(-1), "BUILTIN_-1");
  EXPECT_EQ(builtin_operator_name(210), "BUILTIN_210");
  for (size_t t = 0; t < ir::kNumOpTypes; ++t) {
    const auto type = static_cast<ir::OpType>(t);
    const int32_t code = ops::op_def(type).builtin_code;
    if (const char* custom = ops::op_def(type).custom_code) {  // by name
      EXPECT_EQ(builtin_operator_name(code), "CUSTOM");
      EXPECT_EQ(ops::op_type_for_custom(custom), type);
      continue;
    }
    EXPECT_EQ(builtin_operator_name(code), ir::to_string(type));
    EXPECT_EQ(ops::op_type_for_builtin(code), type);
  }
  EXPECT_EQ(tensor_type_name(kTensorInt8), "INT8");
  EXPECT_EQ(tensor_type_name(22), "FLOAT8_E5M2");
}

}  // namespace
}  // namespace mote::tflite
