#pragma once
// Reading and writing an operator's TFLite options table, for the definitions' read_options and
// write_options (the reader and the builder's writer call them).

#include <functional>
#include <string>
#include <type_traits>

#include <flatbuffers/flexbuffers.h>

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

  // A custom operator's options: its FlexBuffers map (TFLM's signal operators), verified; fails
  // naming the operator when they are absent, not FlexBuffers or not a map.
  flexbuffers::Map custom_map() const;
  // Map entry `key` as an integer in [lo, hi]; fails naming the option when it is absent, not an
  // integer (or bool) or out of range.
  int64_t custom_int(const flexbuffers::Map& map, const char* key, int64_t lo, int64_t hi) const;
  // Map entry `key` as a finite number; fails naming the option otherwise.
  float custom_float(const flexbuffers::Map& map, const char* key) const;

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

// The options of the window operators (convolutions, pools): padding, strides and fused
// activation, and where the operator has them dilation, depth multiplier or filter size. An
// OpDef's read_options / write_options: WindowOptions<...>::read and ::write.
template <typename Table, tfl::BuiltinOptions kTable, typename Options>
ir::Options read_window(const TfliteOptions& t) {
  const Table& o = *t.table<Table>(kTable, true);
  Options r;
  r.padding = t.padding(o.padding());
  r.stride_w = o.stride_w();
  r.stride_h = o.stride_h();
  r.activation = t.activation(o.fused_activation_function());
  if constexpr (requires { r.dilation_h; }) {
    r.dilation_w = o.dilation_w_factor();
    r.dilation_h = o.dilation_h_factor();
  }
  if constexpr (requires { r.depth_multiplier; }) r.depth_multiplier = o.depth_multiplier();
  if constexpr (requires { r.filter_h; }) {
    r.filter_w = o.filter_width();
    r.filter_h = o.filter_height();
  }
  return r;
}
template <typename TableT, typename Options>
void write_window(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<Options>(op.options);
  TableT t;
  t.padding = padding_code(o.padding);
  t.stride_w = o.stride_w;
  t.stride_h = o.stride_h;
  t.fused_activation_function = activation_code(o.activation);
  if constexpr (requires { o.dilation_h; }) {
    t.dilation_w_factor = o.dilation_w;
    t.dilation_h_factor = o.dilation_h;
  }
  if constexpr (requires { o.depth_multiplier; }) t.depth_multiplier = o.depth_multiplier;
  if constexpr (requires { o.filter_h; }) {
    t.filter_width = o.filter_w;
    t.filter_height = o.filter_h;
  }
  out.Set(std::move(t));
}
template <typename Table, tfl::BuiltinOptions kTable, typename Options>
struct WindowOptions {
  static constexpr auto read = &read_window<Table, kTable, Options>;
  static constexpr auto write = &write_window<typename Table::NativeTableType, Options>;
};

// Operators whose options are one required field of TFLite's table, the same in the IR (for
// example SOFTMAX's beta): the table's getter, its object-API field and the IR's field.
template <tfl::BuiltinOptions kTable, auto kGetter, auto kTableField, auto kField>
struct OneFieldOptions {
  template <typename M>
  struct Of;
  template <typename C, typename R>
  struct Of<R C::*> {
    using Class = C;
  };
  template <typename C, typename R>
  struct Of<R (C::*)() const> {
    using Class = C;
  };
  using Table = typename Of<decltype(kGetter)>::Class;
  using TableT = typename Of<decltype(kTableField)>::Class;
  using Options = typename Of<decltype(kField)>::Class;

  static ir::Options read(const TfliteOptions& t) {
    Options r;
    r.*kField = (t.table<Table>(kTable, true)->*kGetter)();
    return r;
  }
  static void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
    TableT t;
    t.*kTableField = std::get<Options>(op.options).*kField;
    out.Set(std::move(t));
  }
};

// Operators without options: `read_empty` accepts none or the empty table `kTable` (what TFLite's
// converter writes for them); `write_empty` writes that table (nothing for TableT = void).
template <tfl::BuiltinOptions kTable>
ir::Options read_empty(const TfliteOptions& t) {
  t.none(kTable);
  return {};
}
template <typename TableT>
void write_empty(const ir::Operator&, tfl::BuiltinOptionsUnion& out) {
  if constexpr (!std::is_void_v<TableT>) out.Set(TableT{});
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
