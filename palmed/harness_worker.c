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
#include <sys/wait.h>
#include <time.h>
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
	double best_wide; /* the worker's best throughput probe, in cycles */
	char error[128];
};

#define WIDE_SLACK 1.05	  /* a throughput probe this much slower than its best: disturbed */
#define CHAIN_SLACK 0.015 /* a calibration this much slower than the recent fastest: disturbed */
#define KERNEL_TIMEOUT 30 /* seconds for one kernel, all attempts */

/* Calibration probes remembered: the fastest of the latest ones is the
 * core's clock (a busy SMT sibling or the host only ever slow a probe). */
#define CHAIN_WINDOW 16
#define BEST_CONFIRM 4

struct worker {
	const struct harness_config *cfg;
	void *read, *write;
	int papi;
	uint64_t overhead;
	double best_wide; /* fewest cycles a throughput probe took */
	uint64_t chains[CHAIN_WINDOW]; /* the latest calibration probes, in ticks */
	unsigned n_chains;
	double recent_wide[BEST_CONFIRM]; /* the latest probe pairs (infinity: not clean) */
	unsigned n_recent_wide;
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

static double wide_cycles(uint64_t wide_ticks, uint64_t chain_ticks)
{
	return (double)wide_ticks * TIMING_CHAIN_CYCLES / (double)chain_ticks;
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

/* The best can only be lowered by the slowest of BEST_CONFIRM consecutive
 * probe pairs, all with clean calibrations: a lucky reading, or a clock
 * change caught between a calibration and a probe, does not count (the best
 * is kept across runs, so one glitch would spoil every later measurement). */
static void update_best(struct worker *w, uint64_t c0, uint64_t w0, uint64_t c1, uint64_t w1)
{
	double v = INFINITY;
	if (chains_clean(w, c0, c1)) {
		uint64_t fastest = chain_fastest(w);
		double wc0 = wide_cycles(w0, fastest), wc1 = wide_cycles(w1, fastest);
		v = wc0 > wc1 ? wc0 : wc1;
	}
	w->recent_wide[w->n_recent_wide++ % BEST_CONFIRM] = v;
	if (w->n_recent_wide < BEST_CONFIRM)
		return;
	double slowest = 0;
	for (unsigned i = 0; i < BEST_CONFIRM; i++)
		if (w->recent_wide[i] > slowest)
			slowest = w->recent_wide[i];
	if (slowest < w->best_wide && slowest >= TIMING_WIDE_INSNS / 8.0)
		w->best_wide = slowest;
}

struct samples {
	unsigned n, cap, n_clean;
	double *cycles;
	unsigned char *clean;
	double *wide;	      /* the slower throughput probe around the repetition */
	unsigned char *agree; /* the calibrations around it agree */
	double tpc_sum;
};

/* Samples kept per kernel: every clean one, disturbed ones while room is left. */
#define SAMPLES_KEPT 256

static void add_sample(struct samples *s, double cycles, double wide, int agree, double tpc)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->cycles = xrealloc(s->cycles, s->cap * sizeof(*s->cycles));
		s->wide = xrealloc(s->wide, s->cap * sizeof(*s->wide));
		s->clean = xrealloc(s->clean, s->cap);
		s->agree = xrealloc(s->agree, s->cap);
	}
	s->cycles[s->n] = cycles;
	s->wide[s->n] = wide;
	s->agree[s->n] = (unsigned char)agree;
	s->clean[s->n++] = 0;
	s->tpc_sum += tpc;
}

/* Clean: calibrations agree and the probes ran at full speed, judged
 * against the best probe seen so far (it may improve as we go). */
