/* Error-free transformations (Knuth's TwoSum, Dekker's FastTwoSum, Veltkamp's
 * split and Dekker's TwoProduct): a + b = s + e and a * b = p + e exactly,
 * in binary64 with rounding to nearest and no contraction into FMA (the
 * examples are built with -ffp-contract=off). Inline on purpose: they are
 * the bodies of the algorithms, not calls. */
#ifndef PERPI_EXAMPLES_EFT_H
#define PERPI_EXAMPLES_EFT_H

/* Knuth: 6 flops, no branch, any |a|, |b|. */
static inline void two_sum(double a, double b, double *s, double *e)
{
	double x = a + b;
	double z = x - a;
	*e = (a - (x - z)) + (b - z);
	*s = x;
}

/* Dekker: 3 flops, needs |a| >= |b|. */
static inline void fast_two_sum(double a, double b, double *s, double *e)
{
	double x = a + b;
	*e = b - (x - a);
	*s = x;
}

/* Veltkamp: a = hi + lo, each half fitting in 26 bits. */
static inline void split(double a, double *hi, double *lo)
{
	double c = 134217729.0 * a; /* 2^27 + 1 */
	double h = c - (c - a);
	*hi = h;
	*lo = a - h;
}

/* Dekker: 17 flops, exact while no underflow or overflow occurs. */
static inline void two_prod(double a, double b, double *p, double *e)
{
	double ah, al, bh, bl;
	double x = a * b;
	split(a, &ah, &al);
	split(b, &bh, &bl);
	*e = al * bl - (((x - ah * bh) - al * bh) - ah * bl);
	*p = x;
}

#endif
