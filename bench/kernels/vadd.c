/* c = a + b over 2048 ints, 8 times (vectorised at -O3). */
#include "kernel.h"
#define N 2048
#define REPS 8
const char kernel_name[] = "vadd";
static int a[N], b[N], c[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++) {
		a[i] = (int)kernel_random();
		b[i] = (int)kernel_random();
	}
}
KERNEL long kernel(void)
{
	for (int r = 0; r < REPS; r++)
		for (int i = 0; i < N; i++)
			c[i] = a[i] + b[i] + r;
	return c[N / 2];
}
