/* Sum of the elements of 8192 random ints above a threshold (a branch
 * taken half the time at random, unless the compiler makes it a select). */
#include "kernel.h"
#define N 8192
const char kernel_name[] = "threshold";
static int a[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		a[i] = (int)(kernel_random() % 1000);
}
KERNEL long kernel(void)
{
	long s = 0;
	for (int i = 0; i < N; i++)
		if (a[i] > 500)
			s += a[i];
	return s;
}
