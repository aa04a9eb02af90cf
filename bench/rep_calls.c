/* memset and memcpy of N bytes (default 64 KiB), three calls each, in
 * functions of their own for `perpi record --function` and `perpi measure
 * --function`: glibc takes its `rep stosb` and `rep movsb` paths from
 * 2 KiB. docs/BENCHMARKS.md, "REP iterations past L1". */
#include <stdlib.h>
#include <string.h>

#define MAX (1 << 16)
static char buf[2 * MAX];

__attribute__((noinline)) void fill(size_t n, int v)
{
	memset(buf, v, n);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void copy(size_t n)
{
	memcpy(buf + MAX, buf, n);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : MAX;
	if (n > MAX)
		n = MAX;
	for (int i = 0; i < 3; i++) {
		fill(n, i);
		copy(n);
	}
	return buf[5] == 99;
}
