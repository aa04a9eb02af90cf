/* Timing one kernel: see harness_measure.h. */
#include "palmed/harness_measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"

/* A probe this much slower (in core cycles) than its best: disturbed. */
#define WIDE_SLACK 1.05
/* The same for the front-end probe (zero idioms), whose speed moves
 * between levels on a calm core while the kernels' cycles do not: on this
 * Xeon (Intel family 6 model 207) 0.174 and 0.191 cycles an idiom against
 * a best of 0.163, the median kernel alike in both (to 0.1%), and 98% of
 * the repetitions judged disturbed were so by this probe alone; on the
 * Zen 5, 13-15% slower than its best for hours (docs/BENCHMARKS.md). A
 * sibling thread taking the front end halves it, far beyond this. */
#define FRONT_SLACK 1.20
/* A probe this much faster than its best: the calibration itself was slowed
 * (the host took the core during it, or a sibling held the ALUs), so every
 * cycle count of the repetition is too small: disturbed too. */
#define LOW_SLACK 0.95
/* A probe's best moves down by at most this factor at a time: a slowed
 * calibration that its neighbours happen to match cannot sink it (the best
 * is kept across runs: sunk, every later repetition would look disturbed). */
#define BEST_STEP 0.90
/* The two calibrations around a repetition differ by more than this: the
 * host or a clock change got in between; the repetition is not used. */
#define CHAIN_SLACK 0.015
/* A point whose second calibration (dependent FP adds) gives cycles per FP
 * add this far from the session's reference (their latency, learned by
 * learn_fp_ratio): the chain of adds was slowed, not the clock changed. */
#define FP_RATIO_SLACK 0.03
/* How long a session without a reference from earlier runs watches the
 * probes for their best: once a machine (the reference is kept). 20 ms
 * were too few on a Zen 3 VM whose core another guest shared: its quiet
 * moments last tens of microseconds, and a first run took probes 1.4
 * times slow for its reference, and kernels measured 40-75% slow as
 * clean (a load 0.481 cycles, a store 0.747). */
#define FIRST_LOOK 0.5
/* Points the FP adds' latency is learned from. */
#define FP_RATIO_POINTS 64
/* A probe's best moves only on BEST_CONFIRM consecutive agreeing points. */
#define BEST_CONFIRM 4
#define ALU_GUARD 1.02 /* the ALU probe this close to its best vouches for the chain */
/* Samples kept per kernel: every clean one, disturbed ones while room is left. */
#define SAMPLES_KEPT 256
/* How long the probes are watched to find this machine's speed now, and
 * how long a kernel may go without a clean repetition before they are
 * watched again (see rebase). */
#define REBASE_LOOK 0.2
#define REBASE_AFTER 0.25
/* A probe slower than this times its best is not this machine's speed now
 * but a host or a sibling hardware thread taking a share of the core's
 * units: on the Zen 5 VM another guest made the probes run twice as slow
 * for minutes, and kernels timed against that speed came out up to twice
 * too slow, stored as clean; on a Zen 3 VM whose core another guest
 * shared, slow spells of the load probe outlasted a rebase's look (0.2 s)
 * at 1.21 and 1.48 times its best, and kernels timed against them came
 * out 5-35% slow as clean (bench/shared_host.sh: 10 of 160 with 1.5, 19
 * of 160 for the code before the look's fast tenth). Their repetitions
 * stay disturbed: the kernel is refused for a busy host, not measured
 * into the model. Not lower: the Zen 5's load probe ran 5-10% slower than
 * its best for hours on a quiet machine. (Its ALU probe started a worker
 * at up to 1.2 times its best, a spell its fast tenth sees through.) */
#define REBASE_MAX 1.15
/* A probe whose fast tenth is this slow while the ALU probe runs at its
 * best: a reference out of reach (see rebase). */
#define UNREACHABLE 1.5
/* A probe other than the ALU one whose fast tenth is out of its clean band
 * in this many looks in a row while the ALU probe runs at its best: a
 * reference out of reach too, however near (see rebase). */
