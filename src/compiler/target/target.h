#pragma once
// What a target CPU name means: its canonical name and the kernel extension it runs. The plan of
// a program is valid only for kernels of the extension it was made for, since scratch sizes
// depend on it (FACTS.md section 1). The planner never sees a CPU name, only buffer sizes.

#include <optional>
#include <string>
#include <string_view>

#include "mote/kernels/scratch.h"

namespace mote::target {

// "M55", "m55", "cortex-m55", "Cortex-M0+" or "m0plus" -> the extension (case-insensitive):
// M0, M0+, M3, M23 -> scalar; M4, M7, M33, M35P -> DSP; M55, M85 -> MVE. nullopt otherwise.
std::optional<kernels::Extension> extension_for_cpu(std::string_view cpu);

// "scalar", "dsp" or "mve".
std::string_view extension_name(kernels::Extension extension);

// A Cortex-M CPU name and the extension its kernels use.
struct Cpu {
  std::string name;  // canonical: "cortex-m55", "cortex-m0plus"
  kernels::Extension extension;
};
// The CPUs `--target` accepts (extension_for_cpu), under their canonical names.
std::optional<Cpu> find_cpu(std::string_view name);
// The accepted names with their extensions, for messages and --help.
std::string cpu_names();

}  // namespace mote::target
