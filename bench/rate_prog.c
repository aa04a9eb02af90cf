/* The program whose tracing rate is measured: a mix of loads, stores,
 * integer and floating-point work, calls and branches, about 4*10^5
 * instructions from exec to exit (the loader included). */
#include <stdio.h>

#define N 4096

static double a[N], b[N];

__attribute__((noinline)) static double dot(const double *x, const double *y, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += x[i] * y[i];
	return s;
}

__attribute__((noinline)) static unsigned hash(const double *x, int n)
{
	unsigned h = 2166136261u;
	for (int i = 0; i < n; i++)
		h = (h ^ (unsigned)x[i]) * 16777619u;
	return h;
}

int main(void)
{
	for (int i = 0; i < N; i++) {
		a[i] = i * 0.5;
		b[i] = N - i;
	}
	double s = 0;
	unsigned h = 0;
	for (int r = 0; r < 4; r++) {
		s += dot(a, b, N);
		h ^= hash(a, N);
	}
	printf("%g %u\n", s, h);
	return 0;
}
