/* Compensated summation (Sum2 of Ogita, Rump and Oishi) of 1024 doubles. */
#include "kernel.h"
#define N 1024
const char kernel_name[] = "twosum";
static double a[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		a[i] = (double)(kernel_random() % 1000) / 3;
}
KERNEL long kernel(void)
{
	volatile double guard = 0; /* keeps the compiler from reassociating nothing */
	double s = 0, c = 0;
	for (int i = 0; i < N; i++) {
		double t = s + a[i], z = t - s;
		c += (s - (t - z)) + (a[i] - z);
		s = t;
	}
	guard = s + c;
	return (long)guard;
}
