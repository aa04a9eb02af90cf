/* Occurrences of one byte value in 8192 bytes (vectorised at -O3). */
#include "kernel.h"
#define N 8192
const char kernel_name[] = "bytecount";
static unsigned char s[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		s[i] = (unsigned char)(kernel_random() % 16);
}
KERNEL long kernel(void)
{
	long n = 0;
	for (int i = 0; i < N; i++)
		n += s[i] == 7;
	return n;
}
