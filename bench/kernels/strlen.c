/* Lengths of 64 strings of 8 to 71 bytes, a byte at a time. */
#include "kernel.h"
#define N 64
const char kernel_name[] = "strlen";
static char text[N][80];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++) {
		int len = 8 + (int)(kernel_random() % 64);
		for (int k = 0; k < len; k++)
			text[i][k] = (char)('a' + kernel_random() % 26);
		text[i][len] = 0;
	}
}
static KERNEL long length(const char *s)
{
	const char *p = s;
	while (*p)
		p++;
	return p - s;
}
KERNEL long kernel(void)
{
	long n = 0;
	for (int i = 0; i < N; i++)
		n += length(text[i]);
	return n;
}
