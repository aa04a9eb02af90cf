/* A three-point stencil over 2048 doubles, twice. */
#include "kernel.h"
#define N 2048
#define REPS 2
const char kernel_name[] = "stencil";
static double a[N], b[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		a[i] = (double)(kernel_random() % 1000);
}
KERNEL long kernel(void)
{
	for (int r = 0; r < REPS; r++)
		for (int i = 1; i < N - 1; i++)
			b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1] + r;
	return (long)b[N / 2];
}
