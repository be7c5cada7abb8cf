#pragma once
// The parameter fields of each kernel call kind, in the order a call's ints hold them: one list
// for the writer (kernel_call_json.cc, host) and the reader (kernel_call.cc) alike. Each takes the
// kernel's parameters and `f(int32_t&)`. Test support; embeddable C++17.

#include <stdint.h>

#include <initializer_list>

#include "mote/kernels/add.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/pooling.h"

namespace mote {
namespace kernels {
namespace testing {

template <typename F>
void conv_fields(ConvParams& p, F&& f) {
  ConvShape& s = p.shape;
  for (int32_t* v : {&s.batches, &s.input_h, &s.input_w, &s.input_c, &s.filter_h, &s.filter_w,
                     &s.filter_c, &s.output_h, &s.output_w, &s.output_c, &s.stride_h, &s.stride_w,
                     &s.pad_h, &s.pad_w, &s.dilation_h, &s.dilation_w, &p.input_offset,
                     &p.output_offset, &p.act_min, &p.act_max}) {
    f(*v);
  }
}

template <typename F>
void depthwise_conv_fields(DepthwiseConvParams& p, F&& f) {
  DepthwiseShape& s = p.shape;
  for (int32_t* v : {&s.batches, &s.input_h, &s.input_w, &s.input_c, &s.filter_h, &s.filter_w,
                     &s.output_h, &s.output_w, &s.output_c, &s.stride_h, &s.stride_w, &s.pad_h,
                     &s.pad_w, &s.dilation_h, &s.dilation_w, &p.input_offset, &p.output_offset,
                     &p.act_min, &p.act_max}) {
    f(*v);
  }
}

// `per_channel` travels as an int.
template <typename F>
void fully_connected_fields(FullyConnectedParams& p, int32_t& per_channel, F&& f) {
  for (int32_t* v : {&p.batches, &p.input_depth, &p.output_depth, &p.input_offset,
                     &p.filter_offset, &p.output_offset, &p.act_min, &p.act_max, &per_channel}) {
    f(*v);
  }
}

template <typename F>
void pool_fields(PoolParams& p, F&& f) {
  for (int32_t* v : {&p.batches, &p.input_h, &p.input_w, &p.channels, &p.output_h, &p.output_w,
                     &p.filter_h, &p.filter_w, &p.stride_h, &p.stride_w, &p.pad_h, &p.pad_w,
                     &p.act_min, &p.act_max}) {
    f(*v);
  }
}

// Elementwise calls: same-shape inputs of `count` elements.
template <typename F>
void add_fields(AddParams& p, int32_t& count, F&& f) {
  for (int32_t* v : {&p.input1_offset, &p.input2_offset, &p.output_offset, &p.left_shift,
                     &p.input1_multiplier, &p.input1_shift, &p.input2_multiplier, &p.input2_shift,
                     &p.output_multiplier, &p.output_shift, &p.act_min, &p.act_max, &count}) {
    f(*v);
  }
}

template <typename F>
void mul_fields(MulParams& p, int32_t& count, F&& f) {
  for (int32_t* v : {&p.input1_offset, &p.input2_offset, &p.output_offset, &p.output_multiplier,
                     &p.output_shift, &p.act_min, &p.act_max, &count}) {
    f(*v);
  }
}

}  // namespace testing
}  // namespace kernels
}  // namespace mote
