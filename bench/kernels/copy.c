/* Copy of 2048 longs with a scale, element by element. */
#include "kernel.h"
#define N 2048
const char kernel_name[] = "copy";
static long a[N], b[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		a[i] = (long)kernel_random();
}
KERNEL long kernel(void)
{
	for (int i = 0; i < N; i++)
		b[i] = 3 * a[i];
	return b[N - 1];
}
