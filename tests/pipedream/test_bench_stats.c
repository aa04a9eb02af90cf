/* The figure of a kernel's repetitions (palmed/bench_stats.h), on samples
 * whose answer is worked out by hand in each case's comment. */
#include <math.h>
#include <stdio.h>

#include "palmed/bench_stats.h"

static int failures;

static void expect(const char *what, const double *v, const unsigned char *clean, unsigned n,
		   double cycles, double spread, int bimodal, double other)
{
	struct bench_summary s;
	bench_summarise(v, clean, n, &s);
	int ok = fabs(s.cycles - cycles) < 1e-12 && fabs(s.spread - spread) < 1e-12 &&
		 s.bimodal == bimodal && (!bimodal || fabs(s.other_cycles - other) < 1e-12);
	printf("%s: %s: cycles %.4f spread %.4f bimodal %d other %.4f\n", ok ? "ok" : "FAIL", what,
	       s.cycles, s.spread, s.bimodal, s.other_cycles);
	failures += !ok;
}

int main(void)
{
	static const unsigned char all[64] = {
	    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	/* sorted 0.99 1.00 1.00 1.01 1.02: median (index 2) 1.00; q25 (index 1)
	 * 1.00, q75 (index 3) 1.01: spread 0.01 */
	double one[] = {1.00, 1.01, 0.99, 1.02, 1.00};
	expect("one mode", one, all, 5, 1.00, 0.01, 0, 0);

	/* 10 samples at 0.25 and 20 from 0.400 to 0.438 by 0.002: the gap
	 * 0.25 -> 0.40 is 60%, 10 of 30 below it: the faster mode, median 0.25,
	 * spread 0; the slower one's median is its index 9: 0.418 */
	double two[30];
	for (int i = 0; i < 10; i++)
		two[i] = 0.25;
	for (int i = 0; i < 20; i++)
		two[10 + i] = 0.400 + 0.002 * i;
	expect("two modes", two, all, 30, 0.25, 0, 1, 0.418);

	/* one slow repetition is no mode: 15 at 1.0 and one at 3.0, median of
	 * the 16 (index 7) 1.0, q25 and q75 1.0 */
	double slow[16];
	for (int i = 0; i < 15; i++)
		slow[i] = 1.0;
	slow[15] = 3.0;
	expect("one slow repetition", slow, all, 16, 1.0, 0, 0, 0);

	/* two fast ones neither: 2 at 0.5, 20 at 1.0: median index 10: 1.0 */
	double fast[22];
	for (int i = 0; i < 22; i++)
		fast[i] = i < 2 ? 0.5 : 1.0;
	expect("two fast repetitions", fast, all, 22, 1.0, 0, 0, 0);

	/* disturbed repetitions do not count: clean 2.0 2.0 2.2, disturbed 9.0
	 * 9.0 9.0: median 2.0, q25 2.0, q75 (index 2) 2.2: spread 0.1 */
	double mixed[] = {2.0, 9.0, 2.2, 9.0, 2.0, 9.0};
	unsigned char clean[] = {1, 0, 1, 0, 1, 0};
	expect("disturbed left out", mixed, clean, 6, 2.0, 0.1, 0, 0);

	/* no clean repetition: all of them, sorted 1 2 3: median (index 1) 2,
	 * q25 index 2/4 = 0 -> 1, q75 index (3*2+2)/4 = 2 -> 3: spread (3 - 1)/2 */
	double none[] = {3.0, 1.0, 2.0};
	unsigned char dirty[] = {0, 0, 0};
	expect("none clean", none, dirty, 3, 2.0, 1.0, 0, 0);
	return failures ? 1 : 0;
}
