/* Bits set in 1024 words, clearing the lowest set bit in a loop (a loop
 * whose trip count follows the data). */
#include "kernel.h"
#define N 1024
const char kernel_name[] = "popcount";
static unsigned long w[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		w[i] = kernel_random() & kernel_random() & kernel_random();
}
KERNEL long kernel(void)
{
	long n = 0;
	for (int i = 0; i < N; i++)
		for (unsigned long x = w[i]; x; x &= x - 1)
			n++;
	return n;
}
