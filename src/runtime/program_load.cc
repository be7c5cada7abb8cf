// Program::load. In the runtime library, and in an image built with MOTE_VERIFY full (the
// default): every check of the format on the device (internal::check_program). An image built
// with MOTE_VERIFY crc compiles this file itself with MOTE_VERIFY_CRC and its selection header
// (MOTE_OP_SELECTION_HEADER, written by mote_program_ops, which verified each of the image's
// programs with the full check on the host): the load accepts exactly those programs, known by
// their size and CRC-32, and links none of the checks (the verifier, the operators' checks, the
// plan check). Its object then stands in for the library's, as op_table.cc's does.

#include "mote/runtime/crc32.h"
#include "mote/runtime/program.h"
#include "runtime/internal.h"

#if defined(MOTE_VERIFY_CRC)
#if !defined(MOTE_OP_SELECTION_HEADER)
#error "MOTE_VERIFY_CRC needs the image's selection header (mote_select_operators)"
#endif
#include MOTE_OP_SELECTION_HEADER
#endif

namespace mote {
namespace runtime {

#if defined(MOTE_VERIFY_CRC)

Result<Program> Program::load(const uint8_t* data, size_t size, uint32_t* /*workspace*/,
                              size_t /*workspace_words*/, LoadDiagnostic* diagnostic) {
  MOTE_TRY(internal::check_program_bytes(data, size, diagnostic));
  // Each program's CRC-32 covers its bytes but its constants [skip_at, skip_at + skip_bytes),
  // which the full check does not read either (both check them where the program carries their
  // own CRC, mote compile --checksum: then nothing is skipped). The span comes from the header.
  bool built_with = false;
#define MOTE_INTERNAL_KNOWN(program_crc, program_size, skip_at, skip_bytes)        \
  if (!built_with && size == (program_size)) {                                    \
    built_with = crc32_skipping(data, size, skip_at, skip_bytes) == (program_crc); \
  }
  MOTE_SELECTED_PROGRAMS(MOTE_INTERNAL_KNOWN)
#undef MOTE_INTERNAL_KNOWN
  if (!built_with) {
    return internal::fail(diagnostic, Error::kInvalidProgram, LoadDiagnostic::Where::kProgram, 0,
                          "not one of the programs this image was built with (its size and "
                          "CRC-32 differ from each: MOTE_VERIFY crc loads those alone; build "
                          "the image with MOTE_VERIFY full to load others)");
  }
  MOTE_TRY(internal::check_trusted_target(*schema::GetProgram(data), diagnostic));
  return Program(data, static_cast<uint32_t>(size));
}

Result<Program> Program::load(const uint8_t* data, size_t size, LoadDiagnostic* diagnostic) {
  return load(data, size, nullptr, 0, diagnostic);  // no workspace: no check needs one
}

#else

Result<Program> Program::load(const uint8_t* data, size_t size, uint32_t* workspace,
                              size_t workspace_words, LoadDiagnostic* diagnostic) {
  MOTE_TRY(internal::check_program(data, size, workspace, workspace_words, diagnostic));
  return Program(data, static_cast<uint32_t>(size));
}

Result<Program> Program::load(const uint8_t* data, size_t size, LoadDiagnostic* diagnostic) {
  // Most programs fit; the rest get the pairwise check (the same verdicts).
  uint32_t workspace[kLoadStackWorkspaceWords];
  return load(data, size, workspace, kLoadStackWorkspaceWords, diagnostic);
}

#endif

}  // namespace runtime
}  // namespace mote
