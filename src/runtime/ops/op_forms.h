#pragma once
// An operator's forms: the ways of running it that a firmware image links only when one of its
// programs uses them (plain, on the portable kernel, row-streamed, in place, backward, 16x8, int4
// weights, one input channel). A kind listed below has each form as an object of its own in its
// file under src/runtime/ops/, and the operator table (op_table.cc) references it only where selected, so
// --gc-sections drops the kernels of forms no program runs (a model that streams all its
// convolutions links no whole-map convolution). Other kinds run everything through their plain
// form alone (k<Kind>Plain). mote_program_ops and the loader both read a program's forms with
// op_forms(), so what is linked and what is required agree.
// Embeddable C++17.

#include <stdint.h>

#include "mote/schema/mote_generated.h"

// X(Kind, Form, field): Kind's Form is linked separately, as the object k<Kind><Form> (an
// OpRowForm for Rows, an OpForm otherwise) in OpFormTable::<field>.
#define MOTE_OPERATOR_FORMS(X)                    \
  X(Conv2D, Plain, plain)                         \
  X(Conv2D, Portable, portable)                   \
  X(Conv2D, Rows, rows)                           \
  X(Conv2D, RowsPortable, rows_portable)          \
  X(Conv2D, Backward, backward)                   \
  X(Conv2D, Int16, int16)                         \
  X(Conv2D, Int4, int4)                           \
  X(DepthwiseConv2D, Plain, plain)                \
  X(DepthwiseConv2D, Portable, portable)          \
  X(DepthwiseConv2D, Rows, rows)                  \
  X(DepthwiseConv2D, RowsPortable, rows_portable) \
  X(DepthwiseConv2D, InPlace, in_place)           \
  X(DepthwiseConv2D, OneInput, one_input)         \
  X(DepthwiseConv2D, Int16, int16)                \
  X(DepthwiseConv2D, Int4, int4)                  \
  X(FullyConnected, Plain, plain)                 \
  X(FullyConnected, Portable, portable)           \
  X(FullyConnected, Int16, int16)                 \
  X(FullyConnected, Int4, int4)                   \
  X(AveragePool2D, Plain, plain)                  \
  X(AveragePool2D, Portable, portable)            \
  X(AveragePool2D, Rows, rows)                    \
  X(AveragePool2D, Int16, int16)                  \
  X(MaxPool2D, Plain, plain)                      \
  X(MaxPool2D, Rows, rows)                        \
  X(MaxPool2D, Int16, int16)                      \
  X(Add, Plain, plain)                            \
  X(Add, Rows, rows)                              \
  X(Add, Int32, int32)                            \
  X(Mul, Plain, plain)                            \
  X(Mul, Rows, rows)                              \
  X(Mul, Int32, int32)                            \
  X(Logistic, Plain, plain)                       \
  X(Logistic, Rows, rows)                         \
  X(Prelu, Plain, plain)                          \
  X(Prelu, Rows, rows)                            \
  X(Pad, Plain, plain)                            \
  X(Pad, Rows, rows)                              \
  X(Maximum, Plain, plain)                        \
  X(Maximum, Rows, rows)                          \
  X(Maximum, Int32, int32)                        \
  X(Minimum, Plain, plain)                        \
  X(Minimum, Rows, rows)                          \
  X(Minimum, Int32, int32)                        \
  X(Quantize, Plain, plain)                       \
  X(Quantize, Rows, rows)                         \
  X(Concatenation, Plain, plain)                  \
  X(Concatenation, Rows, rows)                    \
  X(ResizeNearestNeighbor, Plain, plain)          \
  X(ResizeNearestNeighbor, Rows, rows)            \
  X(ResizeBilinear, Plain, plain)                 \
  X(ResizeBilinear, Rows, rows)                   \
  X(Softmax, Plain, plain)                        \
  X(Softmax, Int16, int16)

