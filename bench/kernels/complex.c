/* Element-wise product of two arrays of 512 complex doubles, 4 times. */
#include "kernel.h"
#define N 512
#define REPS 4
const char kernel_name[] = "complex";
static double ar[N], ai[N], br[N], bi[N], cr[N], ci[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++) {
		ar[i] = (double)(kernel_random() % 100);
		ai[i] = (double)(kernel_random() % 100);
		br[i] = (double)(kernel_random() % 100);
		bi[i] = (double)(kernel_random() % 100);
	}
}
KERNEL long kernel(void)
{
	for (int r = 0; r < REPS; r++)
		for (int i = 0; i < N; i++) {
			cr[i] = ar[i] * br[i] - ai[i] * bi[i] + r;
			ci[i] = ar[i] * bi[i] + ai[i] * br[i] + r;
		}
	return (long)(cr[7] + ci[9]);
}
