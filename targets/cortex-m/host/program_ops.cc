// mote_program_ops: writes the operator selection of a firmware image, the header that
// src/runtime/ops/op_table.cc is compiled with, from the .mote programs the image embeds. The
// image's runtime then builds in those operators' checks, invokes and kernels and no others.
//   mote_program_ops <out.h> <program.mote>...
// The header defines MOTE_SELECTED_OPS(X) as X(<schema::OpKind>) for every kind the programs use,
// in enum order, MOTE_SELECTED_FORMS(X) as X(<kind>, <form>, <field>) for every separate form
// (src/runtime/ops/op_forms.h: plain, row-streamed, in place, backward, 16x8, int4) one of their
// operators runs, and MOTE_SELECTED_PROGRAMS(X) as X(<crc32>, <size>, <skip at>, <skip bytes>)
// for each program, which an image built with MOTE_VERIFY crc loads alone
// (src/runtime/program_load.cc): the CRC-32 of its bytes but the span skipped, its constants
// (none where it carries their own CRC, mote compile --checksum); and MOTE_SELECTED_FLOAT_INPUTS
// where a program holds a float input quantized (Executor::input_takes_float), which the runner
// then writes as floats; and MOTE_SELECTED_MVE_FOUR_ROWS, _ROW3 and _WIDE, the specialised
// code of the mve convolution kernels their operators may run (src/kernels/mve/instances.h),
// which an M55 or M85 image links alone, and MOTE_SELECTED_GROUPED_CONV where a convolution is
// grouped (the mve and dsp kernels' grouped im2col). Each program first passes
// Program::load's full check here, on the host. The header is rewritten only when it changes, so
// the image rebuilds only then.
// Exit status: 0 ok, 2 bad arguments, 1 a program unreadable or refused by the full check, or the
// header not written.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "mote/runtime/crc32.h"
#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"
#include "runtime/ops/convolution.h"
#include "runtime/ops/op_forms.h"

