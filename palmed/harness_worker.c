/* The worker: a child process pinned to one CPU that loads the kernels'
 * shared object and times them, sending one record per kernel up a pipe. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <xmmintrin.h>

#include "common/util.h"
#include "palmed/gen.h"
#include "palmed/harness.h"
#include "palmed/harness_measure.h"
#include "palmed/timing.h"

struct record {
	uint32_t index;
	int32_t status; /* 0 ok, -1 this job failed, -2 every job will fail */
	uint32_t n;
	int32_t papi;
	double ticks_per_cycle;
	double best[PROBE_COUNT]; /* the worker's best throughput probes, cycles per insn */
	uint32_t replaced;	  /* harness_session_replaced */
	uint32_t taken;		  /* repetitions timed (n of them sent) */
	char error[128];
};

#define KERNEL_TIMEOUT 30 /* seconds for one kernel, all attempts, by default */

struct worker {
	const struct harness_config *cfg;
	void *read, *write;
	struct harness_session *session;
	int cpu;	   /* where it runs */
	int can_move;	   /* no --cpu, the real clock: it may move to a calmer CPU */
	cpu_set_t allowed; /* the CPUs perpi may run on */
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	while (len) {
		ssize_t r = read(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* The kernels' memory between two inaccessible pages: a kernel writing
 * past it faults, and is reported so, where an arena from malloc let it
 * corrupt the worker's heap and a later kernel abort, blamed instead
 * ("realloc(): invalid next size" in real builds). NULL if mmap fails. */
static uint64_t *guarded_arena(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, GEN_ARENA_BYTES + 2 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (mprotect(m, page, PROT_NONE) < 0 ||
	    mprotect(m + page + GEN_ARENA_BYTES, page, PROT_NONE) < 0)
		return NULL;
	return (uint64_t *)(void *)(m + page);
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void send_record(int fd, struct record *rec, const double *s, const unsigned char *c)
{
	if (write_all(fd, rec, sizeof(*rec)) < 0 ||
	    (rec->n && (write_all(fd, s, rec->n * sizeof(*s)) < 0 || write_all(fd, c, rec->n) < 0)))
		_exit(3);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The ALU probe's median speed on this CPU now, in core cycles an add
 * (each point against its own calibration). */
static double alu_speed_here(void)
{
	enum { POINTS = 31 };
	double v[POINTS];
	for (int i = 0; i < POINTS; i++) {
		uint64_t c = timing_chain_ticks(), t = timing_probe_ticks(PROBE_ALU);
		v[i] =
		    c ? (double)t * TIMING_CHAIN_CYCLES / (double)c / timing_probe_insns[PROBE_ALU]
		      : INFINITY;
	}
	qsort(v, POINTS, sizeof(*v), by_value);
	return v[POINTS / 2];
}

/* After a kernel the host disturbed throughout: the worker moves to the
 * CPU, of those perpi may run on, where the ALU probe runs fastest now,
 * when it runs 5% faster there than here. On this Xeon VM the host kept
 * one vCPU busy for minutes (0.36 cycles an add) while the other was calm
 * (0.22), and a worker on the busy one measured nothing. On a hybrid CPU a
 * slower kind of core reads slower: never chosen for being idle. */
static void move_to_calmest(struct worker *w)
{
	int best = w->cpu;
	double least = INFINITY, here = INFINITY;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &w->allowed))
			continue;
		pin(c);
		double v = alu_speed_here();
		if (c == w->cpu)
			here = v;
		if (v < least)
			least = v, best = c;
	}
	if (best != w->cpu && least < here * 0.95) {
		if (getenv("PERPI_BENCH_TIMES"))
			fprintf(stderr,
				"perpi: worker: moved from CPU %d to %d (ALU probe %.3f and %.3f "
				"cycles an add)\n",
				w->cpu, best, here, least);
		w->cpu = best;
	}
	pin(w->cpu);
}

/* What the parent asks the worker: time one kernel. */
struct command {
	uint32_t index;
	uint64_t turns;
	double divisor;
	char so[512];
	char symbol[64];
};

static void run_command(struct worker *w, void *h, const struct command *cmd, int fd)
{
	const struct harness_config *cfg = w->cfg;
	harness_kernel_fn fn = h ? (harness_kernel_fn)dlsym(h, cmd->symbol) : NULL;
	struct harness_job job = {
	    .symbol = cmd->symbol, .turns = cmd->turns, .divisor = cmd->divisor};
	struct record rec;
	struct harness_samples s = {0};
	memset(&rec, 0, sizeof(rec));
	rec.index = cmd->index;
	alarm(cfg->check_only		? 2
	      : cfg->kernel_timeout > 0 ? (unsigned)cfg->kernel_timeout + 1
					: KERNEL_TIMEOUT);
	if (!h) {
		rec.status = -1;
		snprintf(rec.error, sizeof(rec.error), "cannot load kernels: %s", dlerror());
	} else if (!fn) {
		rec.status = -1;
		snprintf(rec.error, sizeof(rec.error), "kernel %s missing", cmd->symbol);
	} else if (cfg->check_only) {
		struct harness_job once = {.symbol = cmd->symbol, .turns = 1, .divisor = 1};
		harness_clock_real()->run(NULL, fn, &once, w->read, w->write);
	} else {
		harness_session_measure(w->session, fn, &job, w->read, w->write, &s);
		if (s.n_clean < 3 && w->can_move)
			move_to_calmest(w);
		rec.n = s.n;
		rec.ticks_per_cycle = s.n ? s.tpc_sum / s.n : 0;
		memcpy(rec.best, harness_session_best(w->session), sizeof(rec.best));
		rec.replaced = harness_session_replaced(w->session);
		rec.taken = s.taken;
	}
	alarm(0);
	rec.papi = harness_session_papi(w->session);
	send_record(fd, &rec, s.cycles, s.clean);
	harness_samples_done(&s);
}

/* The worker's life: set up once, then one command after another until
 * perpi closes its end. */
static void worker_serve(const struct harness_config *cfg, int cpu, int fd)
{
	struct worker w = {.cfg = cfg, .cpu = cpu};
	char loaded[512] = "";
	void *h = NULL;
	w.can_move = cfg->cpu < 0 && !cfg->clock && !cfg->check_only &&
		     sched_getaffinity(0, sizeof(w.allowed), &w.allowed) == 0 &&
		     CPU_COUNT(&w.allowed) > 1;
	pin(cpu);
	signal(SIGINT, SIG_IGN); /* Ctrl-C is perpi's to handle: it stops this worker */
	/* a kernel's fault kills the worker by its signal, which perpi names,
	 * even where a sanitizer's handler would catch it and exit */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	_mm_setcsr(_mm_getcsr() | 0x8040); /* FTZ and DAZ: no denormal slow paths */
	/* every 8-byte word 0x3ff1111111111111 (the double 1.0667): a normal
	 * number, and no byte, word or dword of it is 0 (a divisor in memory) */
	uint64_t *arena = guarded_arena();
	if (!arena)
		_exit(3);
	for (size_t i = 0; i < GEN_ARENA_BYTES / sizeof(*arena); i++)
		arena[i] = GEN_ARENA_WORD;
	w.read = arena;
	w.write = (char *)arena + GEN_HALF_BYTES;
	w.session = harness_session_new(cfg, cfg->clock);
	double t_warm = perpi_now();
	if (!cfg->check_only)
		harness_session_warm_up(w.session);
	if (getenv("PERPI_BENCH_TIMES"))
		fprintf(stderr, "perpi: worker: started, warm-up %.1f ms\n",
			1e3 * (perpi_now() - t_warm));
	struct command cmd;
	while (read_all(fd, &cmd, sizeof(cmd)) == 0) {
		cmd.so[sizeof(cmd.so) - 1] = cmd.symbol[sizeof(cmd.symbol) - 1] = '\0';
		if (strcmp(cmd.so, loaded)) {
			if (h)
				dlclose(h);
			h = dlopen(cmd.so, RTLD_NOW | RTLD_LOCAL);
			snprintf(loaded, sizeof(loaded), "%s", h ? cmd.so : "");
		}
		run_command(&w, h, &cmd, fd);
	}
	_exit(0);
}

/* The CPU perpi runs on: the worker starts there at once when perpi waits. */
static int default_cpu(void)
{
	int here = sched_getcpu();
	if (here >= 0)
		return here;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &set))
			return c;
	return 0;
}