#define MISSED_LOOKS 3

struct harness_session {
	const struct harness_config *cfg;
	const struct harness_clock *clock;
	int papi;
	uint64_t overhead;
	double best[PROBE_COUNT]; /* fewest core cycles per instruction of each probe */
	/* the latest probe points' speeds (infinity: calibrations disagreed) */
	double recent[BEST_CONFIRM][PROBE_COUNT];
	unsigned n_recent;
	int warned; /* the probes' slowdown was said once */
	/* The ALU probe's best before any rebase: what the core's integer side
	 * runs at when nothing shares it. */
	double alu_kept;
	unsigned replaced; /* bit k: probe k's reference was out of reach, replaced */
	unsigned missed[PROBE_COUNT]; /* looks in a row whose fast tenth missed the band */
	double fp_ratio;   /* the FP chain's cycles per add (its latency); 0 unknown */
};

/* One probe point: a calibration, each throughput probe, the FP chain. */
struct probe_point {
	uint64_t chain;
	uint64_t fp_chain; /* the second calibration, after the probes; 0: none */
	uint64_t ticks[PROBE_COUNT];
};

/* ---- the real clock ---- */

static uint64_t real_tsc(void *ctx)
{
	return timing_tsc();
}

static uint64_t real_chain(void *ctx)
{
	return timing_chain_ticks();
}

static uint64_t real_probe(void *ctx, enum timing_probe p)
{
	/* a kernel's AVX code may leave the upper vector state dirty: legacy SSE
	 * (the fp probe) would then pay transitions on some cores */
	if (*(const int *)ctx)
		__asm__ volatile("vzeroupper" ::: "memory");
	return timing_probe_ticks(p);
}

static uint64_t real_fp_chain(void *ctx)
{
	if (*(const int *)ctx)
		__asm__ volatile("vzeroupper" ::: "memory");
	return timing_fp_chain_ticks();
}

static uint64_t real_overhead(void *ctx)
{
	return timing_overhead();
}

static void real_run(void *ctx, harness_kernel_fn fn, const struct harness_job *job, void *read,
		     void *write)
{
	fn(job->turns, read, write);
	/* The ABI wants the direction flag clear: a kernel of STD leaves it
	 * set, and the worker's memcpy would then copy backwards over its
	 * heap (a later kernel aborted, "free(): invalid next size"). */
	__asm__ volatile("cld" ::: "memory");
}

const struct harness_clock *harness_clock_real(void)
{
	static int avx;
	static struct harness_clock c = {real_tsc, real_chain, real_probe, real_overhead,
					 real_run, &avx,       real_fp_chain};
	__builtin_cpu_init();
	avx = __builtin_cpu_supports("avx");
	return &c;
}

/* ---- probes ---- */

/* A point: the calibration chain, the probes, then the FP chain. The FP
 * chain closes the point so that its check (fp_ratio near the FP adds'
 * latency) also sees a clock that changed within the point: on an Intel
 * Xeon (family 6 model 207) the clock stayed lower for a while after some
 * kernels, the chain and the ALU probe ran at 0.92 ticks a cycle and the
 * fp and front probes at 0.77; timed by the chain's clock, 0.418 cycles an
 * addpd (two FP adders: 0.5) confirmed point after point, kept as the best,
 * and every later repetition was disturbed: the build never ended. With
 * the FP chain right after the chain, both ran at the lower clock and
 * agreed. */
static void probe(struct harness_session *s, struct probe_point *p)
{
	const struct harness_clock *c = s->clock;
	p->chain = c->chain(c->ctx);
	for (int k = 0; k < PROBE_COUNT; k++)
		p->ticks[k] = c->probe(c->ctx, (enum timing_probe)k);
	p->fp_chain = c->fp_chain ? c->fp_chain(c->ctx) : 0;
}

/* The second calibration's cycles per FP add by the first's clock (0: none). */
static double fp_ratio(const struct probe_point *p)
{
	if (!p->fp_chain || !p->chain)
		return 0;
	return (double)p->fp_chain / TIMING_FP_CHAIN_INSNS /
	       ((double)p->chain / TIMING_CHAIN_CYCLES);
}