namespace {

using mote::schema::OpKind;

bool read_file(const std::string& path, std::vector<uint8_t>* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  bytes->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

// A program's bytes where Program::load wants them: 16-byte aligned.
struct alignas(mote::runtime::kProgramAlignment) Block {
  uint8_t bytes[mote::runtime::kProgramAlignment];
};

// A program as MOTE_VERIFY crc knows it (MOTE_SELECTED_PROGRAMS).
struct ProgramKey {
  uint32_t crc;
  size_t size, skip_at, skip_bytes;
  bool operator<(const ProgramKey& o) const {
    return std::tie(crc, size, skip_at, skip_bytes) <
           std::tie(o.crc, o.size, o.skip_at, o.skip_bytes);
  }
};

// Adds the kinds of the program at `path` to `kinds`, the separate forms its operators run to
// `forms` (by kind) and its key to `programs`; false (with a message) when the runtime's full
// load check refuses it.
bool add_program(const std::string& path, std::set<int>* kinds, std::map<int, uint16_t>* forms,
                 mote::kernels::mve::Instances* instances, std::set<ProgramKey>* programs,
                 bool* float_inputs) {
  std::vector<uint8_t> bytes;
  if (!read_file(path, &bytes)) {
    std::fprintf(stderr, "mote_program_ops: cannot read %s\n", path.c_str());
    return false;
  }
  std::vector<Block> aligned((bytes.size() + sizeof(Block) - 1) / sizeof(Block));
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  const auto* data = reinterpret_cast<const uint8_t*>(aligned.data());
  mote::runtime::LoadDiagnostic diagnostic;
  const auto loaded = mote::runtime::Program::load(data, bytes.size(), &diagnostic);
  if (!loaded.ok()) {
    char message[512];
    mote::runtime::format_load_error(loaded.error(), diagnostic, message, sizeof message);
    std::fprintf(stderr, "mote_program_ops: %s: %s\n", path.c_str(), message);
    return false;
  }
  const mote::schema::Program& program = *mote::schema::GetProgram(data);
  ProgramKey key{0, bytes.size(), 0, 0};
  if (program.constants() != nullptr && !program.constants_crc32().has_value()) {
    key.skip_at = static_cast<size_t>(program.constants()->data() - data);
    key.skip_bytes = program.constants()->size();
  }
  key.crc = mote::runtime::crc32_skipping(data, key.size, key.skip_at, key.skip_bytes);
  programs->insert(key);
  for (size_t i = 0; i < loaded.value().num_inputs(); ++i) {
    *float_inputs |= loaded.value().input_takes_float(i);
  }
  const auto& operators = *program.operators();
  for (uint32_t i = 0; i < operators.size(); ++i) {
    const auto* op = operators.Get(i);
    kinds->insert(static_cast<int>(op->kind()));
    (*forms)[static_cast<int>(op->kind())] |= mote::runtime::internal::op_forms(program, i);
    const mote::kernels::mve::Instances used = mote::runtime::internal::mve_instances(program, i);
    instances->four_rows |= used.four_rows;
    instances->row3 |= used.row3;
    instances->wide |= used.wide;
    instances->grouped |= used.grouped;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: mote_program_ops <out.h> <program.mote>...\n");
    return 2;
  }
  std::set<int> kinds;
  std::map<int, uint16_t> forms;
  mote::kernels::mve::Instances instances{0, 0, 0, false};
  std::set<ProgramKey> programs;
  bool float_inputs = false;
  std::string sources;
  for (int i = 2; i < argc; ++i) {
    if (!add_program(argv[i], &kinds, &forms, &instances, &programs, &float_inputs)) return 1;
    const std::string path = argv[i];
    sources += (i > 2 ? ", " : "") + path.substr(path.find_last_of('/') + 1);
  }
  std::ostringstream header;
  header << "// Generated by mote_program_ops from " << sources << ". Do not edit.\n"
         << "// The operator kinds this image's programs use, and the separate forms they\n"
         << "// run: its operator table (src/runtime/ops/op_table.cc) builds in these and no\n"
         << "// others.\n"
         << "#pragma once\n"
         << "#define MOTE_SELECTED_OPS(X)";
  for (const int kind : kinds) {
    header << " X(" << mote::schema::EnumNameOpKind(static_cast<OpKind>(kind)) << ")";
  }
  header << "\n#define MOTE_SELECTED_FORMS(X)";
#define MOTE_WRITE_FORM(kind, form, field)                                                \
  if ((forms[static_cast<int>(OpKind::kind)] & mote::runtime::internal::kForm##form) != 0) { \
    header << " X(" #kind ", " #form ", " #field ")";                                       \
  }
  MOTE_OPERATOR_FORMS(MOTE_WRITE_FORM)
#undef MOTE_WRITE_FORM
  header << "\n#define MOTE_SELECTED_PROGRAMS(X)";
  for (const ProgramKey& k : programs) {
    char line[80];
    std::snprintf(line, sizeof line, " X(0x%08xu, %zuu, %zuu, %zuu)", k.crc, k.size, k.skip_at,
                  k.skip_bytes);
    header << line;
  }
  header << "\n";
  // The instances of the mve convolution kernels they run, and whether one is grouped
  // (src/kernels/{mve,dsp}/instance_tables.cc link those alone).
  header << std::hex << "#define MOTE_SELECTED_MVE_FOUR_ROWS 0x" << instances.four_rows
         << "ull\n#define MOTE_SELECTED_MVE_ROW3 0x" << instances.row3
         << "u\n#define MOTE_SELECTED_MVE_WIDE 0x" << instances.wide << std::dec
         << "u\n#define MOTE_SELECTED_GROUPED_CONV " << (instances.grouped ? 1 : 0) << "\n";
  // The runner writes float inputs held quantized (Executor::write_input) only where one is.
  if (float_inputs) header << "#define MOTE_SELECTED_FLOAT_INPUTS 1\n";
  const std::string out_path = argv[1];
  std::vector<uint8_t> old;
  if (read_file(out_path, &old) && std::string(old.begin(), old.end()) == header.str()) return 0;
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  out << header.str();
  if (!out) {
    std::fprintf(stderr, "mote_program_ops: cannot write %s\n", out_path.c_str());
    return 1;
  }
  return 0;
}
