/* Starting the program under valgrind with perpi's tool: where the tool
 * is (the build tree, then the installed pkglibexecdir), the three pipes
 * of tracer/valgrind/protocol.h, and valgrind's options. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "common/util.h"
#include "tracer/trace_internal.h"
#include "tracer/valgrind_trace.h"

#define TOOL_FILE "perpi-amd64-linux"
#define PRELOAD_FILE "vgpreload_core-amd64-linux.so"
#define EVENTS_PIPE_SIZE (1 << 20)

static int tool_in(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, TOOL_FILE);
	if (stat(path, &st) < 0 || !(st.st_mode & S_IXUSR))
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, PRELOAD_FILE);
	return stat(path, &st) == 0;
}

/* $PERPI_VALGRIND_LIB, the build tree next to the running perpi, or the
 * installed directory: the one that holds the tool and valgrind's preload. */
static char *tool_dir(void)
{
	const char *env = getenv("PERPI_VALGRIND_LIB");
	if (env && *env) {
		if (tool_in(env))
			return xstrdup(env);
		perpi_set_error("PERPI_VALGRIND_LIB=%s: no %s and %s there", env, TOOL_FILE,
				PRELOAD_FILE);
		return NULL;
	}
	char self[PATH_MAX], dir[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		snprintf(dir, sizeof(dir), "%s/tracer/valgrind", dirname(self));
		if (tool_in(dir))
			return xstrdup(dir);
	}
#ifdef HAVE_VALGRIND
	if (tool_in(PERPI_PKGLIBEXECDIR))
		return xstrdup(PERPI_PKGLIBEXECDIR);
	perpi_set_error("--backend=valgrind: perpi's Valgrind tool is not in %s (was perpi "
			"installed?); use the ptrace backend",
			PERPI_PKGLIBEXECDIR);
#else
	perpi_set_error("--backend=valgrind: this perpi was built without Valgrind's tool files "
			"(install valgrind, then configure --with-valgrind); use the ptrace "
			"backend");
#endif
	return NULL;
}

static const char *valgrind_program(void)
{
#ifdef VALGRIND_PATH
	if (access(VALGRIND_PATH, X_OK) == 0)
		return VALGRIND_PATH;
#endif
	return "valgrind";
}

/* valgrind's options: quiet; no freeres at exit (native programs do not
 * run it); no messages of its own for an instruction it cannot run (perpi
 * names it); no superblocks across branches: VEX would merge two
 * conditional branches to one target and run the second speculatively,
 * recording instructions that did not run. */
static const char *const valgrind_options[] = {"--tool=perpi",
					       "-q",
					       "--run-libc-freeres=no",
					       "--run-cxx-freeres=no",
					       "--sigill-diagnostics=no",
					       "--vex-guest-chase=no"};
#define N_OPTIONS (sizeof(valgrind_options) / sizeof(valgrind_options[0]))

/* The child: valgrind --tool=perpi ... PROGRAM ARGS; never returns. */
static void run_child(const char *dir, int cpu, const int fds[3], char *const argv[], int err)
{
	char fd_options[3][32];
	const char *names[3] = {"out", "requests", "replies"};
	size_t n = 0, k = 0;
	while (argv[n])
		n++;
	const char **args = xcalloc(1 + N_OPTIONS + 3 + n + 1, sizeof(*args));
	args[k++] = valgrind_program();
	for (size_t i = 0; i < N_OPTIONS; i++)
		args[k++] = valgrind_options[i];
	for (int i = 0; i < 3; i++) {
		snprintf(fd_options[i], sizeof(fd_options[i]), "--perpi-%s=%d", names[i], fds[i]);
		args[k++] = fd_options[i];
	}
	memcpy(args + k, argv, n * sizeof(*argv));
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* it dies with perpi, as a ptrace tracee does */
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	setenv("VALGRIND_LIB", dir, 1);
	execvp(args[0], (char *const *)args);
	int e = errno;
	(void)!write(err, &e, sizeof(e));
	_exit(127);
}

/* Pipes: events and requests from the child, replies to it. The child's
 * ends survive exec (the tool moves them out of the program's sight). */
static int make_pipes(int parent[3], int child[3])
{
	int p[3][2];
	for (int i = 0; i < 3; i++)
		if (pipe2(p[i], O_CLOEXEC) < 0)
			return perpi_set_error("pipe: %s", strerror(errno));
	parent[0] = p[0][0], child[0] = p[0][1];
	parent[1] = p[1][0], child[1] = p[1][1];
	parent[2] = p[2][1], child[2] = p[2][0];
	for (int i = 0; i < 3; i++)
		fcntl(child[i], F_SETFD, 0);
	fcntl(parent[0], F_SETPIPE_SZ, EVENTS_PIPE_SIZE);
	return 0;
}

int valgrind_spawn(struct tracer *t, struct valgrind_run *r, char *const argv[])
{
	char *dir = tool_dir();
	int parent[3] = {-1, -1, -1}, child[3] = {-1, -1, -1}, errpipe[2];
	if (!dir)
		return -1;
	if (make_pipes(parent, child) < 0 || pipe2(errpipe, O_CLOEXEC) < 0) {
		free(dir);
		return perpi_set_error("pipe: %s", strerror(errno));
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		run_child(dir, t->opt.cpu, child, argv, errpipe[1]);
	free(dir);
	close(errpipe[1]);
	for (int i = 0; i < 3; i++)
		close(child[i]);
	r->events_fd = parent[0], r->requests_fd = parent[1], r->replies_fd = parent[2];
	if (pid < 0)
		return perpi_set_error("fork: %s", strerror(errno));
	int e = 0;
	ssize_t n = read(errpipe[0], &e, sizeof(e));
	close(errpipe[0]);
	if (n == sizeof(e)) {
		waitpid(pid, NULL, 0);
		return perpi_set_error("--backend=valgrind: cannot run %s: %s (install valgrind, "
				       "or use the ptrace backend)",
				       valgrind_program(), strerror(e));
	}
	r->pid = pid;
	return 0;
}
