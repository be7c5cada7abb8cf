#pragma once
// Named models built with ModelBuilder, for tests, benchmarks and examples. Every one is
// deterministic for a given seed and passes ops::validate.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace mote::builder {

// float input 1x8x8x3 -> QUANTIZE -> three 3x3 SAME convolutions 3 -> 8 -> 16 -> 8 without bias
// or activation -> DEQUANTIZE -> float output 1x8x8x8.
ir::Graph conv2d_x3(uint32_t seed = 1);

// The layer shapes of the MLPerf Tiny reference models, int8 input and output like theirs:
// keyword spotting DS-CNN (input 1x49x10x1; 10x4 stride-2 conv, 4 depthwise-separable blocks of
// 64 channels, average pool, fully connected 12, softmax).
ir::Graph kws_dscnn_like(uint32_t seed = 1);
// Visual wake words MobileNetV1 0.25 (input 1x96x96x3; 13 depthwise-separable blocks up to 256
// channels, average pool, fully connected 2, softmax).
ir::Graph vww_mobilenet_like(uint32_t seed = 1);
// Image classification ResNet-8 (input 1x32x32x3; three residual stages of 16, 32, 64 channels
// with ADD, average pool, fully connected 10, softmax).
ir::Graph resnet8_like(uint32_t seed = 1);
// Anomaly detection FC autoencoder (input 1x640; fully connected 128 x4, 8, 128 x4, 640).
ir::Graph ad_autoencoder_like(uint32_t seed = 1);

// n >= 1 chained 3x3 SAME convolutions with bias and ReLU on int8 1x16x16x16 -> 1x16x16x16:
// every activation has the same size (4096 bytes).
ir::Graph conv_chain(int n, uint32_t seed = 1);

// Every supported operator at least once, on small shapes: float input 1x8x8x3 -> QUANTIZE ->
// CONV_2D -> DEPTHWISE_CONV_2D -> PAD -> MAX_POOL_2D -> AVERAGE_POOL_2D -> CONCATENATION ->
// HARD_SWISH -> ADD -> MUL -> TRANSPOSE -> RESIZE_NEAREST_NEIGHBOR -> LOGISTIC -> MEAN ->
// RESHAPE -> FULLY_CONNECTED -> SOFTMAX -> DEQUANTIZE -> float output 1x10.
ir::Graph tiny_all_ops(uint32_t seed = 1);

// An explicit PAD before each window kernel, as PyTorch and Keras exports write them: int8 input
// 1x24x24x8 -> PAD 0/1 -> 3x3 stride-2 VALID CONV_2D (16) -> PAD 1 -> 3x3 DEPTHWISE -> PAD 0/1 ->
// 3x3 stride-2 DEPTHWISE -> PAD 2 -> 5x5 DEPTHWISE -> PAD 3 -> 7x7 DEPTHWISE -> PAD 1 -> 3x3
// stride-2 MAX_POOL_2D -> PAD 1 -> 3x3 AVERAGE_POOL_2D -> int8 output 1x3x3x16 (every window
// VALID, every activation a ReLU or ReLU6).
ir::Graph explicit_pads(uint32_t seed = 1);

// Two branches from one int8 input 1x16x16x8, each a 1x1 convolution up to 32 channels (8 KiB)
// then one down to 2 (512 bytes), added into the output. The operators are in the order of the
// builder calls, which interleaves the branches (both 8 KiB tensors live together); running one
// branch to its end first needs a smaller arena: the case for the operator order search. Not in
// all_named_models.
ir::Graph interleaved_branches(uint32_t seed = 1);

// A graph turned 16x8: every int8 activation int16 with zero point 0 (weights stay int8).
ir::Graph as_int16(ir::Graph graph);
// An int32 bias widened to int64, as TFLite's converter writes 16x8 biases.
void widen_bias(ir::Tensor& bias);

// 16x8 layers: int16 input 1x6x6x4 -> DEPTHWISE_CONV_2D 3x3 (multiplier 2, ReLU, int64 bias) ->
// AVERAGE_POOL_2D 2x2 s2 -> MAX_POOL_2D 3x3 s1 SAME -> MUL of the two pools -> RELU6 ->
// CONCATENATION with itself -> RESHAPE -> FULLY_CONNECTED (per channel, int64 bias) -> RELU ->
// FULLY_CONNECTED (per tensor, int32 bias) -> SOFTMAX -> int16 output 1x5 (scale 1/32768). Not in
// all_named_models (write_builder_model names it apart).
ir::Graph int16_layers(uint32_t seed = 1);

// A 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (TFLM's 16x8->16 form): int16 input [2 sequences, 3 steps,
// 6 features] ([3, 2, 6] with `time_major`; scale 0.04 / 256, zero point 0) -> LSTM of 8 units
// (int8 weights, int64 biases, int16 hidden state and output of scale 2^-15, int16 cell state of
// scale 2^-11, a cell clip of 3) -> int16 output [2, 3, 8] ([3, 2, 8]). Not in all_named_models
// (write_builder_model names it apart).
ir::Graph lstm_16x8(uint32_t seed = 1, bool time_major = false);

// An audio front end made of TFLM's signal operators, as micro_speech's preprocessor chains them
// on a smaller frame: int16 input [1, 48] -> SignalWindow (shift 12) -> RESHAPE [48] ->
// SignalFftAutoScale -> SignalRfft (64) -> SignalEnergy (bins 1..29) -> CAST uint32->int32 ->
// CAST int32->uint32 -> SignalFilterBank (4 channels) -> SignalFilterBankSquareRoot (by the auto
// scale's shift) -> SignalFilterBankSpectralSubtraction (its noise estimate a state) ->
// SignalPCAN -> SignalFilterBankLog -> CAST int16->int32 -> MUL 256, ADD 333, DIV 666, ADD
// -128, MINIMUM 127, MAXIMUM -128 (int32, scalar constants) -> CAST -> int8 [4] (no
// quantization). Not in all_named_models.
ir::Graph audio_frontend();

// The int8 weights of every CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED made int4 as TFLite
// stores them (packed two per byte, low nibble first): each value divided by 16 and rounded into
// [-8, 7], its scale (and the bias's) times 16.
ir::Graph as_int4(ir::Graph graph);
// Every int4 constant unpacked into int8 holding the same values, as TFLite runs int4 weights
// (UnpackDenseInt4IntoInt8, then the int8 kernel): the reference form of an as_int4 graph.
ir::Graph int4_unpacked(ir::Graph graph);

// int4 weights: int8 input 1x10x10x3 -> PAD -> CONV_2D 3x3 s2 (ReLU6, the PAD folded) ->
// DEPTHWISE_CONV_2D 3x3 (multiplier 2) -> DEPTHWISE_CONV_2D 3x3 s2 -> CONV_2D 1x1 without bias ->
// RESHAPE -> FULLY_CONNECTED per channel (ReLU) -> FULLY_CONNECTED per tensor -> SOFTMAX, through
// as_int4. The first CONV_2D's and the per-channel FULLY_CONNECTED's weights hold an odd number
// of values (a last byte half used).
ir::Graph int4_layers(uint32_t seed = 1);

struct NamedModel {
  std::string name;
  ir::Graph graph;
};
// Every model above with its default seed (conv_chain with n = 10), named like its function
// ("conv_chain_10").
std::vector<NamedModel> all_named_models();

}  // namespace mote::builder
