/* Copy of 2048 longs with a scale, element by element, 4 times. */
#include "kernel.h"
#define N 2048
#define REPS 4
const char kernel_name[] = "copy";
static long a[N], b[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		a[i] = (long)kernel_random();
}
KERNEL long kernel(void)
{
	for (long r = 0; r < REPS; r++)
		for (int i = 0; i < N; i++)
			b[i] = 3 * a[i] + r;
	return b[N - 1];
}
