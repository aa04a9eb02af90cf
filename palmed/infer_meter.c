/* Measuring in slices, with progress and an estimate of the time left:
 * see infer_meter.h. */
#include "palmed/infer_meter.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "palmed/bench.h"
#include "palmed/kernel.h"

/* A slice should take about this long: short enough that a stop request
 * waits little, long enough that the runner's fixed cost per campaign
 * (assembling and linking once: 60 ms, several times that on a busy
 * host) stays small; never fewer than SLICE_MIN kernels, or on a busy host
 * that cost would eat the time. */
#define SLICE_SECONDS 1.0
#define SLICE_MIN 16
#define SLICE_MAX 256
/* The estimate of the time left follows about this many kernels. */
#define RECENT_KERNELS 2000.0
/* In a log, a progress line at most this often (seconds). */
#define LOG_EVERY 60.0
/* The default wait for a busy host, in all (infer_meter.busy_wait), and
 * the longest pause between two tries. */
#define BUSY_WAIT 600.0
#define BUSY_PAUSE_MAX 30.0

void infer_meter_init(struct infer_meter *mt, const struct measure *ms,
		      const volatile sig_atomic_t *stop, FILE *progress)
{
	mt->ms = ms;
	mt->stop = stop;
	mt->progress = progress;
	mt->tty = progress && isatty(fileno(progress));
	mt->seconds_per_kernel = 0;
	mt->recent_seconds = mt->recent_kernels = 0;
	mt->kernels = 0;
	mt->planned = 0;
	mt->last_line = 0;
	mt->line_open = 0;
	mt->label[0] = '\0';
	mt->busy_wait = BUSY_WAIT;
	mt->busy_waited = 0;
	mt->reps_seen = mt->clean_seen = 0;
	mt->host[0] = '\0';
}

/* On a quiet host most repetitions are clean; on a Zen 3 VM whose cores
 * another guest shared, 15 clean ones took 500-6,500 repetitions, and a
 * build said "about 330 min left" with no word of why. */
const char *infer_meter_host(struct infer_meter *mt)
{
	unsigned long all, clean;
	if (!mt->ms || !mt->ms->repetitions)
		return mt->host;
	mt->ms->repetitions(mt->ms->ctx, &all, &clean);
	if (all < mt->reps_seen || clean < mt->clean_seen) /* counts restarted */
		mt->reps_seen = mt->clean_seen = 0;
	unsigned long da = all - mt->reps_seen, dc = clean - mt->clean_seen;
	if (da < INFER_METER_HOST_REPS)
		return mt->host;
	mt->reps_seen = all;
	mt->clean_seen = clean;
	if (2 * dc >= da)
		mt->host[0] = '\0';
	else
		snprintf(mt->host, sizeof(mt->host), "; the host disturbed %.0f%% of repetitions",
			 100.0 * (double)(da - dc) / (double)da);
	return mt->host;
}

int infer_meter_stopped(const struct infer_meter *mt)
{
	return mt->stop && *mt->stop;
}

void infer_meter_eta(const struct infer_meter *mt, unsigned long remaining, char *buf, size_t size)
{
	double s = mt->seconds_per_kernel * (double)remaining;
	if (mt->seconds_per_kernel <= 0 || remaining == 0)
		snprintf(buf, size, "%s", "");
	else if (s < 90)
		snprintf(buf, size, ", about %.0f s left", ceil(s / 5) * 5);
	else
		snprintf(buf, size, ", about %.0f min left", ceil(s / 60));
}

