#include "compiler/ops/op_def.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace mote::ops {
namespace {

// Every operator of the list has a complete definition, its own TFLite code, and the program
// kind of the same name at the same position.
TEST(OpDefinitions, EveryOperatorIsDefinedOnce) {
  std::set<int32_t> codes;
  std::set<std::string> custom;
  for (size_t t = 0; t < ir::kNumOpTypes; ++t) {
    const auto type = static_cast<ir::OpType>(t);
    const OpDef& def = op_def(type);
    SCOPED_TRACE(std::string(ir::to_string(type)));
    EXPECT_NE(def.read_options, nullptr);
    EXPECT_NE(def.write_options, nullptr);
    EXPECT_NE(def.check, nullptr);
    if (def.custom_code != nullptr) {
      EXPECT_EQ(def.builtin_code, 32);  // CUSTOM
      EXPECT_NE(def.write_custom, nullptr);
      EXPECT_TRUE(custom.insert(def.custom_code).second) << def.custom_code << " twice";
      EXPECT_EQ(op_type_for_custom(def.custom_code), type);
      EXPECT_EQ(std::string(ir::to_string(type)), def.custom_code);
      continue;
    }
    EXPECT_TRUE(codes.insert(def.builtin_code).second) << "code " << def.builtin_code << " twice";
    EXPECT_EQ(op_type_for_builtin(def.builtin_code), type);
  }
  EXPECT_EQ(op_type_for_builtin(32), std::nullopt);  // CUSTOM: by name only
  EXPECT_EQ(op_type_for_custom("SignalFramer"), std::nullopt);
  EXPECT_EQ(op_type_for_builtin(52), std::nullopt);  // BIDIRECTIONAL_SEQUENCE_LSTM
}

TEST(OpDefinitions, ProgramKindsFollowTheList) {
  size_t position = 0;
#define MOTE_EXPECT_KIND(kind, name, definition)                                             \
  EXPECT_EQ(static_cast<size_t>(schema::OpKind::kind), position) << #kind;                  \
  EXPECT_EQ(op_kind(ir::OpType::k##kind), schema::OpKind::kind) << #kind;                   \
  EXPECT_STREQ(schema::EnumNameOpKind(schema::OpKind::kind), #kind);                        \
  ++position;
  MOTE_OPERATORS(MOTE_EXPECT_KIND)
#undef MOTE_EXPECT_KIND
  EXPECT_EQ(position, static_cast<size_t>(schema::OpKind::MAX) + 1);
}

}  // namespace
}  // namespace mote::ops
