/* Distances of 512 points from the origin (square roots, independent). */
#include <math.h>
#include "kernel.h"
#define N 512
const char kernel_name[] = "distance";
static double x[N], y[N], d[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++) {
		x[i] = (double)(kernel_random() % 1000);
		y[i] = (double)(kernel_random() % 1000);
	}
}
KERNEL long kernel(void)
{
	for (int i = 0; i < N; i++)
		d[i] = sqrt(x[i] * x[i] + y[i] * y[i]);
	return (long)d[N / 3];
}
