#pragma once
// An operator selection as mote_program_ops writes it for a firmware image, here for
// conv_add_program() alone (op_selection_test.cc).
#define MOTE_SELECTED_OPS(X) X(Conv2D) X(Add) X(Reshape)