/* A point's two calibrations agree with the FP adds' latency learned. */
static int ratio_ok(const struct harness_session *s, const struct probe_point *p)
{
	double r = fp_ratio(p);
	return s->fp_ratio <= 0 || r <= 0 || fabs(r / s->fp_ratio - 1) <= FP_RATIO_SLACK;
}

/* The chains of adds of two points agree: no clock change, no steal between. */
static int clocks_agree(const struct probe_point *a, const struct probe_point *b)
{
	double lo = (double)(a->chain < b->chain ? a->chain : b->chain);
	double hi = (double)(a->chain < b->chain ? b->chain : a->chain);
	return lo > 0 && hi <= lo * (1 + CHAIN_SLACK);
}

/* The calibrations of two points agree: no clock change, no steal between,
 * and within each the chain of adds ran at one add a cycle and the clock
 * held until its FP chain. */
static int chains_agree(const struct harness_session *s, const struct probe_point *a,
			const struct probe_point *b)
{
	return clocks_agree(a, b) && ratio_ok(s, a) && ratio_ok(s, b);
}

/* Ticks per core cycle between two points: their calibrations' mean. */
static double ticks_per_cycle(const struct probe_point *a, const struct probe_point *b)
{
	return ((double)a->chain + (double)b->chain) / 2 / TIMING_CHAIN_CYCLES;
}

/* Cycles per instruction of each probe over two points (the slower of the
 * two, each converted with its own calibration). */
static void probe_speed(const struct probe_point *a, const struct probe_point *b,
			double v[PROBE_COUNT])
{
	for (int k = 0; k < PROBE_COUNT; k++) {
		double va = (double)a->ticks[k] * TIMING_CHAIN_CYCLES / (double)a->chain;
		double vb = (double)b->ticks[k] * TIMING_CHAIN_CYCLES / (double)b->chain;
		v[k] = (va > vb ? va : vb) / timing_probe_insns[k];
	}
}

/* The best can only be lowered by the slowest of BEST_CONFIRM consecutive
 * probe pairs, all with agreeing calibrations: a lucky reading, or a clock
 * change caught between a calibration and a probe, does not count (the best
 * is kept across runs, so one glitch would spoil every later measurement). */
static void update_best(struct harness_session *s, const struct probe_point *a,
			const struct probe_point *b)
{
	double v[PROBE_COUNT];
	probe_speed(a, b, v);
	int agree = chains_agree(s, a, b);
	for (int k = 0; k < PROBE_COUNT; k++)
		s->recent[s->n_recent % BEST_CONFIRM][k] = agree ? v[k] : INFINITY;
	if (++s->n_recent < BEST_CONFIRM)
		return;
	/* The calibration chain runs on the integer ALUs, like the ALU probe: a
	 * sibling slowing the chain makes the other probes look fast, so their
	 * best moves only while the ALU probe runs at its own best. */
	double alu = s->recent[(s->n_recent - 1) % BEST_CONFIRM][PROBE_ALU];
	int alu_at_best =
	    alu <= s->best[PROBE_ALU] * ALU_GUARD && alu >= s->best[PROBE_ALU] * LOW_SLACK;
	for (int k = 0; k < PROBE_COUNT; k++) {
		double slowest = 0;
		for (unsigned i = 0; i < BEST_CONFIRM; i++)
			if (s->recent[i][k] > slowest)
				slowest = s->recent[i][k];
		if (k != PROBE_ALU && !alu_at_best)
			continue;
		if (isfinite(s->best[k]) && slowest < s->best[k] * BEST_STEP)
			continue;
		/* no core runs 8 adds, loads or FP adds per cycle, nor 16 zero idioms */
		if (slowest < s->best[k] && slowest >= (k == PROBE_FRONT ? 1.0 / 16 : 1.0 / 8)) {
			s->best[k] = slowest;
			if (k == PROBE_ALU && slowest < s->alu_kept)
				s->alu_kept = slowest;
		}
	}
}

