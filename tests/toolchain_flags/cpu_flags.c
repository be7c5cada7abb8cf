#include "cpu_flags.h"
int cpu_flags_c(void) { return 0; }