static void slice(const struct infer_meter *mt, const struct kernel *ks, size_t n, double *cycles,
		  int *status, char **errors, char **helpers)
{
	if (mt->ms->cycles_many) {
		mt->ms->cycles_many(mt->ms->ctx, ks, n, cycles, status, errors, helpers);
	} else {
		for (size_t i = 0; i < n; i++) {
			status[i] = mt->ms->cycles(mt->ms->ctx, &ks[i], &cycles[i]);
			errors[i] = status[i] < 0 ? xstrdup(perpi_error()) : NULL;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (status[i] == 0 && !(cycles[i] > 0 && isfinite(cycles[i]))) {
			status[i] = -1;
			errors[i] = xasprintf("kernel measured at %g cycles", cycles[i]);
		}
}

/* On a terminal a line updated a few times a second; in a log a line
 * that stays, once a minute (besides the stages' summaries: a long stage
 * would otherwise say nothing for many minutes). */
static void show(struct infer_meter *mt, size_t done, size_t n, int force)
{
	double now = perpi_now();
	if (!mt->progress || (!force && now - mt->last_line < (mt->tty ? 0.25 : LOG_EVERY)))
		return;
	if (!mt->tty && mt->last_line == 0) { /* the first minute starts now */
		mt->last_line = now;
		return;
	}
	char eta[48], count[48] = "";
	infer_meter_eta(mt, (unsigned long)(n - done) + mt->planned, eta, sizeof(eta));
	if (n > 1 && done < n)
		snprintf(count, sizeof(count), " (%zu/%zu kernels)", done, n);
	const char *host = infer_meter_host(mt);
	if (mt->tty) {
		fprintf(mt->progress, "\r\033[Kpalmed: %s%s%s%s", mt->label, count, eta, host);
		mt->line_open = 1;
	} else {
		fprintf(mt->progress, "palmed: %s%s%s%s\n", mt->label, count, eta, host);
	}
	fflush(mt->progress);
	mt->last_line = now;
}

void infer_meter_label(struct infer_meter *mt, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(mt->label, sizeof(mt->label), fmt, ap);
	va_end(ap);
	show(mt, 0, 0, 0);
}

void infer_meter_note(struct infer_meter *mt, const char *fmt, ...)
{
	if (!mt->progress)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (mt->line_open)
		fprintf(mt->progress, "\r\033[K");
	mt->line_open = 0;
	fprintf(mt->progress, "palmed: ");
	vfprintf(mt->progress, fmt, ap);
	fprintf(mt->progress, "\n");
	fflush(mt->progress);
	va_end(ap);
}

size_t infer_meter_run(struct infer_meter *mt, const struct kernel *ks, size_t n, double *cycles,
		       int *status, char **errors)
{
	return infer_meter_run_helpers(mt, ks, n, cycles, status, errors, NULL);
}

/* Sleeps s seconds, or less when a stop is requested. */
static void pause_for(const struct infer_meter *mt, double s)
{
	for (double end = perpi_now() + s; perpi_now() < end && !infer_meter_stopped(mt);) {
		struct timespec ts = {0, 100000000};
		nanosleep(&ts, NULL);
	}
}

static int busy(const int *status, char *const *errors, size_t i)
{
	return status[i] < 0 && errors[i] && strstr(errors[i], BENCH_BUSY_HOST);
}

/* ks[at[0..m)] measured again, in one slice. */
static void retry(const struct infer_meter *mt, const struct kernel *ks, const size_t *at, size_t m,
		  double *cycles, int *status, char **errors, char **helpers)
{
	if (!m)
		return;
	struct kernel *sub = xcalloc(m, sizeof(*sub));
	double *c = xcalloc(m, sizeof(*c));
	int *st = xcalloc(m, sizeof(*st));
	char **er = xcalloc(m, sizeof(*er)), **he = helpers ? xcalloc(m, sizeof(*he)) : NULL;
	for (size_t j = 0; j < m; j++)
		sub[j] = ks[at[j]];
	slice(mt, sub, m, c, st, er, he);
	for (size_t j = 0; j < m; j++) {
		size_t i = at[j];
		free(errors[i]);
		cycles[i] = c[j];
		status[i] = st[j];
		errors[i] = er[j];
		if (helpers) {
			free(helpers[i]);
			helpers[i] = he[j];
		}
	}
	free(sub);
	free(c);
	free(st);
	free(er);
	free(he);
}

/* ks[first] measured again beside ks[control] (a kernel of its slice that
 * came back measured), in one slice: only first's result is taken.
 * Returns whether the control came back measured, undisturbed. */
static int retry_beside(const struct infer_meter *mt, const struct kernel *ks, size_t first,
			size_t control, double *cycles, int *status, char **errors, char **helpers)
{
	struct kernel sub[2] = {ks[first], ks[control]};
	double c[2] = {0, 0};
	int st[2] = {0, 0};
	char *er[2] = {NULL, NULL}, *he[2] = {NULL, NULL};
	slice(mt, sub, 2, c, st, er, helpers ? he : NULL);
	free(errors[first]);
	cycles[first] = c[0];
	status[first] = st[0];
	errors[first] = er[0];
	if (helpers) {
		free(helpers[first]);
		helpers[first] = he[0];
	}
	free(er[1]);
	free(he[1]);
	return st[1] == 0;
}

/* A kernel that comes back disturbed throughout this many times while the
 * control beside it comes back measured disturbs the probes itself (on a
 * Zen 3, CLFLUSH, CLFLUSHOPT and CLWB did, every time: a build waited its
 * 600 s for them): refused, not waited for. Three, and the slowest kernel
 * of the slice as the control (its repetitions the longest, the likeliest
 * to meet a busy spell): a slow kernel on a host that is only mostly busy
 * must not pass for one that disturbs the probes (with two and the first
 * kernel measured as the control, LSL_GPR32_GPR32 was refused beside
 * LSL_GPR16_GPR16, which had measured; alone, all three LSL forms then got
 * 0-1 clean repetitions of 350 in 2 s: refused rightly that time). */
#define SELF_STRIKES 3

/* The kernel of the slice measured whose repetitions are the longest (the
 * most cycles an instruction), or n when none was measured. */
static size_t slowest_measured(const struct kernel *ks, size_t n, const double *cycles,
			       const int *status)
{
	size_t best = n;
	double most = 0;
	for (size_t i = 0; i < n; i++) {
		double per = status[i] == 0 ? cycles[i] / (double)kernel_size(&ks[i]) : 0;
		if (status[i] == 0 && (best == n || per > most)) {
			best = i;
			most = per;
		}
	}
	return best;
}

static void refuse_self(struct infer_meter *mt, const struct kernel *ks, size_t i, size_t control,
			int *status, char **errors)
{
	char *spec = kernel_to_string(&ks[i]), *beside = kernel_to_string(&ks[control]);
	free(errors[i]);
	status[i] = -1;
	/* the reason alone is what a database keeps (96 bytes) */
	char *why = xasprintf("it disturbs the probes itself: disturbed throughout in %d tries, "
			      "a kernel beside it measured",
			      SELF_STRIKES);
	errors[i] = xasprintf("kernel %s: %s (%s)", spec, why, beside);
	if (mt->ms->refused)
		mt->ms->refused(mt->ms->ctx, &ks[i], why);
	free(why);
	free(spec);
	free(beside);
}

/* The kernels of ks[0..n) the host disturbed throughout, measured again
 * once it is calm: a pause (1 s, doubling up to BUSY_PAUSE_MAX), then the
 * first of them, beside the slowest kernel of the slice that came back
 * measured when there is one (the control: a host still busy disturbs it
 * too); when the
 * first comes back measured, the others. Such kernels are the host's loss,
 * not the kernels': refused, they would be missing from the model (a pair
 * of the core, a form unmapped). A kernel disturbed while its control is
 * not, SELF_STRIKES times, is the kernel's loss: refused (refuse_self).
 * Gives up when mt->busy_wait is spent or a stop is requested. */
static void wait_for_host(struct infer_meter *mt, const struct kernel *ks, size_t n, double *cycles,
			  int *status, char **errors, char **helpers)
{
	size_t *waiting = xmalloc((n + 1) * sizeof(*waiting)), nwaiting = 0,
	       control = slowest_measured(ks, n, cycles, status);
	for (size_t i = 0; i < n; i++)
		if (busy(status, errors, i))
			waiting[nwaiting++] = i;
	double pause = 1, start = perpi_now();
	size_t first_count = nwaiting, rounds = 0, self = 0;
	unsigned strikes = 0; /* of waiting[0] */
	if (nwaiting && mt->busy_waited < mt->busy_wait)
		infer_meter_note(mt,
				 "the host is busy: %zu kernel%s had no undisturbed repetition; "
				 "waiting to measure %s again (%.0f s waited before, at most %.0f)",
				 nwaiting, nwaiting == 1 ? "" : "s", nwaiting == 1 ? "it" : "them",
				 mt->busy_waited, mt->busy_wait);
	while (nwaiting && mt->busy_waited < mt->busy_wait && !infer_meter_stopped(mt)) {
		double s = fmin(pause, mt->busy_wait - mt->busy_waited);
		double t0 = perpi_now();
		rounds++;
		pause_for(mt, s);
		mt->busy_waited += perpi_now() - t0;
		pause = fmin(2 * pause, BUSY_PAUSE_MAX);
		if (infer_meter_stopped(mt))
			break;
		/* the first (beside the control), as a test of the host; then
		 * the rest together */
		size_t first = waiting[0], left = 0;
		int calm = 0;
		if (control < n)
			calm =
			    retry_beside(mt, ks, first, control, cycles, status, errors, helpers);
		else
			retry(mt, ks, &first, 1, cycles, status, errors, helpers);
		if (busy(status, errors, first) && calm && ++strikes >= SELF_STRIKES) {
			refuse_self(mt, ks, first, control, status, errors);
			memmove(waiting, waiting + 1, (nwaiting - 1) * sizeof(*waiting));
			left = nwaiting - 1;
			strikes = 0;
			self++;
		} else if (busy(status, errors, first)) {
			left = nwaiting;
		} else {
			retry(mt, ks, waiting + 1, nwaiting - 1, cycles, status, errors, helpers);
			for (size_t j = 1; j < nwaiting; j++)
				if (busy(status, errors, waiting[j]))
					waiting[left++] = waiting[j];
			strikes = 0;
		}
		if (left < nwaiting)
			pause = 1;
		nwaiting = left;
	}
	if (rounds && !infer_meter_stopped(mt)) {
		char also[96] = "";
		if (self)
			snprintf(also, sizeof(also),
				 ", %zu refused (they disturb the probes themselves)", self);
		infer_meter_note(
		    mt, "%zu of the %zu measured after %.0f s%s%s", first_count - nwaiting - self,
		    first_count, perpi_now() - start, also,
		    nwaiting ? "; the others are left out (the wait for the host is spent)" : "");
	}
	free(waiting);
}

size_t infer_meter_run_helpers(struct infer_meter *mt, const struct kernel *ks, size_t n,
			       double *cycles, int *status, char **errors, char **helpers)
{
	if (helpers)
		memset(helpers, 0, n * sizeof(*helpers));
	size_t done = 0, step = SLICE_MIN * 4;
	if (mt->seconds_per_kernel > 0)
		step = (size_t)(SLICE_SECONDS / mt->seconds_per_kernel);
	while (done < n && !infer_meter_stopped(mt)) {
		size_t m = step < SLICE_MIN ? SLICE_MIN : step > SLICE_MAX ? SLICE_MAX : step;
		if (m > n - done)
			m = n - done;
		double t0 = perpi_now();
		slice(mt, ks + done, m, cycles + done, status + done, errors + done,
		      helpers ? helpers + done : NULL);
		double took = perpi_now() - t0;
		/* (the wait is not the kernels' time: left out of the estimate) */
		wait_for_host(mt, ks + done, m, cycles + done, status + done, errors + done,
			      helpers ? helpers + done : NULL);
		/* The time and kernels of about the last RECENT_KERNELS kernels,
		 * each slice weighted by its size: a disturbed spell or a run of
		 * cached kernels moves the estimate, and a stage's short last
		 * slice (the runner's fixed cost over a few kernels) hardly. */
		double keep = exp(-(double)m / RECENT_KERNELS);
		mt->recent_seconds = keep * mt->recent_seconds + took;
		mt->recent_kernels = keep * mt->recent_kernels + (double)m;
		mt->seconds_per_kernel = mt->recent_seconds / mt->recent_kernels;
		step = (size_t)(SLICE_SECONDS / fmax(mt->seconds_per_kernel, 1e-6));
		done += m;
		mt->kernels += m;
		show(mt, done, n, 0);
	}
	for (size_t i = done; i < n; i++) {
		status[i] = -1;
		errors[i] = xstrdup("interrupted");
	}
	return done;
}