static double wide_slack(int k)
{
	return k == PROBE_FRONT ? FRONT_SLACK : WIDE_SLACK;
}

static int probes_clean(const struct harness_session *s, const double v[PROBE_COUNT])
{
	for (int k = 0; k < PROBE_COUNT; k++)
		if (!(v[k] <= s->best[k] * wide_slack(k) && v[k] >= s->best[k] * LOW_SLACK))
			return 0;
	return 1;
}

/* ---- samples ---- */

struct pending {
	double (*speed)[PROBE_COUNT]; /* the probes around each repetition */
	unsigned char *agree;	      /* its calibrations agreed */
	unsigned cap;
};

static void add_sample(struct harness_samples *s, struct pending *p, double cycles,
		       const double speed[PROBE_COUNT], int agree, double tpc)
{
	if (s->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		s->cycles = xrealloc(s->cycles, p->cap * sizeof(*s->cycles));
		s->clean = xrealloc(s->clean, p->cap);
		p->speed = xrealloc(p->speed, p->cap * sizeof(*p->speed));
		p->agree = xrealloc(p->agree, p->cap);
	}
	s->cycles[s->n] = cycles;
	memcpy(p->speed[s->n], speed, sizeof(p->speed[0]));
	p->agree[s->n] = (unsigned char)agree;
	s->clean[s->n++] = 0;
	s->tpc_sum += tpc;
}

/* Clean: calibrations agree and the probes ran at full speed, judged
 * against the best probe seen so far (it may improve as we go). */
