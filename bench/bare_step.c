/* The baseline of perpi's tracing rate: the least a ptrace single-stepper
 * can do per instruction (PTRACE_SINGLESTEP, waitpid, PTRACE_GETREGS),
 * from the program's first instruction to its exit, pinned to one CPU.
 * usage: bare_step CPU PROGRAM [ARGS...]; prints "steps N seconds S". */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bare_step CPU PROGRAM [ARGS...]\n");
		return 2;
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("bare_step: sched_setaffinity");
		return 2;
	}
	pid_t pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_EXITKILL);
	unsigned long steps = 0;
	struct user_regs_struct regs;
	double t0 = now();
	for (;;) {
		ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
		waitpid(pid, &status, 0);
		if (!WIFSTOPPED(status))
			break;
		ptrace(PTRACE_GETREGS, pid, 0, &regs);
		steps++;
	}
	double dt = now() - t0;
	printf("steps %lu seconds %.3f\n", steps, dt);
	return 0;
}