namespace mote {
namespace runtime {
namespace internal {

// One bit per form, in a mask.
enum OpFormBit : uint16_t {
  kFormRows = 1,      // a member of a row-streamed stage (schema Stage)
  kFormInPlace = 2,   // Operator.in_place
  kFormBackward = 4,  // Operator.backward
  kFormInt16 = 8,     // input 0 or the output is int16
  kFormInt4 = 16,     // input 1 (the weights) is packed int4
  kFormPlain = 32,    // none of the above: int8, whole tensors, forward, out of place, on the
                      // build's extension kernel (on the portable one where there is none)
  kFormPortable = 64,  // plain, but on the portable kernel (Operator.portable_kernel): a shape
                       // the target's extension kernel does not take
  kFormRowsPortable = 128,  // rows, on the portable row kernel (Operator.portable_kernel)
  kFormOneInput = 256,      // plain, of one input channel and several output channels (a
                            // depth multiplier): the extension's kernel for that shape
  kFormInt32 = 512,         // input 0 or the output is a plain int32 (TFLM's int32 arithmetic)
};
// The forms `kind` links separately (MOTE_OPERATOR_FORMS).
constexpr uint16_t separate_forms(schema::OpKind kind) {
  uint16_t mask = 0;
#define MOTE_INTERNAL_FORM_OF(k, form, field) \
  if (kind == schema::OpKind::k) mask = static_cast<uint16_t>(mask | kForm##form);
  MOTE_OPERATOR_FORMS(MOTE_INTERNAL_FORM_OF)
#undef MOTE_INTERNAL_FORM_OF
  return mask;
}

// The type forms of `op` (kFormInt16, kFormInt4, kFormInt32), whatever its kind; its tensor
// indices must be in range or -1 (absent).
inline uint16_t type_forms(const schema::Program& program, const schema::Operator& op) {
  const auto& tensors = *program.tensors();
  auto type_of = [&](const flatbuffers::Vector<int32_t>* list, uint32_t k) {
    return list != nullptr && k < list->size() && list->Get(k) >= 0
               ? tensors.Get(static_cast<uint32_t>(list->Get(k)))->type()
               : schema::DataType::Int8;
  };
  // Each type read once: run_operator asks on every call.
  const schema::DataType in = type_of(op.inputs(), 0), out = type_of(op.outputs(), 0);
  uint16_t mask = 0;
  if (in == schema::DataType::Int16 || out == schema::DataType::Int16) mask |= kFormInt16;
  if (type_of(op.inputs(), 1) == schema::DataType::Int4) mask |= kFormInt4;
  if (in == schema::DataType::Int32 || out == schema::DataType::Int32) mask |= kFormInt32;
  return mask;
}

// Whether `op` reads one channel (input 0's last dimension) into several (output 0's): a depth
// multiplier over a single channel, which the extension kernels run as dot products along the
// window's rows. Its tensor indices must be in range or -1 (absent).
inline bool one_input_channel(const schema::Program& program, const schema::Operator& op) {
  const auto& tensors = *program.tensors();
  auto channels = [&](const flatbuffers::Vector<int32_t>* list) -> int32_t {
    if (list == nullptr || list->size() == 0 || list->Get(0) < 0) return 0;
    const auto* shape = tensors.Get(static_cast<uint32_t>(list->Get(0)))->shape();
    return shape != nullptr && shape->size() > 0 ? shape->Get(shape->size() - 1) : 0;
  };
  return channels(op.inputs()) == 1 && channels(op.outputs()) > 1;
}

// The forms operator `index` of `program` runs in, among those its kind links separately.
inline uint16_t op_forms(const schema::Program& program, uint32_t index) {
  const schema::Operator& op = *program.operators()->Get(index);
  uint16_t mask = type_forms(program, op);
  if (op.in_place()) mask |= kFormInPlace;
  if (op.backward()) mask |= kFormBackward;
  const uint16_t separate = separate_forms(op.kind());
  if (program.stages() != nullptr) {
    for (const schema::Stage* s : *program.stages()) {
      if (index >= s->first() && index <= s->last()) {
        mask |= op.portable_kernel() && (separate & kFormRowsPortable) != 0 ? kFormRowsPortable
                                                                           : kFormRows;
      }
    }
  }
  mask &= separate;
  if (mask == 0) {
    if (op.portable_kernel() && (separate & kFormPortable) != 0) {
      mask = kFormPortable;
    } else if ((separate & kFormOneInput) != 0 && one_input_channel(program, op)) {
      mask = kFormOneInput;
    } else {
      mask = kFormPlain & separate;
    }
  }
  return mask;
}

// Whether operator `index` of `program` is a member of a row-streamed stage.
inline bool row_streamed(const schema::Program& program, uint32_t index) {
  return (op_forms(program, index) & (kFormRows | kFormRowsPortable)) != 0;
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
