// libFuzzer target: bytes -> TFLite reader, then the readers' harness (reader_harness.h): the
// IR validator, the compile pipeline for one of three CPUs when the graph is small enough, one
// run of the program; `inspect --check`'s verdict must be the reader's.

#include <cstddef>
#include <cstdint>
#include <span>

#include "compiler/tflite/reader.h"
#include "fuzz/reader_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return mote::fuzz::read_compile_and_run(
      data, size, [](std::span<const uint8_t> b) { return mote::tflite::check_model(b); },
      [](std::span<const uint8_t> b) { return mote::tflite::read_model(b); });
}
