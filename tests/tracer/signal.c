/* A signal handler's instructions are traced (see signal_work.S). */
#include <signal.h>
#include <string.h>
#include <unistd.h>

void work(int pid);
void handler(int sig);
extern int hits;

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	work(getpid());
	return hits == 1 ? 0 : 1;
}
