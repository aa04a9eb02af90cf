/* The worker: a child process pinned to one CPU that loads the kernels'
 * shared object and times them, sending one record per kernel up a pipe. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#include "palmed/timing.h"

typedef void (*kernel_fn)(uint64_t turns, void *read, void *write);

struct record {
	uint32_t index;
	int32_t status; /* 0 ok, -1 this job failed, -2 every job will fail */
	uint32_t n;
	int32_t papi;
	double ticks_per_cycle;
	double best[PROBE_COUNT]; /* the worker's best throughput probes, cycles per insn */
	char error[128];
};

#define WIDE_SLACK 1.05	  /* a throughput probe this much slower than its best: disturbed */
#define CHAIN_SLACK 0.015 /* a calibration this much slower than the recent fastest: disturbed */
#define KERNEL_TIMEOUT 30 /* seconds for one kernel, all attempts */

/* Calibration probes remembered: the fastest of the latest ones is the
 * core's clock (a busy SMT sibling or the host only ever slow a probe). */
#define CHAIN_WINDOW 16
#define BEST_CONFIRM 4
#define ALU_GUARD 1.02 /* the ALU probe this close to its best vouches for the chain */

struct worker {
	const struct harness_config *cfg;
	void *read, *write;
	int papi;
	uint64_t overhead;
	double best[PROBE_COUNT];      /* fewest cycles per instruction of each probe */
	uint64_t chains[CHAIN_WINDOW]; /* the latest calibration probes, in ticks */
	unsigned n_chains;
	/* the latest probe pairs, per probe (infinity: calibrations not clean) */
	double recent[BEST_CONFIRM][PROBE_COUNT];
	unsigned n_recent;
};

