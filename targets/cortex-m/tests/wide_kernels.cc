// The 16x8 and int4 kernels of this CPU's variant (dsp on the M4, M7, M33; mve on the M55;
// portable where there is none) against the portable ones, bit for bit, on the randomized shapes
// of src/kernels/testing/wide_check.h, under QEMU.

#include <string.h>

#include "platform/console.h"
#include "testing/wide_check.h"

int main() {
  using mote::platform::Line;
  namespace w = mote::kernels::testing::wide_check;
  // The extension's folder; a scalar CPU runs portable.
  const char* variant =
      strcmp(MOTE_FIRMWARE_VARIANT, "scalar") == 0 ? "portable" : MOTE_FIRMWARE_VARIANT;
  w::Report report;
  if (!w::check_all(report, variant, 300)) {
    Line()
        .text("error: ")
        .text(report.failed)
        .text(", case ")
        .signed_number(report.failed_case)
        .text(", output ")
        .signed_number(report.failed_index)
        .end();
    return 1;
  }
  Line()
      .text("wide kernels: ")
      .unsigned_number(static_cast<uint64_t>(report.cases))
      .text(" cases, ")
      .text(variant)
      .end();
  Line().text("wide kernels: ok").end();
  return 0;
}