static void classify(struct samples *s, double best_wide)
{
	s->n_clean = 0;
	for (unsigned i = 0; i < s->n; i++) {
		s->clean[i] = s->agree[i] && s->wide[i] <= best_wide * WIDE_SLACK;
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
	uint64_t c0 = chain_probe(w), w0 = timing_wide_ticks();
	for (;;) {
		uint64_t cyc = 0, ins = 0;
		if (w->papi)
			timing_papi_start();
		uint64_t t0 = timing_tsc();
		fn(job->turns, w->read, w->write);
		uint64_t t1 = timing_tsc();
		if (w->papi)
			timing_papi_stop(&cyc, &ins);
		uint64_t c1 = chain_probe(w), w1 = timing_wide_ticks();
		uint64_t fastest = chain_fastest(w);
		double tpc = (double)fastest / TIMING_CHAIN_CYCLES;
		double ticks = (double)(t1 - t0) - (double)w->overhead;
		double cycles = w->papi ? (double)cyc : ticks / tpc;
		double wc0 = wide_cycles(w0, fastest), wc1 = wide_cycles(w1, fastest);
		double wide = wc0 > wc1 ? wc0 : wc1;
		int agree = chains_clean(w, c0, c1);
		update_best(w, c0, w0, c1, w1);
		add_sample(s, cycles / job->divisor, wide, agree, tpc);
		int clean = agree && wide <= w->best_wide * WIDE_SLACK;
		dirty_streak = clean ? 0 : dirty_streak + 1;
		if (getenv("PERPI_DEBUG_WORKER") && s->n < 40)
			fprintf(stderr, "c0 %lu c1 %lu wide %.0f best %.0f cycles %.0f clean %d\n",
				(unsigned long)c0, (unsigned long)c1, wide, w->best_wide, cycles,
				clean);
		c0 = c1;
		w0 = w1;
		if (clean && ++s->n_clean >= m) {
			classify(s, w->best_wide);
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
			c0 = chain_probe(w);
			w0 = timing_wide_ticks();
			dirty_streak = 0;
		}
	}
	classify(s, w->best_wide);
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
	/* without a reference from earlier runs, look for the best probe longer */
	double look = isfinite(w->best_wide) ? 0 : 0.02;
	uint64_t c0 = chain_probe(w), w0 = timing_wide_ticks();
	for (int i = 0; i < 64 || (i < 4000 && perpi_now() - start < look); i++) {
		uint64_t c1 = chain_probe(w), w1 = timing_wide_ticks();
		update_best(w, c0, w0, c1, w1);
		c0 = c1;
		w0 = w1;
	}
}

static void send(int fd, struct record *rec, const double *s, const unsigned char *c)
{
	if (write_all(fd, rec, sizeof(*rec)) < 0 ||
	    (rec->n && (write_all(fd, s, rec->n * sizeof(*s)) < 0 || write_all(fd, c, rec->n) < 0)))
		_exit(3);
}

static void worker_main(const char *so, const struct harness_job *jobs, size_t from, size_t n,
			const struct harness_config *cfg, int cpu, int fd)
{
	struct worker w = {.cfg = cfg};
	struct record rec;
	memset(&rec, 0, sizeof(rec));
	pin(cpu);
	_mm_setcsr(_mm_getcsr() | 0x8040); /* FTZ and DAZ: no denormal slow paths */
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		rec.index = (uint32_t)from;
		rec.status = -2;
		snprintf(rec.error, sizeof(rec.error), "cannot load kernels: %s", dlerror());
		send(fd, &rec, NULL, NULL);
		_exit(0);
	}
	double *arena = aligned_alloc(4096, GEN_ARENA_BYTES);
	for (size_t i = 0; i < GEN_ARENA_BYTES / sizeof(double); i++)
		arena[i] = 1.0;
	w.read = arena;
	w.write = (char *)arena + GEN_HALF_BYTES;
	w.papi = !cfg->force_tsc && !cfg->check_only && timing_papi_works();
	w.best_wide =
	    cfg->best_wide_hint >= TIMING_WIDE_INSNS / 8.0 ? cfg->best_wide_hint : INFINITY;
	double t_warm = perpi_now();
	if (!cfg->check_only)
		warm_up(&w);
	if (getenv("PERPI_BENCH_TIMES"))
		fprintf(stderr, "perpi: worker: started, warm-up %.1f ms\n",
			1e3 * (perpi_now() - t_warm));
	for (size_t i = from; i < n; i++) {
		kernel_fn fn = (kernel_fn)dlsym(h, jobs[i].symbol);
		memset(&rec, 0, sizeof(rec));
		rec.index = (uint32_t)i;
		rec.papi = w.papi;
		alarm(cfg->check_only ? 2 : KERNEL_TIMEOUT);
		if (!fn) {
			rec.status = -1;
			snprintf(rec.error, sizeof(rec.error), "kernel %s missing", jobs[i].symbol);
		} else if (cfg->check_only) {
			fn(1, w.read, w.write);
		}
		struct samples s = {0};
		if (fn && !cfg->check_only) {
			measure_job(&w, fn, &jobs[i], &s);
			rec.n = s.n;
			rec.ticks_per_cycle = s.n ? s.tpc_sum / s.n : 0;
			rec.best_wide = w.best_wide;
		}
		alarm(0);
		send(fd, &rec, s.cycles, s.clean);
		free(s.cycles);
		free(s.clean);
		free(s.wide);
		free(s.agree);
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

static void fail_job(struct harness_output *o, const char *fmt, const char *what)
{
	o->status = -1;
	snprintf(o->error, sizeof(o->error), fmt, what);
}

/* One worker from job `from` on; returns the next job to start from. */
static size_t run_worker(const char *so, const struct harness_job *jobs, size_t from, size_t n,
			 const struct harness_config *cfg, int cpu, struct harness_output *out,
			 harness_progress_fn progress, void *arg, int *fatal)
{
	int fds[2];
	if (pipe(fds) < 0) {
		*fatal = perpi_set_error("pipe: %s", strerror(errno));
		return n;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		*fatal = perpi_set_error("fork: %s", strerror(errno));
		return n;
	}
	if (pid == 0) {
		close(fds[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* perpi killed: stop measuring */
		if (getppid() == 1)
			_exit(1);
		worker_main(so, jobs, from, n, cfg, cpu, fds[1]);
	}
	close(fds[1]);
	size_t next = from;
	struct record rec;
	while (read_all(fds[0], &rec, sizeof(rec)) == 0 && rec.index < n) {
		struct harness_output *o = &out[rec.index];
		if (rec.status == -2) {
			*fatal = perpi_set_error("%s", rec.error);
			break;
		}
		o->status = rec.status;
		o->papi = rec.papi;
		o->ticks_per_cycle = rec.ticks_per_cycle;
		o->best_wide = rec.best_wide;
		snprintf(o->error, sizeof(o->error), "%s", rec.error);
		o->n = rec.n;
		o->samples = xmalloc((rec.n + 1) * sizeof(double));
		o->clean = xmalloc(rec.n + 1);
		if (rec.n && (read_all(fds[0], o->samples, rec.n * sizeof(double)) < 0 ||
			      read_all(fds[0], o->clean, rec.n) < 0))
			break;
		next = rec.index + 1;
		if (progress)
			progress(arg, next - 1, next, n);
	}
	close(fds[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!*fatal && next < n) {
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
			fail_job(&out[next], "kernel timed out%s", "");
		else if (WIFSIGNALED(st))
			fail_job(&out[next], "kernel faulted: %s", strsignal(WTERMSIG(st)));
		else
			fail_job(&out[next], "benchmark worker failed%s", "");
		next++;
		if (progress)
			progress(arg, next - 1, next, n);
	}
	return next;
}

int harness_run(const char *so_path, const struct harness_job *jobs, size_t n,
		const struct harness_config *cfg, struct harness_output *out,
		harness_progress_fn progress, void *arg)
{
	int cpu = cfg->cpu >= 0 ? cfg->cpu : default_cpu(), fatal = 0;
	memset(out, 0, n * sizeof(*out));
	size_t next = 0;
	while (next < n && !fatal)
		next = run_worker(so_path, jobs, next, n, cfg, cpu, out, progress, arg, &fatal);
	if (fatal) {
		for (size_t i = 0; i < n; i++)
			if (!out[i].samples && !out[i].status)
				fail_job(&out[i], "%s", perpi_error());
		return -1;
	}
	return 0;
}
