#pragma once
// The firmware runner (runner_main.cc) runs one embedded .mote program on its embedded input and
// prints the memory status, static_ram, stack_peak, instruction counts and the output bytes.
// It reaches the runtime only through `mote::runner::Model`, which an adapter header named
// "runner_adapter.h" defines; mote_add_runner(ADAPTER <dir>) puts that folder on the include path
// (and builds any .cc in it). No virtual functions: the adapter is picked at build time.
//
// What Model must provide (all without heap; the runner keeps the Model on its stack):
//   Status load(ConstBytes program, Bytes arena);   verify the program in place, bind the arena
//   size_t input_count() const;    Bytes input(size_t i);
//   bool input_is_external(size_t i) const;   an input kept outside the arena, which the
//   bool bind_input(size_t i, const uint8_t* data, size_t size);   runner binds in place
//   size_t input_float_count(size_t i) const;   elements of an input the program holds quantized
//   bool write_input_float(size_t i, const float* values, size_t count, size_t first);
//                                  (0: none), which the runner writes as floats, quantized
//   size_t output_count() const;   ConstBytes output(size_t i) const;
//   size_t operator_count() const; const char* operator_name(size_t i) const;
//   Status run();                   one inference, as the application runs it
//   Status run_operator(size_t i);  operators 0 .. count-1 in order make one inference too
//   void reset_state();             states (variable tensors) back to their initial values
//   void print_memory_status() const; the memory status lines exactly as `mote run` prints them
//
// A Model may be built many times in one run (the runner's corruption sweep), so load must not
// depend on earlier loads.
//
// Adapters: runner/runtime/ (Mote's runtime, the default) and tests/fake_adapter/ (a toy program
// format that tests the runner itself).

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace runner {

struct ConstBytes {
  const uint8_t* data;
  size_t size;
};

struct Bytes {
  uint8_t* data;
  size_t size;
};

// code 0 is success; any other value is the runtime's status code, `message` its name.
struct Status {
  int code;
  const char* message;
  bool ok() const { return code == 0; }
};

inline constexpr Status kOk{0, "ok"};

// The runner's exit statuses (the platform's own are 3, a fault, and 4, a stack overflow).
inline constexpr int kExitMismatch = 1;      // outputs differ from the embedded expected bytes
inline constexpr int kExitRuntimeError = 2;  // the runtime returned a status; message printed

}  // namespace runner
}  // namespace mote
