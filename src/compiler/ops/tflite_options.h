#pragma once
// Reading and writing an operator's TFLite options table, for the definitions' read_options and
// write_options (the reader and the builder's writer call them).

#include <functional>
#include <string>

#include "compiler/ir/error.h"
#include "compiler/ir/graph.h"
#include "compiler/tflite/tflite_subset_generated.h"

namespace mote::ops {

namespace tfl = mote::tflite::fb;

// One operator of a .tflite file, with where it is for messages ("operator 3 (CONV_2D): "),
// built only when a message needs it.
class TfliteOptions {
 public:
  TfliteOptions(const tfl::Operator& op, std::function<std::string()> where)
      : op_(op), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& why) const { throw InputError(where_() + why); }

  // The options table, checked against the one the operator takes; nullptr when the operator
  // carries none and `required` is false.
  template <typename T>
  const T* table(tfl::BuiltinOptions want, bool required) const {
    const tfl::BuiltinOptions got = op_.builtin_options_type();
    if (got == tfl::BuiltinOptions::NONE && !required) return nullptr;
    if (got != want) {
      fail(got == tfl::BuiltinOptions::NONE
               ? "missing " + name(want)
               : "has " + name(got) + ", expected " + name(want));
    }
    const T* t = static_cast<const T*>(op_.builtin_options());
    if (t == nullptr) fail("missing " + name(want));
    return t;
  }
  // For operators without options: none, or the empty table TFLite's converter writes.
  void none(tfl::BuiltinOptions allowed) const {
    const tfl::BuiltinOptions got = op_.builtin_options_type();
    if (got != tfl::BuiltinOptions::NONE && got != allowed) fail("has unexpected " + name(got));
  }

  ir::Activation activation(int8_t value) const;
  ir::Padding padding(int8_t value) const;

 private:
  static std::string name(tfl::BuiltinOptions type);

  const tfl::Operator& op_;
  std::function<std::string()> where_;
};

// The format's codes of the IR's enums, for writing.
int8_t activation_code(ir::Activation a);
inline int8_t padding_code(ir::Padding p) { return p == ir::Padding::kSame ? 0 : 1; }

constexpr int32_t builtin(tfl::BuiltinOperator op) { return static_cast<int32_t>(op); }

// The fields window operators share (padding, strides, fused activation), read from TFLite's
// table into the IR's options and written back.
template <typename Table, typename Options>
void read_window(const TfliteOptions& t, const Table& o, Options& r) {
  r.padding = t.padding(o.padding());
  r.stride_w = o.stride_w();
  r.stride_h = o.stride_h();
  r.activation = t.activation(o.fused_activation_function());
}
template <typename TableT, typename Options>
void write_window(const Options& o, TableT& t) {
  t.padding = padding_code(o.padding);
  t.stride_w = o.stride_w;
  t.stride_h = o.stride_h;
  t.fused_activation_function = activation_code(o.activation);
}

// Binary arithmetic operators whose only option is a fused activation (ir::ElementwiseOptions).
template <typename Table, tfl::BuiltinOptions kTable>
ir::Options read_fused_activation(const TfliteOptions& t) {
  ir::ElementwiseOptions r;
  if (const auto* o = t.table<Table>(kTable, false)) {
    r.activation = t.activation(o->fused_activation_function());
  }
  return r;
}
template <typename TableT>
void write_fused_activation(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  TableT t;
  t.fused_activation_function =
      activation_code(std::get<ir::ElementwiseOptions>(op.options).activation);
  out.Set(std::move(t));
}

}  // namespace mote::ops
