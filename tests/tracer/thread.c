/* A second thread runs untraced (it calls g too, through perpi's
 * breakpoint, 1000 times); the main thread's one call of g is traced:
 * with `--function g`, 2 instructions (g.S). */
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
	if (pthread_create(&th, NULL, thread_main, NULL))
		return 1;
	int r = g(0);
	if (pthread_join(th, &sum))
		return 2;
	/* sum of 3i+1 for i < 1000 = 3 * 499500 + 1000 */
	return (long)sum == 1499500 && r == 1 ? 0 : 3;
}