struct harness_worker {
	struct harness_config cfg; /* for the next start */
	pid_t pid;		   /* 0: not running */
	int fd;
	int cpu;
};

struct harness_worker *harness_worker_new(void)
{
	return xcalloc(1, sizeof(struct harness_worker));
}

static int worker_stop(struct harness_worker *w)
{
	int st = 0;
	if (w->pid <= 0)
		return 0;
	close(w->fd);
	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
	return st;
}

void harness_worker_delete(struct harness_worker *w)
{
	if (!w)
		return;
	worker_stop(w);
	free(w);
}

static int worker_start(struct harness_worker *w)
{
	int fds[2];
	w->cpu = w->cfg.cpu >= 0 ? w->cfg.cpu : default_cpu();
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 &&
	    (w->cpu >= CPU_SETSIZE || !CPU_ISSET(w->cpu, &allowed)))
		return perpi_set_error("CPU %d is not one perpi may run on (nproc tells how many)",
				       w->cpu);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return perpi_set_error("socketpair: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return perpi_set_error("fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* Keep only our own end of our own socket: a worker inheriting an
		 * earlier worker's socket would keep it open, and that worker would
		 * never see its end of file when perpi lets it go. */
		int fd = fds[1] == 3 ? 3 : dup2(fds[1], 3);
		if (fd != 3)
			_exit(1);
		syscall(SYS_close_range, 4U, ~0U, 0U);
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* perpi killed: stop measuring */
		if (getppid() == 1)
			_exit(1);
		worker_serve(&w->cfg, w->cpu, fd);
	}
	close(fds[1]);
	w->pid = pid;
	w->fd = fds[0];
	return 0;
}

