/* What each kernel of bench/kernels/ defines for driver.c: its name, a
 * set-up of its data (before every call: not timed, not traced; it draws
 * new data each time), and the kernel itself, a
 * call of a few thousand to a few tens of thousands of instructions over
 * data that fits in L1. The result keeps the compiler from dropping it. */
#ifndef PERPI_BENCH_KERNEL_H
#define PERPI_BENCH_KERNEL_H

#define KERNEL __attribute__((noinline, noipa))

extern const char kernel_name[];
void kernel_setup(void);
long kernel(void);

/* A small deterministic generator for the data (xorshift64). */
static inline unsigned long kernel_random(void)
{
	static unsigned long x = 88172645463325252ul;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

#endif
