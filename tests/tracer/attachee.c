/* Runs for about SECONDS (argv[1], default 3) of wall time, then exits 0:
 * perpi -p attaches to it, traces, detaches, and it must run on. */
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 3);
	volatile unsigned long n = 0;
	while (now() < end)
		n++;
	return 0;
}
