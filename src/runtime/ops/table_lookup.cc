// MoteTableLookup: int8 -> int8 through the 256-entry table the compiler computed (an ONNX
// model's elementwise function).

#include "mote/kernels/lookup_table.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const schema::Region* table = c.options<schema::TableLookupOptions>().table();
  if (!has_lookup_table(table)) return c.bad("lookup table missing");
  return c.lookup_table(table);
}

void invoke(const Op& op) {
  kernels::lookup_table(op.lookup_table(op.options<schema::TableLookupOptions>().table()),
                        op.in_data<int8_t>(0), op.out_data<int8_t>(), element_count(op.in(0)));
}

}  // namespace

// One byte in, one byte out at the same index: it may overwrite its input.
extern const OpRegistration kTableLookupOp{
    takes(1, 1, schema::OpOptions::TableLookupOptions).int8(1).one_to_one(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, &elementwise_overlap};
extern const OpForm kTableLookupPlain{&invoke};

}  // namespace mote::runtime::internal
