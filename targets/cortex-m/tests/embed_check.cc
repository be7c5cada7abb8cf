// Files embedded by embed.cmake arrive intact: a generated pattern file (every byte value, a
// length that is not a multiple of 16) and, when shared/models is present, a real .tflite.
// Sizes come independently from CMake (file(SIZE)), the pattern from its formula.

#include <stdint.h>

#include "platform/console.h"
#include "pattern_blob.h"
#if defined(MOTE_HELLO_WORLD_SIZE)
#include "hello_world_tflite.h"
#endif

namespace {

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

int main() {
  using mote::platform::Line;
  int failed = 0;
  auto expect = [&failed](bool ok, const char* what) {
    Line().text(ok ? "  ok   " : "  FAIL ").text(what).end();
    if (!ok) ++failed;
  };

  expect(pattern_blob_size == MOTE_PATTERN_SIZE, "pattern size");
  expect(aligned16(pattern_blob), "pattern 16-byte aligned");
  bool same = true;
  for (size_t i = 0; i < pattern_blob_size; ++i) {
    same = same && pattern_blob[i] == static_cast<uint8_t>((i * 37 + 11) % 256);
  }
  expect(same, "pattern bytes");

#if defined(MOTE_HELLO_WORLD_SIZE)
  expect(hello_world_tflite_size == MOTE_HELLO_WORLD_SIZE, "model size");
  expect(aligned16(hello_world_tflite), "model 16-byte aligned");
  expect(hello_world_tflite[4] == 'T' && hello_world_tflite[5] == 'F' &&
             hello_world_tflite[6] == 'L' && hello_world_tflite[7] == '3',
         "model file identifier TFL3");
#else
  mote::platform::print("  skip no shared models\n");
#endif
  Line().text(failed == 0 ? "embed: ok" : "embed: FAILED").end();
  return failed == 0 ? 0 : 1;
}
