/* Sum of 2048 doubles: one chain of dependent adds (latency bound). */
#include "kernel.h"
#define N 2048
const char kernel_name[] = "sum";
static double a[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		a[i] = (double)(kernel_random() % 1000) / 7;
}
KERNEL long kernel(void)
{
	double s = 0;
	for (int i = 0; i < N; i++)
		s += a[i];
	return (long)s;
}
