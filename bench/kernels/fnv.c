/* FNV-1a hash of 2048 bytes: a chain of xor and multiply. */
#include "kernel.h"
#define N 2048
const char kernel_name[] = "fnv";
static unsigned char s[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		s[i] = (unsigned char)kernel_random();
}
KERNEL long kernel(void)
{
	unsigned long h = 14695981039346656037ul;
	for (int i = 0; i < N; i++)
		h = (h ^ s[i]) * 1099511628211ul;
	return (long)h;
}
