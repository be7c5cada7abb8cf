#pragma once
// How host-side compiler code reports bad input. Runtime code never throws; see mote/runtime.

#include <stdexcept>
#include <string>

namespace mote {

// The input (a model file, a problem file, an option) cannot be accepted. The message is one line
// that names the place (operator index and type, tensor index and name) and the reason; the
// command line prints "error: <file>: <message>" and exits with status 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace mote