static void fail_job(struct harness_output *o, const char *fmt, const char *what)
{
	o->status = -1;
	snprintf(o->error, sizeof(o->error), fmt, what);
}

/* Wait for the worker's answer: 0 when it can be read, -1 when the kernel
 * outlived its time (the worker is then killed), -2 when *stop was set. */
static int wait_answer(struct harness_worker *w)
{
	double limit = (w->cfg.kernel_timeout > 0 ? w->cfg.kernel_timeout : KERNEL_TIMEOUT) + 2;
	double start = perpi_now();
	for (;;) {
		struct pollfd p = {.fd = w->fd, .events = POLLIN};
		int r = poll(&p, 1, 100);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return 0; /* let the read say what is wrong */
		if (w->cfg.stop && *w->cfg.stop)
			return -2;
		if (perpi_now() - start > limit)
			return -1;
	}
}

static int read_record(struct harness_worker *w, struct harness_output *o)
{
	struct record rec;
	if (read_all(w->fd, &rec, sizeof(rec)) < 0)
		return -1;
	o->status = rec.status;
	o->papi = rec.papi;
	o->ticks_per_cycle = rec.ticks_per_cycle;
	memcpy(o->best, rec.best, sizeof(o->best));
	o->replaced = rec.replaced;
	o->taken = rec.taken;
	snprintf(o->error, sizeof(o->error), "%s", rec.error);
	o->n = rec.n;
	o->samples = xmalloc((rec.n + 1) * sizeof(double));
	o->clean = xmalloc(rec.n + 1);
	if (rec.n && (read_all(w->fd, o->samples, rec.n * sizeof(double)) < 0 ||
		      read_all(w->fd, o->clean, rec.n) < 0))
		return -1;
	return 0;
}

/* A worker that must not finish what it runs. */
static void worker_kill(struct harness_worker *w)
{
	if (w->pid > 0)
		kill(w->pid, SIGKILL);
	worker_stop(w);
}

/* The worker died running job o: why, from its exit status. */
static void worker_died(struct harness_worker *w, struct harness_output *o)
{
	int st = worker_stop(w);
	harness_output_done(o);
	o->n = 0;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
		fail_job(o, "kernel timed out: the worker stopped it%s", "");
	else if (WIFSIGNALED(st))
		fail_job(o, "kernel faulted: %s", strsignal(WTERMSIG(st)));
	else
		fail_job(o, "benchmark worker failed%s", "");
}

int harness_worker_run(struct harness_worker *w, const struct harness_config *cfg,
		       const char *so_path, const struct harness_job *jobs, size_t n,
		       struct harness_output *out, harness_progress_fn progress, void *arg)
{
	memset(out, 0, n * sizeof(*out));
	if (w->pid > 0 && (w->cfg.check_only != cfg->check_only || w->cfg.cpu != cfg->cpu ||
			   w->cfg.force_tsc != cfg->force_tsc))
		worker_stop(w);
	w->cfg = *cfg;
	for (size_t i = 0; i < n; i++) {
		struct command cmd = {
		    .index = (uint32_t)i, .turns = jobs[i].turns, .divisor = jobs[i].divisor};
		snprintf(cmd.so, sizeof(cmd.so), "%s", so_path);
		snprintf(cmd.symbol, sizeof(cmd.symbol), "%s", jobs[i].symbol);
		if (w->pid <= 0 && worker_start(w) < 0) {
			for (size_t j = i; j < n; j++)
				fail_job(&out[j], "%s", perpi_error());
			return -1;
		}
		if (cfg->stop && *cfg->stop) {
			for (size_t j = i; j < n; j++)
				fail_job(&out[j], "interrupted%s", "");
			return 0;
		}
		ssize_t sent = send(w->fd, &cmd, sizeof(cmd), MSG_NOSIGNAL);
		int waited = sent == (ssize_t)sizeof(cmd) ? wait_answer(w) : 0;
		if (waited == -2) {
			worker_kill(w);
			for (size_t j = i; j < n; j++)
				fail_job(&out[j], "interrupted%s", "");
			return 0;
		}
		if (waited == -1) {
			worker_kill(w);
			char msg[64];
			snprintf(msg, sizeof(msg), "%.0f s",
				 w->cfg.kernel_timeout > 0 ? w->cfg.kernel_timeout
							   : (double)KERNEL_TIMEOUT);
			fail_job(&out[i], "kernel timed out after %s: the worker was stopped", msg);
		} else if (sent != (ssize_t)sizeof(cmd) || read_record(w, &out[i]) < 0) {
			worker_died(w, &out[i]);
		}
		if (progress)
			progress(arg, i, i + 1, n);
	}
	return 0;
}

int harness_run(const char *so_path, const struct harness_job *jobs, size_t n,
		const struct harness_config *cfg, struct harness_output *out,
		harness_progress_fn progress, void *arg)
{
	struct harness_worker *w = harness_worker_new();
	int rc = harness_worker_run(w, cfg, so_path, jobs, n, out, progress, arg);
	harness_worker_delete(w);
	return rc;
}
