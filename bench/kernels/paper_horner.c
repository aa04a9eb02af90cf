/* Horner of examples/horner.c (the PerPI paper's Table 1), degree 25 at
 * x = 0.75, one evaluation per call, with the examples' floating-point
 * rules (no contraction into FMA, no vectorisation). */
#pragma GCC optimize("fp-contract=off", "no-tree-vectorize")
#include "../../examples/eft.h"
#include "kernel.h"
#define DEG 25
const char kernel_name[] = "paper_horner";
static double a[DEG + 1], x = 0.75;
double result; /* not static: the compiler keeps the computation */
void kernel_setup(void)
{
	double binom = 1;
	for (int i = 0; i <= DEG; i++) { /* a[i] = C(n, i) (-1)^(n-i) */
		a[i] = (DEG - i) % 2 ? -binom : binom;
		binom = binom * (DEG - i) / (i + 1);
	}
}
KERNEL long kernel(void)
{
	double s = a[DEG];
	for (int i = DEG - 1; i >= 0; i--)
		s = s * x + a[i];
	result = s;
	return 0;
}
