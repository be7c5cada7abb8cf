#pragma once
// ONNX's elementwise functions of one input that Mote runs on int8 as a 256-entry table
// (MoteTableLookup): their ONNX names, attributes and float definitions.

#include <string_view>

#include "compiler/ir/graph.h"

namespace mote::ops {

struct ElementFunctionInfo {
  ir::ElementFunction function;
  // ONNX's operator (Gelu's tanh approximation: "Gelu" too); for arithmetic with a constant,
  // the formula, c standing for alpha, and no operator (element_function(name) never gives it).
  const char* onnx_name;
  // The ONNX attributes that become TableLookupOptions' alpha and beta (null: none), and their
  // defaults.
  const char* alpha_attribute;
  float alpha;
  const char* beta_attribute;
  float beta;
};

// The function ONNX's operator `onnx_name` computes; null when it is not one of them.
const ElementFunctionInfo* element_function(std::string_view onnx_name);
const ElementFunctionInfo& element_function(ir::ElementFunction function);

// The function at x, as ONNX defines it (NaN where it is undefined, as Log of a negative).
double evaluate(const ir::TableLookupOptions& o, double x);

}  // namespace mote::ops