/* One probe point: a calibration, then each throughput probe. */
struct probe_point {
	uint64_t chain;
	uint64_t ticks[PROBE_COUNT];
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* (q75 - q25) / median of the clean samples; *n_clean their count. */
static double clean_spread(const double *s, const unsigned char *clean, unsigned n,
			   unsigned *n_clean)
{
	double *v = xmalloc((n + 1) * sizeof(*v));
	unsigned m = 0;
	for (unsigned i = 0; i < n; i++)
		if (clean[i])
			v[m++] = s[i];
	*n_clean = m;
	if (m == 0) {
		free(v);
		return INFINITY;
	}
	qsort(v, m, sizeof(*v), cmp_double);
	double spread = (v[(3 * (m - 1) + 2) / 4] - v[(m - 1) / 4]) / v[(m - 1) / 2];
	free(v);
	return spread;
}

static uint64_t chain_probe(struct worker *w)
{
	uint64_t c = timing_chain_ticks();
	w->chains[w->n_chains++ % CHAIN_WINDOW] = c;
	return c;
}

static uint64_t chain_fastest(const struct worker *w)
{
	unsigned n = w->n_chains < CHAIN_WINDOW ? w->n_chains : CHAIN_WINDOW;
	uint64_t best = UINT64_MAX;
	for (unsigned i = 0; i < n; i++)
		if (w->chains[i] < best)
			best = w->chains[i];
	return best;
}

/* Both calibrations around a repetition ran at the core's full speed. */
static int chains_clean(const struct worker *w, uint64_t c0, uint64_t c1)
{
	double limit = (double)chain_fastest(w) * (1 + CHAIN_SLACK);
	return (double)c0 <= limit && (double)c1 <= limit;
}

static void probe(struct worker *w, struct probe_point *p)
{
	p->chain = chain_probe(w);
	for (int k = 0; k < PROBE_COUNT; k++)
		p->ticks[k] = timing_probe_ticks((enum timing_probe)k);
}

/* Cycles per instruction of each probe over two points: the slower. */
static void probe_speed(const struct worker *w, const struct probe_point *a,
			const struct probe_point *b, double v[PROBE_COUNT])
{
	double tpc = (double)chain_fastest(w) / TIMING_CHAIN_CYCLES;
	for (int k = 0; k < PROBE_COUNT; k++) {
		uint64_t t = a->ticks[k] > b->ticks[k] ? a->ticks[k] : b->ticks[k];
		v[k] = (double)t / tpc / timing_probe_insns[k];
	}
}

/* The best can only be lowered by the slowest of BEST_CONFIRM consecutive
 * probe pairs, all with clean calibrations: a lucky reading, or a clock
 * change caught between a calibration and a probe, does not count (the best
 * is kept across runs, so one glitch would spoil every later measurement). */
static void update_best(struct worker *w, const struct probe_point *a, const struct probe_point *b)
{
	double v[PROBE_COUNT];
	probe_speed(w, a, b, v);
	int clean = chains_clean(w, a->chain, b->chain);
	for (int k = 0; k < PROBE_COUNT; k++)
		w->recent[w->n_recent % BEST_CONFIRM][k] = clean ? v[k] : INFINITY;
	if (++w->n_recent < BEST_CONFIRM)
		return;
	/* The calibration chain runs on the integer ALUs, like the ALU probe: a
	 * sibling slowing the chain makes the other probes look fast, so their
	 * best moves only while the ALU probe runs at its own best. */
	int alu_at_best = w->recent[(w->n_recent - 1) % BEST_CONFIRM][PROBE_ALU] <=
			  w->best[PROBE_ALU] * ALU_GUARD;
	for (int k = 0; k < PROBE_COUNT; k++) {
		double slowest = 0;
		for (unsigned i = 0; i < BEST_CONFIRM; i++)
			if (w->recent[i][k] > slowest)
				slowest = w->recent[i][k];
		if (k != PROBE_ALU && !alu_at_best)
			continue;
		if (slowest < w->best[k] && slowest >= 1.0 / 8) /* no core runs 8+ per cycle */
			w->best[k] = slowest;
	}
}

/* A repetition is clean when its calibrations ran at full speed and every
 * probe around it within WIDE_SLACK of its best. */
static int probes_clean(const struct worker *w, const double v[PROBE_COUNT])
{
	for (int k = 0; k < PROBE_COUNT; k++)
		if (!(v[k] <= w->best[k] * WIDE_SLACK))
			return 0;
	return 1;
}

struct samples {
	unsigned n, cap, n_clean;
	double *cycles;
	unsigned char *clean;
	double (*speed)[PROBE_COUNT]; /* the probes around each repetition */
	unsigned char *agree;	      /* its calibrations ran at full speed */
	double tpc_sum;
};

/* Samples kept per kernel: every clean one, disturbed ones while room is left. */
#define SAMPLES_KEPT 256

static void add_sample(struct samples *s, double cycles, const double speed[PROBE_COUNT], int agree,
		       double tpc)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->cycles = xrealloc(s->cycles, s->cap * sizeof(*s->cycles));
		s->speed = xrealloc(s->speed, s->cap * sizeof(*s->speed));
		s->clean = xrealloc(s->clean, s->cap);
		s->agree = xrealloc(s->agree, s->cap);
	}
	s->cycles[s->n] = cycles;
	memcpy(s->speed[s->n], speed, sizeof(s->speed[0]));
	s->agree[s->n] = (unsigned char)agree;
	s->clean[s->n++] = 0;
	s->tpc_sum += tpc;
}

/* Clean: calibrations agree and the probes ran at full speed, judged
 * against the best probe seen so far (it may improve as we go). */
static void classify(struct samples *s, const struct worker *w)
{
	s->n_clean = 0;
	for (unsigned i = 0; i < s->n; i++) {
		s->clean[i] = s->agree[i] && probes_clean(w, s->speed[i]);
		s->n_clean += s->clean[i];
	}
}

/* Keep every clean sample and the first disturbed ones, SAMPLES_KEPT in all
 * at most (clean ones first in priority, order preserved). */
