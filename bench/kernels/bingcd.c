/* Binary GCD of 200 pairs (shifts, subtractions, data-dependent branches). */
#include "kernel.h"
#define N 200
const char kernel_name[] = "bingcd";
static unsigned long a[N], b[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++) {
		a[i] = (kernel_random() % 100000) + 1;
		b[i] = (kernel_random() % 100000) + 1;
	}
}
static unsigned long gcd(unsigned long u, unsigned long v)
{
	int shift = __builtin_ctzl(u | v);
	u >>= __builtin_ctzl(u);
	do {
		v >>= __builtin_ctzl(v);
		if (u > v) {
			unsigned long t = v;
			v = u;
			u = t;
		}
		v -= u;
	} while (v);
	return u << shift;
}
KERNEL long kernel(void)
{
	unsigned long s = 0;
	for (int i = 0; i < N; i++)
		s += gcd(a[i], b[i]);
	return (long)s;
}
