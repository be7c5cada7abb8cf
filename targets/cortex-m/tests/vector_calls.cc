// The reference-vector sets of the operators with kernel variants, run on this CPU's kernels (the
// dsp or mve variant where the build has one): each set was written on the host as a kernel call
// (src/kernels/vector_calls/kernel_call.h, mote_write_vector_calls; int8, 16x8 and int4-weight
// forms); this image reads the file that lists them (its one argument, a call file per line) and
// each call through semihosting, runs it and compares with the set's expected output. Exit status
// 1 names the first set that differs.

#include <stdint.h>
#include <string.h>

#include "kernels/vector_calls/kernel_call.h"
#include "platform/board.h"
#include "platform/console.h"
#include "platform/semihosting.h"

namespace {

using namespace mote::platform;
namespace t = mote::kernels::testing;

// Reads a whole host file into `buffer`; its size, or -1.
int64_t read_file(const char* path, uint8_t* buffer, size_t capacity) {
  const int32_t handle = host_open(path, FileMode::kReadBinary);
  if (handle < 0) return -1;
  const int32_t length = host_file_length(handle);
  int64_t result = -1;
  if (length >= 0 && static_cast<size_t>(length) <= capacity &&
      host_read(handle, buffer, static_cast<size_t>(length)) == static_cast<size_t>(length)) {
    result = length;
  }
  host_close(handle);
  return result;
}

int fail(const char* path, const char* why) {
  Line().text("error: ").text(path).text(": ").text(why).end();
  return 1;
}

}  // namespace

int main() {
  char arguments[256];
  command_line(arguments, sizeof(arguments));
  // The list file is the word after the image's name.
  const char* list_path = strchr(arguments, ' ');
  if (list_path == nullptr) return fail("(none)", "usage: vector_calls <list file>");
  ++list_path;

  // The arena region holds the list, then one call, its output and its scratch at a time.
  const MemoryRegion region = arena_region();
  const size_t quarter = (region.size / 4) & ~size_t{15};
  uint8_t* list = region.data;
  uint8_t* call_bytes = region.data + quarter;
  int8_t* output = reinterpret_cast<int8_t*>(region.data + 2 * quarter);
  int8_t* scratch = reinterpret_cast<int8_t*>(region.data + 3 * quarter);

  const int64_t list_size = read_file(list_path, list, quarter - 1);
  if (list_size < 0) return fail(list_path, "cannot read the list of calls");
  list[list_size] = '\0';

  int sets = 0;
  char* line = reinterpret_cast<char*>(list);
  while (*line != '\0') {
    char* end = strchr(line, '\n');
    if (end != nullptr) *end = '\0';
    if (*line != '\0') {
      const int64_t size = read_file(line, call_bytes, quarter);
      t::KernelCall call{};
      if (size < 0) return fail(line, "cannot read the call");
      if (!t::decode_call(call_bytes, static_cast<size_t>(size), &call)) {
        return fail(line, "not a well-formed kernel call");
      }
      const t::CallTensor& expected = t::expected_output(call);
      memset(output, 0x5A, size_t{expected.count} * expected.element_bytes);
      const t::CallStatus status =
          t::run_call(call, output, quarter, mote::kernels::Scratch{scratch, quarter});
      if (status != t::CallStatus::kOk) return fail(line, "the kernel call was refused");
      for (uint32_t i = 0; i < expected.count; ++i) {
        const int32_t got = t::value_at(output, expected.element_bytes, i);
        const int32_t want = t::value_at(expected.data, expected.element_bytes, i);
        if (got != want) {
          Line().text("error: ").text(line).text(": ").text(t::built_call_variant(call))
              .text(" output ").unsigned_number(i).text(" is ").signed_number(got)
              .text(", expected ").signed_number(want).end();
          return 1;
        }
      }
      Line().text("set ").text(line).text(": ").text(t::built_call_variant(call)).text(" ok").end();
      ++sets;
    }
    if (end == nullptr) break;
    line = end + 1;
  }
  Line().text("vectors: ").unsigned_number(static_cast<uint64_t>(sets)).text(" sets ok").end();
  return sets > 0 ? 0 : 1;
}
