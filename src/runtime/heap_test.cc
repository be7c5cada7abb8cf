// The runtime library (and the kernels it links) must not reference the heap, exceptions or
// RTTI: its undefined symbols, read with nm, contain none of them.

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

std::vector<std::string> undefined_symbols(const std::string& archive) {
  std::vector<std::string> symbols;
  const std::string command = "nm -u --format=just-symbols '" + archive + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return symbols;
  std::array<char, 512> line{};
  while (fgets(line.data(), line.size(), pipe.get()) != nullptr) {
    std::string s(line.data());
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (!s.empty()) symbols.push_back(s);
  }
  return symbols;
}

bool forbidden(const std::string& s) {
  static const char* const kExact[] = {
      "malloc", "free", "calloc", "realloc", "aligned_alloc", "posix_memalign", "memalign",
      "_Znwm", "_Znam", "_Znwj", "_Znaj", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm",
      "__cxa_throw", "__cxa_allocate_exception", "__cxa_begin_catch", "__cxa_end_catch",
      "__cxa_rethrow", "__gxx_personality_v0", "_Unwind_Resume", "__dynamic_cast",
      "__cxa_guard_acquire", "__cxa_atexit", "printf", "puts", "fprintf", "abort"};
  for (const char* e : kExact) {
    if (s == e) return true;
  }
  // operator new/delete overloads (nothrow, aligned) and typeinfo objects.
  return s.rfind("_Znw", 0) == 0 || s.rfind("_Zna", 0) == 0 || s.rfind("_Zdl", 0) == 0 ||
         s.rfind("_Zda", 0) == 0 || s.rfind("_ZTI", 0) == 0 || s.rfind("_ZTV", 0) == 0 ||
         s.rfind("_ZSt", 0) == 0 || s.rfind("_ZNSt", 0) == 0;
}

void expect_clean(const char* archive) {
  const auto symbols = undefined_symbols(archive);
  ASSERT_FALSE(symbols.empty()) << "nm found no symbols in " << archive;
  for (const std::string& s : symbols) {
    EXPECT_FALSE(forbidden(s)) << archive << " references " << s;
  }
}

TEST(HeapTest, RuntimeLibraryHasNoHeapExceptionsOrRtti) { expect_clean(MOTE_RUNTIME_ARCHIVE); }
TEST(HeapTest, KernelLibraryHasNoHeapExceptionsOrRtti) { expect_clean(MOTE_KERNELS_ARCHIVE); }

}  // namespace
