/* Horner of examples/horner.c (the PerPI paper's Table 1), degree 25 at
 * x = 0.75, one evaluation per call, with the examples' floating-point
 * rules (no contraction into FMA, no vectorisation). */
#pragma GCC optimize("fp-contract=off", "no-tree-vectorize")
#include "../../examples/eft.h"
#include "kernel.h"
#include "paper.h"
const char kernel_name[] = "paper_horner";
KERNEL long kernel(void)
{
	double s = a[DEG];
	for (int i = DEG - 1; i >= 0; i--)
		s = s * x + a[i];
	result = s;
	return 0;
}
