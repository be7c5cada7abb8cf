// The overlap rules on the dsp kernels (emulated instructions): the same test as the portable
// kernels', against the rules of the variants this library runs.
#include "kernels/portable/overlap_test.cc"
