/* y = a x + y over 4096 floats, twice (independent iterations: throughput
 * bound). */
#include "kernel.h"
#define N 4096
#define REPS 2
const char kernel_name[] = "saxpy";
static float x[N], y[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++) {
		x[i] = (float)(kernel_random() % 100);
		y[i] = (float)(kernel_random() % 100);
	}
}
KERNEL long kernel(void)
{
	const float a = 1.0001f;
	for (int r = 0; r < REPS; r++)
		for (int i = 0; i < N; i++)
			y[i] = a * x[i] + y[i];
	return (long)y[N / 2];
}
