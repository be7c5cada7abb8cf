#pragma once
// An operator selection as mote_program_ops writes it for a firmware image, here for
// conv_add_program() alone (op_selection_test.cc).
#define MOTE_SELECTED_OPS(X) X(Conv2D) X(Add) X(Reshape)
// The forms it runs, and one besides, as if another program of the image had int4 weights.
#define MOTE_SELECTED_FORMS(X) X(Conv2D, Plain, plain) X(Conv2D, Int4, int4) X(Add, Plain, plain)