static void trim(struct samples *s)
{
	if (s->n <= SAMPLES_KEPT)
		return;
	unsigned dirty_room = s->n_clean >= SAMPLES_KEPT ? 0 : SAMPLES_KEPT - s->n_clean, j = 0;
	for (unsigned i = 0; i < s->n; i++) {
		if (!s->clean[i]) {
			if (!dirty_room)
				continue;
			dirty_room--;
		}
		s->cycles[j] = s->cycles[i];
		s->clean[j++] = s->clean[i];
	}
	s->n = j;
}

/* Repetitions, each between two probes, until NUM_MEASURES clean ones agree
 * (or enough more were taken, or the time budget ran out). A streak of
 * disturbed repetitions means the host is busy: wait a little. */
static void measure_job(struct worker *w, kernel_fn fn, const struct harness_job *job,
			struct samples *s)
{
	const struct harness_config *cfg = w->cfg;
	unsigned m = cfg->measures, dirty_streak = 0;
	double start = perpi_now();
	for (unsigned i = 0; i < cfg->warmup; i++)
		fn(job->turns, w->read, w->write);
	struct probe_point before, after;
	probe(w, &before);
	for (;;) {
		uint64_t cyc = 0, ins = 0;
		if (w->papi)
			timing_papi_start();
		uint64_t t0 = timing_tsc();
		fn(job->turns, w->read, w->write);
		uint64_t t1 = timing_tsc();
		if (w->papi)
			timing_papi_stop(&cyc, &ins);
		probe(w, &after);
		double tpc = (double)chain_fastest(w) / TIMING_CHAIN_CYCLES;
		double ticks = (double)(t1 - t0) - (double)w->overhead;
		double cycles = w->papi ? (double)cyc : ticks / tpc;
		double speed[PROBE_COUNT];
		int agree = chains_clean(w, before.chain, after.chain);
		update_best(w, &before, &after);
		probe_speed(w, &before, &after, speed);
		add_sample(s, cycles / job->divisor, speed, agree, tpc);
		int clean = agree && probes_clean(w, speed);
		dirty_streak = clean ? 0 : dirty_streak + 1;
		if (getenv("PERPI_DEBUG_WORKER") && s->n < 40)
			fprintf(stderr,
				"chain %lu %lu alu %.3f/%.3f load %.3f/%.3f fp %.3f/%.3f "
				"cycles %.0f clean %d\n",
				(unsigned long)before.chain, (unsigned long)after.chain, speed[0],
				w->best[0], speed[1], w->best[1], speed[2], w->best[2], cycles,
				clean);
		before = after;
		if (clean && ++s->n_clean >= m) {
			classify(s, w);
			unsigned n_clean;
			double spread = clean_spread(s->cycles, s->clean, s->n, &n_clean);
			if (n_clean >= m &&
			    (spread <= cfg->max_spread || n_clean >= m * cfg->max_attempts))
				break;
		}
		if (perpi_now() - start > cfg->max_seconds)
			break;
		if (dirty_streak >= 8) {
			struct timespec ts = {0, 2000000};
			nanosleep(&ts, NULL);
			for (unsigned i = 0; i < cfg->warmup; i++)
				fn(job->turns, w->read, w->write);
			probe(w, &before);
			dirty_streak = 0;
		}
	}
	classify(s, w);
	if (getenv("PERPI_BENCH_TIMES"))
		fprintf(stderr, "perpi: worker: %u repetitions, %u clean, %.1f ms\n", s->n,
			s->n_clean, 1e3 * (perpi_now() - start));
	trim(s);
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void warm_up(struct worker *w)
{
	w->overhead = timing_overhead();
	double start = perpi_now();
	/* let the core reach its clock before the first probe counts */
	while (perpi_now() - start < 0.002)
		chain_probe(w);
	/* without a reference from earlier runs, look for the best probes longer */
	int known = 1;
	for (int k = 0; k < PROBE_COUNT; k++)
		known &= isfinite(w->best[k]);
	double look = known ? 0 : 0.02;
	struct probe_point a, b;
	probe(w, &a);
	for (int i = 0; i < 48 || (i < 4000 && perpi_now() - start < look); i++) {
		probe(w, &b);
		update_best(w, &a, &b);
		a = b;
	}
}

static void send_record(int fd, struct record *rec, const double *s, const unsigned char *c)
{
	if (write_all(fd, rec, sizeof(*rec)) < 0 ||
	    (rec->n && (write_all(fd, s, rec->n * sizeof(*s)) < 0 || write_all(fd, c, rec->n) < 0)))
		_exit(3);
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
	kernel_fn fn = h ? (kernel_fn)dlsym(h, cmd->symbol) : NULL;
	struct harness_job job = {
	    .symbol = cmd->symbol, .turns = cmd->turns, .divisor = cmd->divisor};
	struct record rec;
	struct samples s = {0};
	memset(&rec, 0, sizeof(rec));
	rec.index = cmd->index;
	rec.papi = w->papi;
	alarm(cfg->check_only ? 2 : KERNEL_TIMEOUT);
	if (!h) {
		rec.status = -1;
		snprintf(rec.error, sizeof(rec.error), "cannot load kernels: %s", dlerror());
	} else if (!fn) {
		rec.status = -1;
		snprintf(rec.error, sizeof(rec.error), "kernel %s missing", cmd->symbol);
	} else if (cfg->check_only) {
		fn(1, w->read, w->write);
	} else {
		measure_job(w, fn, &job, &s);
		rec.n = s.n;
		rec.ticks_per_cycle = s.n ? s.tpc_sum / s.n : 0;
		memcpy(rec.best, w->best, sizeof(rec.best));
	}
	alarm(0);
	send_record(fd, &rec, s.cycles, s.clean);
	free(s.cycles);
	free(s.clean);
	free(s.speed);
	free(s.agree);
}

/* The worker's life: set up once, then one command after another until
 * perpi closes its end. */
static void worker_serve(const struct harness_config *cfg, int cpu, int fd)
{
	struct worker w = {.cfg = cfg};
	char loaded[512] = "";
	void *h = NULL;
	pin(cpu);
	_mm_setcsr(_mm_getcsr() | 0x8040); /* FTZ and DAZ: no denormal slow paths */
	double *arena = aligned_alloc(4096, GEN_ARENA_BYTES);
	for (size_t i = 0; i < GEN_ARENA_BYTES / sizeof(double); i++)
		arena[i] = 1.0;
	w.read = arena;
	w.write = (char *)arena + GEN_HALF_BYTES;
	w.papi = !cfg->force_tsc && !cfg->check_only && timing_papi_works();
	for (int k = 0; k < PROBE_COUNT; k++)
		w.best[k] = cfg->best_hint[k] >= 1.0 / 8 ? cfg->best_hint[k] : INFINITY;
	double t_warm = perpi_now();
	if (!cfg->check_only)
		warm_up(&w);
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

static int read_record(struct harness_worker *w, struct harness_output *o)
{
	struct record rec;
	if (read_all(w->fd, &rec, sizeof(rec)) < 0)
		return -1;
	o->status = rec.status;
	o->papi = rec.papi;
	o->ticks_per_cycle = rec.ticks_per_cycle;
	memcpy(o->best, rec.best, sizeof(o->best));
	snprintf(o->error, sizeof(o->error), "%s", rec.error);
	o->n = rec.n;
	o->samples = xmalloc((rec.n + 1) * sizeof(double));
	o->clean = xmalloc(rec.n + 1);
	if (rec.n && (read_all(w->fd, o->samples, rec.n * sizeof(double)) < 0 ||
		      read_all(w->fd, o->clean, rec.n) < 0))
		return -1;
	return 0;
}

/* The worker died running job o: why, from its exit status. */
static void worker_died(struct harness_worker *w, struct harness_output *o)
{
	int st = worker_stop(w);
	harness_output_done(o);
	o->n = 0;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
		fail_job(o, "kernel timed out%s", "");
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
		ssize_t sent = send(w->fd, &cmd, sizeof(cmd), MSG_NOSIGNAL);
		if (sent != (ssize_t)sizeof(cmd) || read_record(w, &out[i]) < 0)
			worker_died(w, &out[i]);
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
