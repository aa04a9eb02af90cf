/* c = a + b over 4096 ints (vectorised at -O3). */
#include "kernel.h"
#define N 4096
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
	for (int i = 0; i < N; i++)
		c[i] = a[i] + b[i];
	return c[N / 2];
}
