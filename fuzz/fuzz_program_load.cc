// libFuzzer target: bytes -> Program::load -> when it loads, run() in an arena of exactly the
// planned size (see run_loaded_program). Program::load promises a status code for any bytes and
// a program that runs inside its arena once loaded. Half the mutations are structure-aware
// (program_mutator.h): one field of a well-formed program changed, so the loader's semantic
// rules, not only the FlatBuffers verifier, meet hostile values.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fuzz/fuzz_support.h"
#include "fuzz/program_mutator.h"
#include "mote/runtime/program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using mote::runtime::LoadDiagnostic;
  using mote::runtime::Program;
  mote::fuzz::ExactBuffer bytes(data, size, mote::runtime::kProgramAlignment);
  LoadDiagnostic diagnostic;
  diagnostic.reason = nullptr;  // load must set a reason on every failure
  const auto loaded = Program::load(bytes.data(), bytes.size(), &diagnostic);
  if (!loaded.ok()) {
    if (diagnostic.reason == nullptr || std::strlen(diagnostic.reason) == 0) {
      std::fprintf(stderr, "mote fuzz: load failed without a reason\n");
      std::abort();
    }
    return 0;
  }
  mote::fuzz::run_loaded_program(loaded.value(), mote::fuzz::hash_bytes(data, size));
  return 0;
}

#ifdef MOTE_FUZZ_LIBFUZZER
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  if (seed % 2 == 0) {
    if (const size_t n = mote::fuzz::mutate_program(data, size, max_size, seed / 2); n != 0) {
      return n;
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
#endif
