/* The PerPI paper's polynomial (Table 1), shared by paper_horner.c,
 * paper_comphorner.c and paper_ddhorner.c: p(x) = (x - 1)^DEG in the
 * monomial basis, evaluated at x = 0.75, coefficients set before each call. */
#ifndef PERPI_BENCH_PAPER_H
#define PERPI_BENCH_PAPER_H
#define DEG 25
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
#endif
