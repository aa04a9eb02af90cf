/* The kernel of tests/cycles/eval.sh, built with bench/kernels/driver.c: a
 * chain of 100 dependent imul (latency 3 in test_cycles.c's core file). */
#include "kernel.h"
const char kernel_name[] = "evalk";
void kernel_setup(void)
{
}
KERNEL long kernel(void)
{
	long x = 3;
	for (int i = 0; i < 100; i++)
		__asm__ volatile("imul %0, %0" : "+r"(x));
	return x;
}
