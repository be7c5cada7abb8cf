// The host's operator table: every kind of the program format is built in, with its name and
// the in-place rule the loader's plan check relies on.

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "runtime/ops/op_support.h"
#include "runtime/stages.h"

namespace mote::runtime::internal {
namespace {

using schema::OpKind;

TEST(OpTableTest, CoversEveryKind) {
  std::set<std::string> names;
  for (int k = 0; k <= static_cast<int>(OpKind::MAX); ++k) {
    const OpEntry* entry = op_entry(static_cast<OpKind>(k));
    ASSERT_NE(entry, nullptr) << k;
    ASSERT_NE(entry->op, nullptr) << entry->name;
    // No check of its own only where the signature says all (int8 operands at least).
    EXPECT_TRUE(entry->op->check != nullptr || entry->op->signature.int8_inputs > 0)
        << entry->name;
    // The plain form, or the separate forms that hold it (EveryFormIsBuiltIn).
    EXPECT_EQ(entry->plain != nullptr, separate_forms(static_cast<OpKind>(k)) == 0)
        << entry->name;
    if (entry->plain != nullptr) {
      EXPECT_NE(entry->plain->invoke, nullptr) << entry->name;
    }
    EXPECT_TRUE(entry->built_in) << entry->name;
    EXPECT_TRUE(names.insert(entry->name).second) << entry->name << " named twice";
  }
  EXPECT_EQ(op_entry(static_cast<OpKind>(static_cast<int>(OpKind::MAX) + 1)), nullptr);
  EXPECT_STREQ(op_entry(OpKind::Conv2D)->name, "CONV_2D");
  EXPECT_STREQ(op_entry(OpKind::ResizeNearestNeighbor)->name, "RESIZE_NEAREST_NEIGHBOR");
}

// The host builds every separate form in, each a function of its own.
TEST(OpTableTest, EveryFormIsBuiltIn) {
  int kinds_with_forms = 0;
  for (int k = 0; k <= static_cast<int>(OpKind::MAX); ++k) {
    const auto kind = static_cast<OpKind>(k);
    const OpEntry& entry = *op_entry(kind);
    const uint16_t separate = separate_forms(kind);
    if (separate == 0) {
      EXPECT_EQ(entry.forms, nullptr) << entry.name;
      continue;
    }
    ++kinds_with_forms;
    ASSERT_NE(entry.forms, nullptr) << entry.name;
    const OpFormTable& f = *entry.forms;
    EXPECT_EQ(f.separate, separate) << entry.name;
    EXPECT_EQ(f.rows != nullptr, (separate & kFormRows) != 0) << entry.name;
    EXPECT_EQ(f.rows_portable != nullptr, (separate & kFormRowsPortable) != 0) << entry.name;
    for (const OpRowForm* rows : {f.rows, f.rows_portable}) {
      if (rows == nullptr) continue;
      EXPECT_TRUE(rows->row_reach && rows->row_args && rows->invoke_rows) << entry.name;
      EXPECT_GT(rows->row_words, 0) << entry.name;
      EXPECT_LE(rows->row_words, kMaxRowWords) << entry.name;
    }
    // The portable row form reads the same words as the extension's, with its own kernel.
    if (f.rows_portable != nullptr) {
      EXPECT_EQ(f.rows_portable->row_words, f.rows->row_words) << entry.name;
      EXPECT_NE(f.rows_portable->invoke_rows, f.rows->invoke_rows) << entry.name;
    }
    for (const auto& [bit, form] : {std::pair{kFormPlain, f.plain},
                                    std::pair{kFormPortable, f.portable},
                                    std::pair{kFormInPlace, f.in_place},
                                    std::pair{kFormBackward, f.backward},
                                    std::pair{kFormInt16, f.int16}, std::pair{kFormInt4, f.int4},
                                    std::pair{kFormOneInput, f.one_input},
                                    std::pair{kFormInt32, f.int32}}) {
      EXPECT_EQ(form != nullptr, (separate & bit) != 0) << entry.name << " form " << int{bit};
      if (form != nullptr) {
        // Each form runs by its own function: through the tables or from a prepared call.
        EXPECT_NE(form->invoke == nullptr, form->invoke_call == nullptr) << entry.name;
        EXPECT_TRUE(bit == kFormPlain || form->invoke != f.plain->invoke ||
                    form->invoke_call != f.plain->invoke_call)
            << entry.name << " form " << int{bit};
      }
    }
  }
  EXPECT_EQ(kinds_with_forms, 17);
  EXPECT_EQ(built_stages(), &kStageSupport);
  EXPECT_EQ(separate_forms(OpKind::Conv2D), kFormPlain | kFormPortable | kFormRows |
                                                kFormRowsPortable | kFormBackward | kFormInt16 |
                                                kFormInt4);
  EXPECT_EQ(separate_forms(OpKind::DepthwiseConv2D), kFormPlain | kFormPortable | kFormRows |
                                                         kFormRowsPortable | kFormInPlace |
                                                         kFormInt16 | kFormInt4 | kFormOneInput);
  EXPECT_EQ(separate_forms(OpKind::AveragePool2D),
            kFormPlain | kFormPortable | kFormRows | kFormInt16);
  EXPECT_EQ(separate_forms(OpKind::MaxPool2D), kFormPlain | kFormRows | kFormInt16);
  for (const OpKind kind : {OpKind::Logistic, OpKind::Prelu, OpKind::Pad, OpKind::Quantize,
                            OpKind::Concatenation, OpKind::ResizeNearestNeighbor,
                            OpKind::ResizeBilinear}) {
    EXPECT_EQ(separate_forms(kind), kFormPlain | kFormRows) << op_entry(kind)->name;
  }
  // TFLM's int32 arithmetic: a form of its own.
  for (const OpKind kind : {OpKind::Add, OpKind::Mul, OpKind::Maximum, OpKind::Minimum}) {
    EXPECT_EQ(separate_forms(kind), kFormPlain | kFormRows | kFormInt32) << op_entry(kind)->name;
  }
  EXPECT_EQ(separate_forms(OpKind::Sub), 0);
  EXPECT_EQ(separate_forms(OpKind::Dequantize), 0);
}

TEST(OpTableTest, InPlaceKinds) {
  const std::set<OpKind> in_place = {OpKind::Reshape,  OpKind::Add,      OpKind::Sub,
                                     OpKind::Mul,      OpKind::Minimum,  OpKind::Maximum,
                                     OpKind::Quantize, OpKind::Dequantize, OpKind::LeakyRelu,
                                     OpKind::Squeeze,  OpKind::ExpandDims, OpKind::Relu,
                                     OpKind::Relu6,    OpKind::Tanh,     OpKind::Prelu,
                                     OpKind::SquaredDifference, OpKind::Rsqrt, OpKind::Div,
                                     OpKind::TableLookup};
  for (int k = 0; k <= static_cast<int>(OpKind::MAX); ++k) {
    const OpEntry& entry = *op_entry(static_cast<OpKind>(k));
    EXPECT_EQ(entry.op->runs_in_place, in_place.count(static_cast<OpKind>(k)) == 1) << entry.name;
  }
}

TEST(OpTableTest, ScratchOnlyForKernelsThatMayNeedIt) {
  const std::set<OpKind> with_scratch = {OpKind::Conv2D, OpKind::DepthwiseConv2D,
                                         OpKind::FullyConnected, OpKind::AveragePool2D,
                                         OpKind::TransposeConv, OpKind::Svdf,
                                         OpKind::UnidirectionalSequenceLstm, OpKind::SignalRfft,
                                         OpKind::FloatRnn};
  for (int k = 0; k <= static_cast<int>(OpKind::MAX); ++k) {
    const OpEntry& entry = *op_entry(static_cast<OpKind>(k));
    const bool listed = with_scratch.count(static_cast<OpKind>(k)) == 1;
    EXPECT_EQ(entry.op->required_scratch != nullptr, listed) << entry.name;
  }
}

}  // namespace
}  // namespace mote::runtime::internal
