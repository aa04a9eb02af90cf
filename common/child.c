#define _GNU_SOURCE 1
#include "common/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

double child_timeout(void)
{
	const char *env = getenv("PERPI_CHILD_TIMEOUT");
	char *end;
	double t = env ? strtod(env, &end) : 0;
	return env && end != env && !*end && t > 0 && t < 1e6 ? t : CHILD_TIMEOUT;
}

static void redirect(int to, const char *path)
{
	int fd = open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (fd >= 0 && fd != to) {
		dup2(fd, to);
		close(fd);
	}
}

static pid_t start(char *const argv[], const struct child_spec *spec)
{
	/* Truncate first, so that one file can take both streams. */
	const char *paths[] = {spec->stdout_path, spec->stderr_path};
	for (int i = 0; i < 2; i++)
		if (paths[i]) {
			int fd = open(paths[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd >= 0)
				close(fd);
		}
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	redirect(1, spec->stdout_path);
	redirect(2, spec->stderr_path);
	signal(SIGINT, SIG_DFL); /* perpi's handlers are not the helper's */
	signal(SIGTERM, SIG_DFL);
	execvp(argv[0], argv);
	fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Wait for pid until the deadline: 1 if it ended (*status), 0 if not yet,
 * -1 if it cannot be waited for (reaped elsewhere). */
static int wait_until(pid_t pid, int pidfd, double deadline, int *status)
{
	double pause = 0.0005;
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			return -1;
		double left = deadline - perpi_now();
		if (left <= 0)
			return 0;
		if (pidfd >= 0) { /* woken when it exits; EINTR: look again */
			struct pollfd p = {pidfd, POLLIN, 0};
			poll(&p, 1, (int)(left * 1000) + 1);
			continue;
		}
		pause = pause * 2 < 0.05 ? pause * 2 : 0.05;
		struct timespec ts = {0, (long)((pause < left ? pause : left) * 1e9)};
		nanosleep(&ts, NULL);
	}
}

int child_run(char *const argv[], const struct child_spec *spec)
{
	double limit = spec->timeout > 0 ? spec->timeout : child_timeout();
	double deadline = perpi_now() + limit;
	pid_t pid = start(argv, spec);
	if (pid < 0)
		return perpi_set_error("%s: cannot start: %s", argv[0], strerror(errno));
	int pidfd = -1;
#ifdef SYS_pidfd_open
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	int status = 0;
	int ended = wait_until(pid, pidfd, deadline, &status);
	int lost = ended < 0 ? errno : 0;
	if (!ended) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (pidfd >= 0)
		close(pidfd);
	if (lost)
		return perpi_set_error("%s: waiting for it: %s", argv[0], strerror(lost));
	if (!ended)
		return perpi_set_error("%s did not finish in %g s (killed)", argv[0], limit);
	if (WIFSIGNALED(status))
		return perpi_set_error("%s was killed by signal %d (%s)", argv[0], WTERMSIG(status),
				       strsignal(WTERMSIG(status)));
	return WEXITSTATUS(status);
}
