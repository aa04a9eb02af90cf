/* Histogram of 4096 bytes into 64 bins: increments through memory, some
 * of them of the bin the previous one incremented. */
#include "kernel.h"
#define N 4096
const char kernel_name[] = "histogram";
static unsigned char s[N];
static int bins[64];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		s[i] = (unsigned char)(kernel_random() % 64);
}
KERNEL long kernel(void)
{
	for (int i = 0; i < N; i++)
		bins[s[i] & 63]++;
	return bins[3];
}
