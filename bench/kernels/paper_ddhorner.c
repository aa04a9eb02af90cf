/* DDHorner of examples/horner.c (the PerPI paper's Table 1), degree 25 at
 * x = 0.75, one evaluation per call, with the examples' floating-point
 * rules (no contraction into FMA, no vectorisation). */
#pragma GCC optimize("fp-contract=off", "no-tree-vectorize")
#include "../../examples/eft.h"
#include "kernel.h"
#include "paper.h"
const char kernel_name[] = "paper_ddhorner";
KERNEL long kernel(void)
{
	double hi = a[DEG], lo = 0, p, pe, t, te;
	for (int i = DEG - 1; i >= 0; i--) {
		two_prod(hi, x, &p, &pe);
		pe += lo * x;
		two_sum(p, a[i], &t, &te);
		te += pe;
		fast_two_sum(t, te, &hi, &lo);
	}
	result = hi + lo;
	return 0;
}
