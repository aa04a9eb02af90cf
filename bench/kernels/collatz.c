/* Collatz trajectory lengths of 64 starting values (data-dependent branches). */
#include "kernel.h"
#define N 64
const char kernel_name[] = "collatz";
static unsigned long start[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		start[i] = 1000 + kernel_random() % 100000;
}
KERNEL long kernel(void)
{
	long steps = 0;
	for (int i = 0; i < N; i++)
		for (unsigned long x = start[i]; x != 1; steps++)
			x = x & 1 ? 3 * x + 1 : x / 2;
	return steps;
}
