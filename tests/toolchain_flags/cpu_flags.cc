#include "cpu_flags.h"
int cpu_flags_cc() { return 0; }
