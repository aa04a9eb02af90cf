/* A cubic polynomial at 2048 points, twice (independent multiply-adds:
 * throughput). */
#include "kernel.h"
#define N 2048
#define REPS 2
const char kernel_name[] = "poly3";
static double x[N], y[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		x[i] = (double)(kernel_random() % 1000) / 1000;
}
KERNEL long kernel(void)
{
	for (int r = 0; r < REPS; r++)
		for (int i = 0; i < N; i++)
			y[i] = ((0.5 * x[i] + 0.25) * x[i] + 0.125) * x[i] + r;
	return (long)(y[3] * 1000);
}
