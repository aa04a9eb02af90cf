/* Maximum of 8192 ints (a reduction the compiler vectorises at -O3). */
#include "kernel.h"
#define N 8192
const char kernel_name[] = "vmax";
static int a[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		a[i] = (int)(kernel_random() % 1000000);
}
KERNEL long kernel(void)
{
	int m = a[0];
	for (int i = 1; i < N; i++)
		m = a[i] > m ? a[i] : m;
	return m;
}
