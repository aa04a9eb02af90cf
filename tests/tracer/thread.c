/* A second thread runs untraced: it calls g 1000 times, each time through
 * perpi's breakpoint at g (stepped over, not traced). The main thread's one
 * call of g, made before the thread starts, is traced: with `--function g`,
 * 2 instructions (g.S).
 *
 * (While another thread is stepped over the breakpoint, the breakpoint is
 * out of memory for some microseconds; a call of g by the main thread in
 * that window would run untraced. The main thread calls g first so the
 * count is exact.) */
#include <pthread.h>

int g(int x);

static void *thread_main(void *arg)
{
	long sum = 0;
	for (int i = 0; i < 1000; i++)
		sum += g(i);
	return (void *)sum;
}

int main(void)
{
	pthread_t th;
	void *sum;
	int r = g(0);
	if (pthread_create(&th, NULL, thread_main, NULL))
		return 1;
	if (pthread_join(th, &sum))
		return 2;
	/* sum of 3i+1 for i < 1000 = 3 * 499500 + 1000 */
	return (long)sum == 1499500 && r == 1 ? 0 : 3;
}
