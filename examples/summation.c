/* The summation algorithms of the PerPI paper: recursive summation (Sum),
 * cascaded compensated summation (Sum2, Ogita, Rump and Oishi, "Accurate
 * sum and dot product", SIAM J. Sci. Comput. 26(6), 2005, Algorithm 4.4)
 * and double-double summation in the style of XBLAS (DDSum).
 *
 *   usage: summation [N]      (N values, default 1000)
 *
 * The data are ill-conditioned with an exactly known sum: pairs v, -v of
 * large values (around 2^60, so each rounding error of Sum is about 2^7)
 * that cancel exactly, and small integers whose sum is exact. The program
 * checks what the algorithms promise: Sum2 and DDSum are as accurate as
 * summing in twice the working precision (relative error below 1e-12 here),
 * Sum is not. Only the three calls are traced (perpi.h markers). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <perpi.h>

#include "eft.h"

#define ALGO __attribute__((noinline, noipa))

ALGO double Sum(const double *x, long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += x[i];
	return s;
}

ALGO double Sum2(const double *x, long n)
{
	double p = x[0], sigma = 0, q;
	for (long i = 1; i < n; i++) {
		two_sum(p, x[i], &p, &q);
		sigma += q;
	}
	return p + sigma;
}

/* The running sum is a double-double (hi, lo); each step adds one double
 * exactly and renormalises (XBLAS's BLAS_dsum_x inner loop). */
ALGO double DDSum(const double *x, long n)
{
	double hi = 0, lo = 0, t, e;
	for (long i = 0; i < n; i++) {
		two_sum(hi, x[i], &t, &e);
		e += lo;
		fast_two_sum(t, e, &hi, &lo);
	}
	return hi + lo;
}

static unsigned long long rng = 88172645463325252ull;
static double next_unit(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0; /* [0, 1), 53 bits */
}

/* Fills x with n values whose exact sum is returned (an integer). */
static double make_data(double *x, long n)
{
	long long exact = 0;
	long i = 0;
	for (; i + 2 < n; i += 3) {
		double big = ldexp(1 + next_unit(), 59 + (int)(next_unit() * 4));
		long small = 1 + (long)(next_unit() * 9);
		x[i] = big, x[i + 1] = -big, x[i + 2] = (double)small;
		exact += small;
	}
	for (; i < n; i++)
		x[i] = 1, exact += 1;
	for (long k = n - 1; k > 0; k--) { /* shuffle: bigs meet each other */
		long j = (long)(next_unit() * (k + 1));
		double t = x[k];
		x[k] = x[j], x[j] = t;
	}
	return (double)exact;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	if (n < 3 || n > 100000000) {
		fprintf(stderr, "summation: N must be between 3 and 10^8\n");
		return 2;
	}
	double *x = malloc(n * sizeof(*x));
	if (!x)
		return 2;
	double exact = make_data(x, n);
	perpi_start();
	double s = Sum(x, n), s2 = Sum2(x, n), dd = DDSum(x, n);
	perpi_stop();
	double e = fabs(s - exact) / exact, e2 = fabs(s2 - exact) / exact,
	       edd = fabs(dd - exact) / exact;
	printf("n = %ld, exact sum = %.17g\n", n, exact);
	printf("Sum   = %-24.17g relative error %.2e\n", s, e);
	printf("Sum2  = %-24.17g relative error %.2e\n", s2, e2);
	printf("DDSum = %-24.17g relative error %.2e\n", dd, edd);
	free(x);
	int ok = e2 < 1e-12 && edd < 1e-12 && e2 <= e && edd <= e;
	if (!ok)
		fprintf(stderr, "summation: the compensated sums are not accurate enough\n");
	return ok ? 0 : 1;
}
