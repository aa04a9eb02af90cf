/* Dot product of two 1024-double vectors (a multiply-add chain). */
#include "kernel.h"
#define N 1024
const char kernel_name[] = "dot";
static double a[N], b[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++) {
		a[i] = (double)(kernel_random() % 1000) / 7;
		b[i] = (double)(kernel_random() % 1000) / 9;
	}
}
KERNEL long kernel(void)
{
	double s = 0;
	for (int i = 0; i < N; i++)
		s += a[i] * b[i];
	return (long)s;
}
