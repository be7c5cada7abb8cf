/* The generated pair compiles into a user's library; nothing else is needed here. */
#include "kws_program.h"

unsigned long kws_arena_bytes(void) { return KWS_PROGRAM_ARENA_BYTES; }
