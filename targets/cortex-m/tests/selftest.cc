// Firmware self-test: start-up initialised .data and zeroed .bss, the FPU (and DSP or MVE)
// instructions run, the command line arrives, host files can be written and read back over
// semihosting, the arena region is usable, stack painting measures a frame of known size, and
// static RAM comes from the linker's symbols. Exits 0 only if every check holds.
//   selftest.elf <scratch file path> alpha beta,gamma

#include <stddef.h>
#include <stdint.h>

#include "platform/board.h"
#include "platform/console.h"
#include "platform/semihosting.h"

#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>
#endif
#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

namespace {

using mote::platform::Line;

// .data: start-up must copy these from their load image; .bss: start-up must zero it. volatile
// keeps the compiler from folding them into constants.
volatile uint32_t g_initialised = 0x12345678u;
volatile char g_greeting[8] = "hello";
volatile uint32_t g_zeroed[32];

struct Checks {
  int failed = 0;
  void expect(bool ok, const char* what) {
    Line().text(ok ? "  ok   " : "  FAIL ").text(what).end();
    if (!ok) ++failed;
  }
};

template <typename Char>
bool starts_with(const Char* text, const char* prefix) {
  while (*prefix != '\0') {
    if (*text++ != *prefix++) return false;
  }
  return true;
}

// Finds `word` as a whole space-separated word of `line`.
bool has_word(const char* line, const char* word) {
  for (const char* p = line; *p != '\0'; ++p) {
    if ((p == line || p[-1] == ' ') && starts_with(p, word)) {
      size_t n = 0;
      while (word[n] != '\0') ++n;
      if (p[n] == ' ' || p[n] == '\0') return true;
    }
  }
  return false;
}

// A frame of a known size: 1 KiB of locals the compiler cannot drop.
__attribute__((noinline)) uint32_t use_stack(uint32_t seed) {
  volatile uint8_t buffer[1024];
  for (size_t i = 0; i < sizeof(buffer); ++i) buffer[i] = static_cast<uint8_t>(seed + i);
  uint32_t sum = 0;
  for (size_t i = 0; i < sizeof(buffer); i += 64) sum += buffer[i];
  return sum;
}

void check_arithmetic(Checks& checks) {
  volatile float a = 1.5f;
  volatile float b = 2.25f;
  checks.expect(a * b == 3.375f, "float multiply");
#if defined(__ARM_FEATURE_DSP)
  // SMLAD: 3*5 + (-2)*7 + 100.
  const uint32_t x = (static_cast<uint32_t>(static_cast<uint16_t>(-2)) << 16) | 3u;
  const uint32_t y = (7u << 16) | 5u;
  volatile int32_t acc = 100;
  checks.expect(__smlad(x, y, acc) == 101, "DSP SMLAD");
#endif
#if defined(__ARM_FEATURE_MVE)
  alignas(16) static const int8_t kBytes[16] = {1, -2, 3, -4, 5, -6, 7, -8,
                                                9, -10, 11, -12, 13, -14, 15, 100};
  const int8x16_t v = vldrbq_s8(kBytes);
  checks.expect(vaddvq_s8(v) == 108, "MVE VLDRB + VADDV");
#endif
}

void check_host_file(Checks& checks, const char* path) {
  using namespace mote::platform;
  uint8_t data[300];
  for (size_t i = 0; i < sizeof(data); ++i) data[i] = static_cast<uint8_t>(i * 7 + 1);
  int32_t handle = host_open(path, FileMode::kWriteBinary);
  checks.expect(handle >= 0, "host file opened for writing");
  if (handle < 0) return;
  checks.expect(host_write(handle, data, sizeof(data)) == sizeof(data), "host file written");
  checks.expect(host_close(handle), "host file closed");

  handle = host_open(path, FileMode::kReadBinary);
  checks.expect(handle >= 0, "host file opened for reading");
  if (handle < 0) return;
  checks.expect(host_file_length(handle) == static_cast<int32_t>(sizeof(data)), "host file length");
  uint8_t back[320];
  const size_t read = host_read(handle, back, sizeof(back));
  bool same = read == sizeof(data);
  for (size_t i = 0; same && i < read; ++i) same = back[i] == data[i];
  checks.expect(same, "host file read back");
  host_close(handle);
  checks.expect(host_open("/nonexistent/mote/file", FileMode::kReadBinary) == -1,
                "missing host file reported");
}

}  // namespace

int main() {
  using namespace mote::platform;
  Line().text("selftest on ").text(board_name()).text(" (").text(cpu_name()).text(")").end();
  Checks checks;

  checks.expect(g_initialised == 0x12345678u && starts_with(g_greeting, "hello"), ".data copied");
  bool zero = true;
  for (uint32_t word : g_zeroed) zero = zero && word == 0;
  checks.expect(zero, ".bss zeroed");
  g_zeroed[31] = g_initialised;  // keep both in RAM

  check_arithmetic(checks);

  char arguments[128];
  const size_t length = command_line(arguments, sizeof(arguments));
  Line().text("command line: ").text(length > 0 ? arguments : "(none)").end();
  checks.expect(has_word(arguments, "alpha") && has_word(arguments, "beta,gamma"),
                "command line arguments");
  // The first argument after the image name is a scratch file path.
  const char* path = arguments;
  while (*path != '\0' && *path != ' ') ++path;
  while (*path == ' ') ++path;
  char* end = const_cast<char*>(path);
  while (*end != '\0' && *end != ' ') ++end;
  *end = '\0';
  check_host_file(checks, path);

  const MemoryRegion arena = arena_region();
  Line().text("arena region: 0x").hex(reinterpret_cast<uintptr_t>(arena.data)).text(" ").unsigned_number(arena.size).text(" bytes").end();
  bool arena_ok = arena.size >= (1u << 20) && reinterpret_cast<uintptr_t>(arena.data) % 16 == 0;
  if (arena_ok) {
    volatile uint8_t* bytes = arena.data;
    for (size_t i = 0; i < 4096; ++i) bytes[i] = static_cast<uint8_t>(i ^ 0x5A);
    bytes[arena.size - 1] = 0xA5;
    for (size_t i = 0; i < 4096; ++i) arena_ok = arena_ok && bytes[i] == static_cast<uint8_t>(i ^ 0x5A);
    arena_ok = arena_ok && bytes[arena.size - 1] == 0xA5;
  }
  checks.expect(arena_ok, "arena region readable and writable, first and last byte");

  paint_stack();
  const size_t before = stack_peak_bytes();
  const uint32_t sum = use_stack(g_initialised);
  const size_t peak = stack_peak_bytes();
  Line().text("stack_peak ").unsigned_number(peak).text(" (before the 1 KiB frame: ").unsigned_number(before).text(", stack size ").unsigned_number(stack_size_bytes()).text(")").end();
  checks.expect(sum != 0 && peak >= before + 1024 && peak <= before + 1024 + 128,
                "stack paint measures a 1 KiB frame");
  checks.expect(!stack_guard_hit(), "stack guard word intact");

  const size_t static_ram = static_ram_bytes();
  Line().text("static_ram ").unsigned_number(static_ram).end();
  // This image's own .data + .bss: its globals and the console's handle, give or take alignment.
  const size_t mine = sizeof(g_initialised) + sizeof(g_greeting) + sizeof(g_zeroed) + 4;
  checks.expect(static_ram >= mine && static_ram <= mine + 16, "static RAM from linker symbols");

  Line().text(checks.failed == 0 ? "selftest: ok" : "selftest: FAILED").end();
  return checks.failed == 0 ? 0 : 1;
}
