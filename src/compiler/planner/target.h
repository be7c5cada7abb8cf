#pragma once
// Which CPU extension a target name means. The plan of a program is valid only for kernels of
// the extension it was made for, since scratch sizes depend on it (FACTS.md section 1).

#include <optional>
#include <string_view>

#include "mote/kernels/scratch.h"

namespace mote::planner {

// "M55", "m55", "cortex-m55", "Cortex-M0+" or "m0plus" -> the extension (case-insensitive):
// M0, M0+, M3, M23 -> scalar; M4, M7, M33, M35P -> DSP; M55, M85 -> MVE. nullopt otherwise.
std::optional<kernels::Extension> extension_for_cpu(std::string_view cpu);

// "scalar", "dsp" or "mve" (here, so that the planner needs no kernel library to name one).
std::string_view extension_name(kernels::Extension extension);

}  // namespace mote::planner
