#include "compiler/target/target.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace mote::target {

std::optional<kernels::Extension> extension_for_cpu(std::string_view cpu) {
  std::string name(cpu);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name.rfind("cortex-", 0) == 0) name.erase(0, 7);
  using kernels::Extension;
  static constexpr std::pair<std::string_view, Extension> kCpus[] = {
      {"m0", Extension::kScalar},   {"m0+", Extension::kScalar}, {"m0plus", Extension::kScalar},
      {"m3", Extension::kScalar},   {"m23", Extension::kScalar}, {"m4", Extension::kDsp},
      {"m7", Extension::kDsp},      {"m33", Extension::kDsp},    {"m35p", Extension::kDsp},
      {"m55", Extension::kMve},     {"m85", Extension::kMve},
  };
  for (const auto& [known, extension] : kCpus) {
    if (name == known) return extension;
  }
  return std::nullopt;
}

std::string_view extension_name(kernels::Extension extension) {
  switch (extension) {
    case kernels::Extension::kScalar: return "scalar";
    case kernels::Extension::kDsp: return "dsp";
    case kernels::Extension::kMve: return "mve";
  }
  return "?";
}

std::optional<Cpu> find_cpu(std::string_view name) {
  const std::optional<kernels::Extension> extension = extension_for_cpu(name);
  if (!extension) return std::nullopt;
  std::string key;
  for (char c : name) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (key.starts_with("cortex-")) key.erase(0, 7);
  if (key == "m0+") key = "m0plus";
  return Cpu{"cortex-" + key, *extension};
}

std::string cpu_names() {
  return "cortex-m0, cortex-m0plus, cortex-m3, cortex-m23 (scalar); cortex-m4, cortex-m7, "
         "cortex-m33, cortex-m35p (dsp); cortex-m55, cortex-m85 (mve)";
}

}  // namespace mote::target
