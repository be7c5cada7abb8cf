#pragma once
// Every operator Mote compiles and runs, one line each, in the order of the program format's
// OpKind (schema/mote.fbs), which the line's position must equal:
//
//   X(Kind, "TFLITE_NAME", definition)
//
// - Kind: ir::OpType::k<Kind> in the compiler and schema::OpKind::<Kind> in the program;
// - "TFLITE_NAME": TFLite's builtin operator name, used in every message about the operator;
// - definition: the compiler's definition ops::<definition> (src/compiler/ops/) and the runtime's
//   entry (src/runtime/ops/).
// docs/adding-an-operator.md says what else a new line needs.

#define MOTE_OPERATORS(X)                                                    \
  X(Conv2D, "CONV_2D", conv_2d)                                              \
  X(DepthwiseConv2D, "DEPTHWISE_CONV_2D", depthwise_conv_2d)                 \
  X(FullyConnected, "FULLY_CONNECTED", fully_connected)                      \
  X(AveragePool2D, "AVERAGE_POOL_2D", average_pool_2d)                       \
  X(MaxPool2D, "MAX_POOL_2D", max_pool_2d)                                   \
  X(Add, "ADD", add)                                                         \
  X(Mul, "MUL", mul)                                                         \
  X(Softmax, "SOFTMAX", softmax)                                             \
  X(Reshape, "RESHAPE", reshape)                                             \
  X(Quantize, "QUANTIZE", quantize)                                          \
  X(Dequantize, "DEQUANTIZE", dequantize)                                    \
  X(Pad, "PAD", pad)                                                         \
  X(Mean, "MEAN", mean)                                                      \
  X(Concatenation, "CONCATENATION", concatenation)                           \
  X(Transpose, "TRANSPOSE", transpose)                                       \
  X(Logistic, "LOGISTIC", logistic)                                          \
  X(ResizeNearestNeighbor, "RESIZE_NEAREST_NEIGHBOR", resize_nearest_neighbor) \
  X(HardSwish, "HARD_SWISH", hard_swish)                                     \
  X(TransposeConv, "TRANSPOSE_CONV", transpose_conv)                         \
  X(Minimum, "MINIMUM", minimum)                                             \
  X(Maximum, "MAXIMUM", maximum)                                             \
  X(Sub, "SUB", sub)                                                         \
  X(LeakyRelu, "LEAKY_RELU", leaky_relu)                                     \
  X(Squeeze, "SQUEEZE", squeeze)                                             \
  X(ExpandDims, "EXPAND_DIMS", expand_dims)                                  \
  X(Relu, "RELU", relu)                                                      \
  X(Relu6, "RELU6", relu6)                                                   \
  X(Tanh, "TANH", tanh)                                                      \
  X(Prelu, "PRELU", prelu)                                                   \
  X(SquaredDifference, "SQUARED_DIFFERENCE", squared_difference)             \
  X(Rsqrt, "RSQRT", rsqrt)                                                   \
  X(Sum, "SUM", sum)                                                         \
  X(ReduceMax, "REDUCE_MAX", reduce_max)                                     \
  X(ArgMax, "ARG_MAX", arg_max)                                              \
  X(ArgMin, "ARG_MIN", arg_min)                                              \
  X(ResizeBilinear, "RESIZE_BILINEAR", resize_bilinear)                      \
  X(StridedSlice, "STRIDED_SLICE", strided_slice)                            \
  X(Slice, "SLICE", slice)                                                   \
  X(Split, "SPLIT", split)                                                   \
  X(SplitV, "SPLIT_V", split_v)                                              \
  X(Pack, "PACK", pack)                                                      \
  X(Unpack, "UNPACK", unpack)                                                \
  X(Gather, "GATHER", gather)                                                \
  X(DepthToSpace, "DEPTH_TO_SPACE", depth_to_space)                          \
  X(SpaceToDepth, "SPACE_TO_DEPTH", space_to_depth)                          \
  X(Svdf, "SVDF", svdf)                                                      \
  X(BatchMatMul, "BATCH_MATMUL", batch_matmul)                              \
  X(UnidirectionalSequenceLstm, "UNIDIRECTIONAL_SEQUENCE_LSTM", unidirectional_sequence_lstm) \
  X(SignalWindow, "SignalWindow", signal_window)                             \
  X(SignalFftAutoScale, "SignalFftAutoScale", signal_fft_auto_scale)         \
  X(SignalRfft, "SignalRfft", signal_rfft)                                   \
  X(SignalEnergy, "SignalEnergy", signal_energy)                             \
  X(SignalFilterBank, "SignalFilterBank", signal_filter_bank)                \
  X(SignalFilterBankSquareRoot, "SignalFilterBankSquareRoot", signal_filter_bank_square_root) \
  X(SignalFilterBankSpectralSubtraction, "SignalFilterBankSpectralSubtraction",             \
    signal_filter_bank_spectral_subtraction)                                 \
  X(SignalPcan, "SignalPCAN", signal_pcan)                                   \
  X(SignalFilterBankLog, "SignalFilterBankLog", signal_filter_bank_log)      \
  X(Cast, "CAST", cast)                                                      \
  X(Div, "DIV", div)                                                         \
  X(FloatRnn, "MoteFloatRnn", float_rnn)                                     \
  X(LogSoftmax, "LOG_SOFTMAX", log_softmax)                                  \
  X(TableLookup, "MoteTableLookup", table_lookup)