static void classify(struct harness_samples *s, const struct pending *p,
		     const struct harness_session *se)
{
	s->n_clean = 0;
	for (unsigned i = 0; i < s->n; i++) {
		s->clean[i] = p->agree[i] && probes_clean(se, p->speed[i]);
		s->n_clean += s->clean[i];
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* (q75 - q25) / median of the clean samples. */
static double clean_spread(const struct harness_samples *s)
{
	double *v = xmalloc((s->n + 1) * sizeof(*v));
	unsigned m = 0;
	for (unsigned i = 0; i < s->n; i++)
		if (s->clean[i])
			v[m++] = s->cycles[i];
	double spread = INFINITY;
	if (m) {
		qsort(v, m, sizeof(*v), cmp_double);
		spread = (v[(3 * (m - 1) + 2) / 4] - v[(m - 1) / 4]) / v[(m - 1) / 2];
	}
	free(v);
	return spread;
}

/* Keep every clean sample and the first disturbed ones, SAMPLES_KEPT in all
 * at most (clean ones first in priority, order preserved). */
static void trim(struct harness_samples *s)
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

void harness_samples_done(struct harness_samples *s)
{
	free(s->cycles);
	free(s->clean);
	memset(s, 0, sizeof(*s));
}

/* ---- the session ---- */

struct harness_session *harness_session_new(const struct harness_config *cfg,
					    const struct harness_clock *clock)
{
	struct harness_session *s = xcalloc(1, sizeof(*s));
	s->cfg = cfg;
	s->clock = clock ? clock : harness_clock_real();
	s->papi = !clock && !cfg->force_tsc && !cfg->check_only && timing_papi_works();
	for (int k = 0; k < PROBE_COUNT; k++)
		s->best[k] = cfg->best_hint[k] >= 1.0 / 16 ? cfg->best_hint[k] : INFINITY;
	s->alu_kept = s->best[PROBE_ALU];
	return s;
}

void harness_session_delete(struct harness_session *s)
{
	free(s);
}

int harness_session_papi(const struct harness_session *s)
{
	return s->papi;
}

const double *harness_session_best(const struct harness_session *s)
{
	return s->best;
}

unsigned harness_session_replaced(const struct harness_session *s)
{
	return s->replaced;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The FP adds' latency in cycles: the median of FP_RATIO_POINTS points'
 * ratios of the two calibrations, the nearest integer where it is within
 * 3% of one (a latency is a whole number of cycles; a sibling that slows
 * the chain of adds over most of the points moves the median off it, and
 * such a median is taken only while no latency is known). Learned when the
 * session warms up and again at each rebase, so that a wrong one costs a
 * kernel REBASE_AFTER seconds, not the rest of the session. */
static void learn_fp_ratio(struct harness_session *s)
{
	const struct harness_clock *c = s->clock;
	if (!c->fp_chain)
		return;
	double r[FP_RATIO_POINTS];
	unsigned n = 0;
	for (unsigned i = 0; i < FP_RATIO_POINTS; i++) {
		struct probe_point p = {.chain = c->chain(c->ctx)};
		p.fp_chain = c->fp_chain(c->ctx);
		if ((r[n] = fp_ratio(&p)) > 0)
			n++;
	}
	if (n < FP_RATIO_POINTS / 2)
		return;
	qsort(r, n, sizeof(double), by_double);
	double m = r[n / 2], whole = round(m);
	if (whole >= 1 && fabs(m - whole) <= FP_RATIO_SLACK * whole)
		s->fp_ratio = whole;
	else if (s->fp_ratio <= 0) /* a first guess; a whole one replaces it */
		s->fp_ratio = m;
}

/* The best is a reference kept across runs and lowered only; a machine can
 * run the probes slower for long (a busy sibling hardware thread, another
 * guest of the host: in core cycles, so no clock change explains it), and
 * then no repetition would ever be clean (on this 2-core Zen 5 VM the load
 * probe ran 5-10% slower than its best for hours, every kernel "disturbed").
 * So after REBASE_AFTER seconds of a kernel with no clean repetition (a
 * burst of a sibling's work is still caught: the probes exist for it),
 * the probes are watched for `look` seconds: a probe whose median over
 * agreeing points is out of its best's clean band (more than WIDE_SLACK
 * above it, or below LOW_SLACK) but not beyond REBASE_MAX gets that
 * median as its best, for this session (the reference kept is not
 * raised), unless its fast tenth is still within the band: a sibling
 * that comes and goes, whose quiet moments the kernel waits for (on a Zen
 * 3 VM whose core another guest shared, the probes ran 1.1-1.9 times their
 * best, changing within milliseconds; workers rebased them to 1.14-1.48
 * times, and kernels came out 5-50% slow as clean: a store 0.765 cycles,
 * 0.500 a moment before; ADDPD_XMM_XMM MOV_GPR64_M64 0.596, 0.501).
 * A probe other than the ALU probe whose every point of the look but the
 * slowest nine in ten is UNREACHABLE times its best, while the ALU probe
 * runs at its kept best, is not a busy host (which slows the ALU probe
 * too; a sibling that slows the loads alone comes and goes, and its quiet
 * moments bring the fast tenth back into reach) but a reference no
 * repetition can reach: one taken in a glitch and kept since (on a Zen 3
 * VM the fp probe's kept best was 0.298 cycles an addpd, which two FP
 * adders cannot run: every kernel of a build was then disturbed, the build
 * never ended). The fast tenth's speed is its best from now on, and the
 * reference kept is replaced (harness_session_replaced). So is one whose
 * fast tenth is out of its clean band in MISSED_LOOKS looks in a row with
 * the ALU probe at its best, however near: a reference kept by a perpi
 * that took it from points where the clock changed (fp 1.2 times its speed
 * now, front 1.3 on an Intel Xeon, see probe) stays out of reach, between
 * REBASE_MAX and UNREACHABLE, and every kernel was disturbed (the front
 * one's, 0.143 cycles an idiom, let 4% of repetitions through, those the
 * probe ran fastest); a sibling's spells come and go within a look, their
 * quiet moments reach the band and start the count again. */
static void rebase(struct harness_session *s, double look)
{
	enum { MAX_POINTS = 512 };
	static double v[PROBE_COUNT][MAX_POINTS];
	unsigned n = 0;
	struct probe_point a, b;
	double start = perpi_now(), speed[PROBE_COUNT];
	learn_fp_ratio(s);
	probe(s, &a);
	for (unsigned i = 0; n < MAX_POINTS && (i < 64 || perpi_now() - start < look); i++) {
		probe(s, &b);
		if (chains_agree(s, &a, &b)) {
			probe_speed(&a, &b, speed);
			for (int k = 0; k < PROBE_COUNT; k++)
				v[k][n] = speed[k];
			n++;
		}
		a = b;
	}
	if (n < 16)
		return;
	double median[PROBE_COUNT];
	for (int k = 0; k < PROBE_COUNT; k++) {
		qsort(v[k], n, sizeof(double), by_double);
		median[k] = v[k][n / 2];
	}
	/* The core's integer side at its kept speed: no host or sibling takes
	 * the core now (they slow the ALU probe first) */
	int alu_calm = isfinite(s->alu_kept) && median[PROBE_ALU] <= s->alu_kept * WIDE_SLACK &&
		       median[PROBE_ALU] >= s->alu_kept * LOW_SLACK;
	for (int k = 0; k < PROBE_COUNT; k++) {
		/* the look's fast end: where a sibling's quiet moments show */
		double fast = v[k][n / 10];
		int missed = k != PROBE_ALU && alu_calm && fast > s->best[k] * wide_slack(k);
		s->missed[k] = missed ? s->missed[k] + 1 : 0;
		if (!isfinite(s->best[k]) || (median[k] <= s->best[k] * wide_slack(k) &&
					      median[k] >= s->best[k] * LOW_SLACK))
			continue;
		if (median[k] > s->best[k] && fast <= s->best[k] * wide_slack(k))
			continue; /* it still reaches its best: wait for that */
		int unreachable = k != PROBE_ALU && alu_calm &&
				  (fast > s->best[k] * UNREACHABLE || s->missed[k] >= MISSED_LOOKS);
		if (median[k] > s->best[k] * REBASE_MAX && !unreachable)
			continue;
		if (getenv("PERPI_BENCH_TIMES") && (unreachable || !s->warned++))
			fprintf(stderr,
				"perpi: worker: probe %s runs at %.2fx its best%s\n",
				timing_probe_names[k], median[k] / s->best[k],
				unreachable ? ", the ALU probe at its own: the reference is out "
					      "of reach, replaced"
					    : ": measuring against its speed now");
		s->best[k] = unreachable ? fast : median[k];
		if (unreachable) {
			s->replaced |= 1u << k;
			s->missed[k] = 0;
		}
	}
}

void harness_session_warm_up(struct harness_session *s)
{
	const struct harness_clock *c = s->clock;
	s->overhead = c->overhead(c->ctx);
	double start = perpi_now();
	/* let the core reach its clock before the first probe counts */
	while (perpi_now() - start < 0.002)
		c->chain(c->ctx);
	learn_fp_ratio(s);
	/* without a reference from earlier runs, look for the best probes longer */
	int known = 1;
	for (int k = 0; k < PROBE_COUNT; k++)
		known &= isfinite(s->best[k]);
	double look = known ? 0 : FIRST_LOOK;
	struct probe_point a, b;
	probe(s, &a);
	for (int i = 0; i < 48 || (i < 4000 && perpi_now() - start < look); i++) {
		probe(s, &b);
		update_best(s, &a, &b);
		a = b;
	}
}

/* One repetition between the points before and *after: its cycles per
 * kernel iteration, and whether it was clean (*stolen: the calibrations
 * around it disagree, the host took time from this CPU). */
static int repetition(struct harness_session *s, harness_kernel_fn fn,
		      const struct harness_job *job, void *read, void *write,
		      const struct probe_point *before, struct probe_point *after,
		      struct harness_samples *out, struct pending *p, int *stolen)
{
	const struct harness_clock *c = s->clock;
	uint64_t cyc = 0, ins = 0;
	if (s->papi)
		timing_papi_start();
	uint64_t t0 = c->tsc(c->ctx);
	c->run(c->ctx, fn, job, read, write);
	uint64_t t1 = c->tsc(c->ctx);
	if (s->papi)
		timing_papi_stop(&cyc, &ins);
	probe(s, after);
	double tpc = ticks_per_cycle(before, after);
	double ticks = (double)(t1 - t0) - (double)s->overhead;
	double cycles = s->papi ? (double)cyc : ticks / tpc;
	double speed[PROBE_COUNT];
	int agree = chains_agree(s, before, after);
	*stolen = !clocks_agree(before, after);
	update_best(s, before, after);
	probe_speed(before, after, speed);
	add_sample(out, p, cycles / job->divisor, speed, agree, tpc);
	int clean = agree && probes_clean(s, speed);
	if (getenv("PERPI_DEBUG_WORKER") && out->n < 40)
		fprintf(stderr,
			"chain %lu %lu fp-add %.3f %.3f/%.3f alu %.3f/%.3f load %.3f/%.3f fp %.3f/%.3f "
			"front %.3f/%.3f cycles %.0f clean %d\n",
			(unsigned long)before->chain, (unsigned long)after->chain, fp_ratio(before),
			fp_ratio(after), s->fp_ratio, speed[0],
			s->best[0], speed[1], s->best[1], speed[2], s->best[2], speed[3],
			s->best[3], cycles, clean);
	return clean;
}

/* Repetitions, each between two probe points, until NUM_MEASURES clean
 * ones agree (or enough more were taken, or the time budget ran out). A
 * streak of disturbed repetitions in which the host took time from this
 * CPU (another task, a steal) means it is busy: wait a little, for it to
 * be done. A streak of probes slowed alone (a sibling thread of another
 * guest sharing the core) is not waited for: its quiet moments come and
 * go in milliseconds, and only a repetition running then catches one
 * (sleeping 2 ms after each 8 repetitions, a worker of a Zen 3 VM so
 * shared ran 13% of the time, and a build's kernels took seconds each). */
void harness_session_measure(struct harness_session *s, harness_kernel_fn fn,
			     const struct harness_job *job, void *read, void *write,
			     struct harness_samples *out)
{
	const struct harness_config *cfg = s->cfg;
	const struct harness_clock *c = s->clock;
	unsigned m = cfg->measures, dirty_streak = 0, stolen_streak = 0;
	struct pending p = {0};
	double start = perpi_now(), last_clean = start;
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < cfg->warmup; i++)
		c->run(c->ctx, fn, job, read, write);
	struct probe_point before, after;
	probe(s, &before);
	for (;;) {
		int stolen = 0;
		int clean = repetition(s, fn, job, read, write, &before, &after, out, &p, &stolen);
		dirty_streak = clean ? 0 : dirty_streak + 1;
		stolen_streak = clean ? 0 : stolen_streak + stolen;
		before = after;
		if (clean)
			last_clean = perpi_now();
		else if (perpi_now() - last_clean > REBASE_AFTER) {
			rebase(s, REBASE_LOOK);
			last_clean = perpi_now();
			probe(s, &before);
		}
		if (clean && ++out->n_clean >= m) {
			classify(out, &p, s);
			if (out->n_clean >= m && (clean_spread(out) <= cfg->max_spread ||
						  out->n_clean >= m * cfg->max_attempts))
				break;
		}
		if (perpi_now() - start > cfg->max_seconds)
			break;
		if (dirty_streak >= 8 && stolen_streak) {
			struct timespec ts = {0, 2000000};
			nanosleep(&ts, NULL);
			for (unsigned i = 0; i < cfg->warmup; i++)
				c->run(c->ctx, fn, job, read, write);
			probe(s, &before);
			dirty_streak = stolen_streak = 0;
		}
	}
	classify(out, &p, s);
	if (getenv("PERPI_BENCH_TIMES"))
		fprintf(stderr, "perpi: worker: %u repetitions, %u clean, %.1f ms\n", out->n,
			out->n_clean, 1e3 * (perpi_now() - start));
	out->taken = out->n;
	trim(out);
	free(p.speed);
	free(p.agree);
}
