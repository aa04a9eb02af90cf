/* The polynomial-evaluation algorithms of the PerPI paper: Horner's scheme,
 * compensated Horner (CompHorner, Langlois and Louvet, "How to ensure a
 * faithful polynomial evaluation with the compensated Horner algorithm",
 * ARITH 18, 2007) and Horner in double-double arithmetic (DDHorner).
 *
 *   usage: horner [DEGREE]    (default 25, at most 50)
 *
 * p(x) = (x - 1)^n in its expanded form (binomial coefficients, exact in
 * binary64 up to n = 50), evaluated at x = 0.75: p(x) = (-1/4)^n exactly,
 * with condition number ((1 + x) / (1 - x))^n = 7^n (about 1.3e21 for
 * n = 25). Horner's relative error is up to cond * n * 2^-53, so its result
 * is meaningless; CompHorner's and DDHorner's are up to cond * (n 2^-53)^2,
 * as if computed in twice the precision. The program checks both. Only the
 * three calls are traced (perpi.h markers). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <perpi.h>

#include "eft.h"

#define ALGO __attribute__((noinline, noipa))
#define MAX_DEGREE 50

/* a[0..n], p(x) = sum a[i] x^i */
ALGO double Horner(const double *a, int n, double x)
{
	double s = a[n];
	for (int i = n - 1; i >= 0; i--)
		s = s * x + a[i];
	return s;
}

ALGO double CompHorner(const double *a, int n, double x)
{
	double s = a[n], c = 0, p, pi, sigma;
	for (int i = n - 1; i >= 0; i--) {
		two_prod(s, x, &p, &pi);
		two_sum(p, a[i], &s, &sigma);
		c = c * x + (pi + sigma);
	}
	return s + c;
}

/* (hi, lo) = (hi, lo) * x + a[i] in double-double arithmetic. */
ALGO double DDHorner(const double *a, int n, double x)
{
	double hi = a[n], lo = 0, p, pe, t, te;
	for (int i = n - 1; i >= 0; i--) {
		two_prod(hi, x, &p, &pe);
		pe += lo * x;
		two_sum(p, a[i], &t, &te);
		te += pe;
		fast_two_sum(t, te, &hi, &lo);
	}
	return hi + lo;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 25;
	if (n < 1 || n > MAX_DEGREE) {
		fprintf(stderr, "horner: DEGREE must be between 1 and %d\n", MAX_DEGREE);
		return 2;
	}
	double a[MAX_DEGREE + 1], binom = 1;
	for (int i = 0; i <= n; i++) { /* a[i] = C(n, i) (-1)^(n-i) */
		a[i] = (n - i) % 2 ? -binom : binom;
		binom = binom * (n - i) / (i + 1);
	}
	const double x = 0.75, exact = ldexp((n % 2 ? -1 : 1), -2 * n);
	perpi_start();
	double h = Horner(a, n, x), c = CompHorner(a, n, x), d = DDHorner(a, n, x);
	perpi_stop();
	double eh = fabs((h - exact) / exact), ec = fabs((c - exact) / exact),
	       ed = fabs((d - exact) / exact);
	printf("p(x) = (x-1)^%d at x = %g, exact %.17g, condition number %.2e\n", n, x, exact,
	       pow(7, n));
	printf("Horner     = %-24.17g relative error %.2e\n", h, eh);
	printf("CompHorner = %-24.17g relative error %.2e\n", c, ec);
	printf("DDHorner   = %-24.17g relative error %.2e\n", d, ed);
	/* Bound for the compensated ones: cond * (2 n u)^2 with u = 2^-53, plus u. */
	double u = ldexp(1, -53), bound = u + pow(7, n) * (2 * n * u) * (2 * n * u);
	int ok = ec <= bound && ed <= bound && ec <= eh && ed <= eh;
	if (!ok)
		fprintf(stderr, "horner: the compensated results exceed their error bound %.2e\n",
			bound);
	return ok ? 0 : 1;
}
