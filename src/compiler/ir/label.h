#pragma once
// How messages name the parts of a model.

#include <cstddef>
#include <string>
#include <string_view>

namespace mote::ir {

// "tensor 52 (conv1/weights)", or "tensor 52" when the tensor has no name (models and programs
// often strip them).
std::string tensor_label(size_t index, std::string_view name);

}  // namespace mote::ir
