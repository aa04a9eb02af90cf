/* The programs perpi measure's tests time (tests/measure/*.sh): each mode
 * calls known functions a known number of times, so that the calls
 * perpi counts are derived here by hand; chains.S holds the functions
 * whose cycles are known by hand.
 *
 *   cases chains N     add_chain, imul_chain and sum_array N times each,
 *                      every call timed by an in-process rdtsc harness,
 *                      which prints "add_chain TICKS", "imul_chain TICKS"
 *                      and "sum_array TICKS": the smallest ticks of a call
 *                      over the N, its own timing overhead subtracted
 *                      (sum_array: 1000 doubles summed in order, 8 KiB that
 *                      stay in the L1 cache between calls); and
 *                      "ticks_per_cycle R": the fastest of 64 timings of
 *                      16384 dependent adds (16384 cycles), taken between
 *                      the calls, so that its figures convert to cycles at
 *                      the clock rate of the moment
 *   cases region K     add_chain once (its code and data paged in and
 *                      cached), then twice a region: between perpi_start()
 *                      and perpi_stop(), K calls of add_chain (2000 cycles
 *                      each, chains.S); the second region runs warm
 *   cases small N      rip_first, tiny, short_one, short_two N times each;
 *                      exits 1 if one returns a wrong value
 *   cases recurse N    fib(N) by the naive recursion (chains.S): 2 fib(N+1) - 1
 *                      calls of fib; exits 1 if the result is wrong
 *   cases jump N       jumper(i) for i < N: it longjmps out when i is odd,
 *                      so N/2 calls (rounded up) return
 *   cases threads N    a second thread calls work 2N times while main
 *                      calls it N times
 *   cases fork N       work N times, fork: the child calls work 3N times
 *                      and exits; then the parent calls work N times
 *                      (2N in the parent); exits 1 if the child failed
 *   cases crash N      work N times, then a write through NULL (SIGSEGV)
 *   cases killed N     work N times, then SIGKILL to itself
 *   cases spin         work forever
 *   cases noend        perpi_start(), work once, exit without perpi_stop()
 *   cases exit N       work N times, then exit(0) from main
 *   cases OTHER N      work N times, then exit status 2 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NO_MARKERS /* cases_nomarkers: main is the region */
#include <perpi.h>
#else
static void perpi_start(void)
{
}
static void perpi_stop(void)
{
}
#endif

#define NOINLINE __attribute__((noinline, noipa))

long add_chain(long x);
long imul_chain(long x);
long rip_first(void);
void tiny(void);
long short_one(void);
long short_two(void);
long fib(long n);

volatile long sink;

NOINLINE long work(long x)
{
	for (int i = 0; i < 100; i++)
		x = x * 3 + i;
	return x;
}

static long fib_plain(long n)
{
	long a = 0, b = 1;
	while (n-- > 0) {
		long t = a + b;
		a = b, b = t;
	}
	return a;
}

static double data[1000];

NOINLINE long sum_array(long n)
{
	double s = 0;
	for (long i = 0; i < 1000; i++)
		s += data[i];
	return (long)s + n;
}

static jmp_buf env;

NOINLINE void jumper(long i)
{
	sink = work(i);
	if (i & 1)
		longjmp(env, 1);
}

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/* The in-process harness: the smallest ticks of one call over n. */
static uint64_t harness(long (*fn)(long), long n, uint64_t overhead)
{
	uint64_t best = UINT64_MAX;
	for (long i = 0; i < n; i++) {
		uint64_t t0 = tsc();
		sink = fn(1);
		uint64_t t1 = tsc();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best > overhead ? best - overhead : 0;
}

/* TSC ticks per cycle: 256 turns of 64 dependent adds (the loop's own
 * dec/jnz runs beside the chain), the fastest of 64 timings. */
static double ticks_per_cycle(uint64_t overhead)
{
	uint64_t best = UINT64_MAX;
	for (int k = 0; k < 64; k++) {
		uint64_t turns = 256, x = 0, t0 = tsc();
		__asm__ volatile("1:\n\t.rept 64\n\tadd %[one], %[x]\n\t.endr\n\tdec %[n]\n\tjnz 1b"
				 : [n] "+r"(turns), [x] "+r"(x)
				 : [one] "r"(1ull)
				 : "cc");
		uint64_t t = tsc() - t0;
		best = t < best ? t : best;
	}
	return (double)(best - overhead) / 16384;
}

static int chains(long n)
{
	uint64_t overhead = UINT64_MAX;
	for (int i = 0; i < 1000; i++) {
		uint64_t t0 = tsc(), t1 = tsc();
		overhead = t1 - t0 < overhead ? t1 - t0 : overhead;
	}
	for (int i = 0; i < 1000; i++)
		data[i] = i * 0.5;
	uint64_t a = harness(add_chain, n, overhead), m = harness(imul_chain, n, overhead);
	double r = ticks_per_cycle(overhead);
	uint64_t s = harness(sum_array, n, overhead);
	r = fmin(r, ticks_per_cycle(overhead));
	printf("add_chain %llu\nimul_chain %llu\nsum_array %llu\nticks_per_cycle %.6f\n",
	       (unsigned long long)a, (unsigned long long)m, (unsigned long long)s, r);
	return 0;
}

static int small(long n)
{
	int bad = 0;
	for (long i = 0; i < n; i++) {
		bad |= rip_first() != 42;
		tiny();
		bad |= short_one() != 0;
		bad |= short_two() != 2;
	}
	return bad;
}

static void *thread_main(void *arg)
{
	long n = (long)arg;
	for (long i = 0; i < 2 * n; i++)
		sink = work(i);
	return NULL;
}

static int threads(long n)
{
	pthread_t t;
	if (pthread_create(&t, NULL, thread_main, (void *)n))
		return 2;
	for (long i = 0; i < n; i++)
		sink = work(i);
	pthread_join(t, NULL);
	return 0;
}

static int forked(long n)
{
	for (long i = 0; i < n; i++)
		sink = work(i);
	pid_t c = fork();
	if (c == 0) {
		for (long i = 0; i < 3 * n; i++)
			sink = work(i);
		_exit(0);
	}
	int status = 1;
	waitpid(c, &status, 0);
	for (long i = 0; i < n; i++)
		sink = work(i);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static int jumps(long n)
{
	for (volatile long i = 0; i < n; i++)
		if (!setjmp(env))
			jumper(i);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 10;
	if (!strcmp(mode, "chains"))
		return chains(n);
	if (!strcmp(mode, "region")) {
		sink = add_chain(1);
		for (int r = 0; r < 2; r++) {
			perpi_start();
			for (long i = 0; i < n; i++)
				sink = add_chain(1);
			perpi_stop();
		}
		return 0;
	}
	if (!strcmp(mode, "small"))
		return small(n);
	if (!strcmp(mode, "recurse"))
		return fib(n) == fib_plain(n) ? 0 : 1;
	if (!strcmp(mode, "jump"))
		return jumps(n);
	if (!strcmp(mode, "threads"))
		return threads(n);
	if (!strcmp(mode, "fork"))
		return forked(n);
	if (!strcmp(mode, "noend")) {
		perpi_start();
		sink = work(1);
		return 0;
	}
	for (long i = 0; strcmp(mode, "spin") ? i < n : 1; i++)
		sink = work(i);
	if (!strcmp(mode, "crash"))
		*(volatile int *)(uintptr_t)sink = 0; /* sink is small: unmapped */
	if (!strcmp(mode, "killed"))
		raise(SIGKILL);
	if (!strcmp(mode, "exit"))
		exit(0);
	return 2;
}
