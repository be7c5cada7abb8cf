#pragma once
// PAD folded into the window operator that is its only reader: a convolution, a depthwise
// convolution or a max pool reads the PAD's input with the padding as its own (ir::FoldedPad), and
// the padded copy never exists in the arena. Exact by construction, folded only where:
// - the PAD pads height and width only (a 4-D NHWC tensor), with its input's zero point (PAD's
//   value on int8), and its output is read by that one operator as its data input, and is no
//   graph output;
// - the consumer's window still starts and ends inside its reach (leading and trailing padding at
//   most the window's extent less one, what the runtime's load check accepts);
// - for a max pool, the padding can never win: the zero point is -128, or the values are never
//   below it (the input comes from a ReLU or ReLU6, fused or not), or the pool's own clamp lifts
//   every result to at least it.
// An average pool keeps its PAD: TFLite's counts only the input's pixels, a PAD's count too.

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"

namespace mote::passes {

struct FoldedPads {
  // The graph without the folded PADs; tensor indices unchanged (a folded PAD's output is left
  // unread and unwritten, which the memory problem and the program leave out).
  ir::Graph graph;
  // Per operator of `graph`: its index in the graph given.
  std::vector<int32_t> model_index;
  int32_t folded = 0;  // PADs removed
};

FoldedPads fold_pads(const ir::Graph& graph);

}  // namespace mote::passes
