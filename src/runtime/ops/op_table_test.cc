// The host's operator table: every kind of the program format is built in, with its name and
// the in-place rule the loader's plan check relies on.

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "runtime/ops/op_support.h"

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
    EXPECT_NE(entry->op->invoke, nullptr) << entry->name;
    EXPECT_EQ(entry->absent_reason, nullptr) << entry->name;
    EXPECT_TRUE(names.insert(entry->name).second) << entry->name << " named twice";
  }
  EXPECT_EQ(op_entry(static_cast<OpKind>(static_cast<int>(OpKind::MAX) + 1)), nullptr);
  EXPECT_STREQ(op_entry(OpKind::Conv2D)->name, "CONV_2D");
  EXPECT_STREQ(op_entry(OpKind::ResizeNearestNeighbor)->name, "RESIZE_NEAREST_NEIGHBOR");
}

TEST(OpTableTest, InPlaceKinds) {
  const std::set<OpKind> in_place = {OpKind::Reshape,  OpKind::Add,      OpKind::Sub,
                                     OpKind::Mul,      OpKind::Minimum,  OpKind::Maximum,
                                     OpKind::Quantize, OpKind::Dequantize, OpKind::LeakyRelu,
                                     OpKind::Squeeze,  OpKind::ExpandDims, OpKind::Relu,
                                     OpKind::Relu6,    OpKind::Tanh,     OpKind::Prelu,
                                     OpKind::SquaredDifference, OpKind::Rsqrt};
  for (int k = 0; k <= static_cast<int>(OpKind::MAX); ++k) {
    const OpEntry& entry = *op_entry(static_cast<OpKind>(k));
    EXPECT_EQ(entry.op->runs_in_place, in_place.count(static_cast<OpKind>(k)) == 1) << entry.name;
  }
}

TEST(OpTableTest, ScratchOnlyForKernelsThatMayNeedIt) {
  const std::set<OpKind> with_scratch = {OpKind::Conv2D, OpKind::DepthwiseConv2D,
                                         OpKind::FullyConnected, OpKind::AveragePool2D,
                                         OpKind::TransposeConv, OpKind::Svdf,
                                         OpKind::UnidirectionalSequenceLstm};
  for (int k = 0; k <= static_cast<int>(OpKind::MAX); ++k) {
    const OpEntry& entry = *op_entry(static_cast<OpKind>(k));
    const bool listed = with_scratch.count(static_cast<OpKind>(k)) == 1;
    EXPECT_EQ(entry.op->required_scratch != nullptr, listed) << entry.name;
  }
}

}  // namespace
}  // namespace mote::runtime::internal
