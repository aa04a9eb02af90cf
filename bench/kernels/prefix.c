/* In-place prefix sum of 2048 longs: each load reads the store before it
 * (store-to-load forwarding on the critical path). */
#include "kernel.h"
#define N 2048
const char kernel_name[] = "prefix";
static long a[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		a[i] = (long)(kernel_random() % 100);
}
KERNEL long kernel(void)
{
	for (int i = 1; i < N; i++)
		a[i] = a[i] + a[i - 1] - (long)i;
	return a[N - 1];
}
