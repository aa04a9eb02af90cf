/* The evaluation of predicted cycles: see eval_cycles.h. */
#include "palmed/eval_cycles.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "ilp/blocks.h"
#include "ilp/filter.h"
#include "ilp/trace_file.h"
#include "palmed/cycles.h"
#include "palmed/eval.h"
#include "palmed/lift.h"

#define MCA "llvm-mca-19"
#define MCA_ITERATIONS 100

const char *const eval_cycles_predictor[PRED_COUNT] = {"perpi", "bound", "llvm-mca"};

/* One pass feeds the blocks and the cycle model. */
struct replay {
	struct blocks *blocks;
	struct cycles *cycles;
	uint64_t entry; /* the first event's instruction: the recorded function */
	int started;
};

static int replay_event(void *ctx, const struct perpi_event *ev)
{
	struct replay *r = ctx;
	if (!r->started) {
		r->entry = ev->insn->addr;
		r->started = 1;
	}
	cycles_event(r->cycles, ev);
	return blocks_event(r->blocks, ev);
}

/* The blocks as llvm-mca regions, one per block of the function. */
static char *mca_source(const struct blocks *b, const struct blocks_function *fn)
{
	const struct block *blk;
	struct strbuf s;
	blocks_list(b, &blk);
	strbuf_init(&s);
	strbuf_addf(&s, ".intel_syntax noprefix\n");
	for (size_t i = 0; i < fn->n; i++) {
		const struct block *k = &blk[fn->shares[i].block];
		strbuf_addf(&s, "# LLVM-MCA-BEGIN b%zu\n", i);
		for (size_t j = 0; j < k->n; j++)
			strbuf_addf(&s, "%s\n", k->insns[j]->text);
		strbuf_addf(&s, "# LLVM-MCA-END b%zu\n", i);
	}
	return s.buf;
}

static int run_mca(const char *src, const char *out)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (!freopen(out, "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(127);
		char iter[32];
		snprintf(iter, sizeof(iter), "-iterations=%d", MCA_ITERATIONS);
		execlp(MCA, MCA, "-mcpu=native", iter,
		       "-skip-unsupported-instructions=parse-failure", src, (char *)NULL);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* llvm-mca's cycles per iteration of each region ("[i] Code Region - bi",
 * then "Total Cycles: N"), into cycles[0..n); NAN where missing. */
static void parse_mca(FILE *f, double *cycles, size_t n)
{
	char line[512];
	long region = -1;
	for (size_t i = 0; i < n; i++)
		cycles[i] = NAN;
	while (fgets(line, sizeof(line), f)) {
		const char *r = strstr(line, "Code Region - b");
		double total;
		if (r)
			region = strtol(r + strlen("Code Region - b"), NULL, 10);
		else if (sscanf(line, "Total Cycles: %lf", &total) == 1 && region >= 0 &&
			 (size_t)region < n)
			cycles[region] = total / MCA_ITERATIONS;
	}
}

/* sum over the function's blocks of occurrences x llvm-mca's cycles. */
static int mca_lifted(const struct blocks *b, const struct blocks_function *fn, double *out)
{
	char src[] = "/tmp/perpi-mca-XXXXXX", res[] = "/tmp/perpi-mca-out-XXXXXX";
	int fd = mkstemp(src), fd2 = mkstemp(res), rc = -1;
	char *text = mca_source(b, fn);
	double *cyc = xcalloc(fn->n + 1, sizeof(*cyc));
	if (fd >= 0 && fd2 >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text) &&
	    close(fd) == 0 && (fd = -1) && run_mca(src, res) == 0) {
		FILE *f = fopen(res, "r");
		if (f) {
			parse_mca(f, cyc, fn->n);
			fclose(f);
			*out = 0;
			rc = 0;
			for (size_t i = 0; i < fn->n; i++) {
				if (isnan(cyc[i]))
					rc = -1;
				else
					*out += (double)fn->shares[i].occurrences * cyc[i];
			}
		}
	}
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
	unlink(src);
	unlink(res);
	free(text);
	free(cyc);
	return rc < 0 ? perpi_set_error("llvm-mca failed on a block") : 0;
}

/* The lifted bound and llvm-mca over the function's blocks in b. */
static void lifted(const struct blocks *b, uint64_t entry, const struct model *m, int use_mca,
		   double *bound, double *mca)
{
	struct lift *l = lift_new(m, b);
	struct lift_figures lf;
	lift_function(l, entry, &lf);
	*bound = lf.cycles;
	lift_delete(l);
	const struct blocks_function *fn = blocks_function(b, entry);
	*mca = NAN;
	if (use_mca && fn && mca_lifted(b, fn, mca) < 0)
		*mca = NAN;
}

static int blocks_observe_event(void *blocks, const struct perpi_event *ev)
{
	return blocks_event(blocks, ev);
}

static void blocks_observe(void *blocks, const struct engine_step_info *info)
{
	blocks_observe_event(blocks, info->ev);
}

/* The bound and llvm-mca of the first call alone (a replay of it). */
static int first_call(const char *path, const char *function, uint64_t entry,
		      const struct model *m, int use_mca, double *bound, double *mca)
{
	struct filter_options o;
	struct filter_result res;
	struct trace_reader *reader;
	struct blocks *b = blocks_new();
	struct filter_observer obs = {blocks_observe, b, 0};
	filter_options_init(&o);
	o.input = path;
	o.function = function;
	o.call = 1;
	int rc = filter_run(&o, &obs, 1, &res, &reader);
	if (rc == 0) {
		blocks_finish(b);
		lifted(b, entry, m, use_mca, bound, mca);
		filter_result_done(&res);
		trace_reader_close(reader);
	}
	blocks_delete(b);
	return rc;
}

/* The figures of one call: the mean over the calls but the first (whose
 * code, data and predictor start cold), or the only one. */
static void fill(struct eval_cycles_kernel *k, const struct replay *r, const char *path,
		 const char *function, const struct model *m, int use_mca)
{
	struct cycles_figures f;
	const double *inst;
	for (int p = 0; p < PRED_COUNT; p++)
		k->pred[p] = NAN;
	size_t n = cycles_function_instances(r->cycles, r->entry, &inst);
	if (cycles_function(r->cycles, r->entry, &f) < 0 || !n)
		return;
	size_t skip = n > 1 ? 1 : 0;
	double sum = 0, bound, mca, bound1 = 0, mca1 = 0;
	for (size_t i = skip; i < n; i++)
		sum += inst[i];
	k->calls = f.calls;
	k->insns = f.insns / f.calls;
	k->pred[PRED_PERPI] = sum / (double)(n - skip);
	k->l1_miss_rate = cycles_l1_miss_rate(&f);
	k->flagged = cycles_flagged(&f);
	k->mispredicts = (double)f.mispredicts / (double)f.calls;
	lifted(r->blocks, r->entry, m, use_mca, &bound, &mca);
	if (skip && first_call(path, function, r->entry, m, use_mca, &bound1, &mca1) < 0) {
		perpi_warn("%s: %s", path, perpi_error());
		return;
	}
	k->pred[PRED_BOUND] = (bound - bound1) / (double)(f.calls - skip);
	k->pred[PRED_MCA] = (mca - mca1) / (double)(f.calls - skip);
}

int eval_cycles_predict(const char *path, const char *function, const struct model *m,
			const struct core *c, int use_mca, struct eval_cycles_kernel *k)
{
	struct trace_reader *tr = trace_reader_open(path);
	if (!tr)
		return -1;
	struct replay r = {blocks_new(), cycles_new(m, c), 0, 0};
	int rc = trace_reader_replay(tr, replay_event, &r);
	if (rc == 0 && !r.started)
		rc = perpi_set_error("%s: an empty recording", path);
	if (rc == 0) { /* (the blocks' instructions are the reader's) */
		blocks_finish(r.blocks);
		cycles_finish(r.cycles);
		fill(k, &r, path, function, m, use_mca);
		if (isnan(k->pred[PRED_PERPI]))
			rc = perpi_set_error("%s: the recorded function never returned", path);
	}
	cycles_delete(r.cycles);
	blocks_delete(r.blocks);
	trace_reader_close(tr);
	return rc < 0 ? -1 : 0;
}

static int covered(const struct eval_cycles_kernel *k, int p)
{
	return !isnan(k->native) && k->native > 0 && !isnan(k->pred[p]) &&
	       !(p == PRED_PERPI && k->flagged);
}

void eval_cycles_metrics(const struct eval_cycles_kernel *ks, size_t n, int predictor,
			 struct eval_cycles_metrics *out)
{
	double *a = xcalloc(n + 1, sizeof(*a)), *b = xcalloc(n + 1, sizeof(*b)), sum = 0;
	size_t measured = 0, m = 0;
	for (size_t i = 0; i < n; i++) {
		measured += !isnan(ks[i].native);
		if (!covered(&ks[i], predictor))
			continue;
		double e = (ks[i].pred[predictor] - ks[i].native) / ks[i].native;
		sum += e * e;
		a[m] = ks[i].pred[predictor];
		b[m++] = ks[i].native;
	}
	out->covered = m;
	out->coverage = measured ? (double)m / (double)measured : 0;
	out->rms = m ? sqrt(sum / (double)m) : NAN;
	out->tau = m > 1 ? eval_kendall_tau(a, b, m) : NAN;
	free(a);
	free(b);
}

int eval_cycles_write_csv(const struct eval_cycles_kernel *ks, size_t n, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return perpi_set_error("cannot write '%s': %s", path, strerror(errno));
	fprintf(f, "kernel,native");
	for (int p = 0; p < PRED_COUNT; p++)
		fprintf(f, ",%s", eval_cycles_predictor[p]);
	fprintf(f, ",calls,instructions,l1_miss_rate,flagged,mispredicts_per_call,measure,driver,"
		   "slowed\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s,%.1f", ks[i].name, ks[i].native);
		for (int p = 0; p < PRED_COUNT; p++)
			fprintf(f, ",%.1f", ks[i].pred[p]);
		fprintf(f, ",%lu,%lu,%.4f,%d,%.2f,%.1f,%.1f,%d\n", ks[i].calls, ks[i].insns,
			ks[i].l1_miss_rate, ks[i].flagged, ks[i].mispredicts, ks[i].measured,
			ks[i].driver, ks[i].slowed);
	}
	if (fclose(f) != 0)
		return perpi_set_error("cannot write '%s': %s", path, strerror(errno));
	return 0;
}

/* ---- the scatter plot ---- */

struct axis {
	double lo, hi; /* decades: 10^lo .. 10^hi */
	double margin, plot;
};

static double at(const struct axis *a, double v)
{
	return a->plot * (log10(v) - a->lo) / (a->hi - a->lo);
}

static void svg_frame(FILE *f, const struct axis *a, const char *title)
{
	double m = a->margin, p = a->plot, size = p + 2 * m;
	fprintf(
	    f,
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
	    "font-family=\"sans-serif\" font-size=\"12\">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	    "<text x=\"%g\" y=\"24\" text-anchor=\"middle\" font-size=\"13\">%s</text>\n"
	    "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"black\"/>\n",
	    size, size, size / 2, title, m, m, p, p);
	/* the diagonal and the +-15% band */
	for (int k = -1; k <= 1; k++) {
		double r = log10(1 + 0.15 * k) / (a->hi - a->lo) * p;
		fprintf(f,
			"<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"gray\" "
			"stroke-dasharray=\"%s\"/>\n",
			m, m + p - r, m + p - r, m - r + 0 * r, k ? "2 4" : "6 3");
	}
	for (int d = (int)a->lo; d <= (int)a->hi; d++) {
		double x = at(a, pow(10, d));
		fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">1e%d</text>\n", m + x,
			m + p + 16, d);
		fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">1e%d</text>\n", m - 6,
			m + p - x + 4, d);
	}
	fprintf(f,
		"<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">native cycles per call</text>\n"
		"<text x=\"16\" y=\"%g\" text-anchor=\"middle\" transform=\"rotate(-90 16 %g)\">"
		"predicted cycles per call</text>\n",
		size / 2, size - 12, size / 2, size / 2);
}

int eval_cycles_write_svg(const struct eval_cycles_kernel *ks, size_t n, int predictor,
			  const char *path)
{
	struct axis a = {INFINITY, -INFINITY, 60, 380};
	struct eval_cycles_metrics mt;
	for (size_t i = 0; i < n; i++)
		if (covered(&ks[i], predictor)) {
			double lo = fmin(ks[i].native, ks[i].pred[predictor]);
			double hi = fmax(ks[i].native, ks[i].pred[predictor]);
			a.lo = fmin(a.lo, floor(log10(fmax(lo, 1))));
			a.hi = fmax(a.hi, ceil(log10(fmax(hi, 10))));
		}
	if (!(a.hi > a.lo))
		a.lo = 2, a.hi = 5;
	eval_cycles_metrics(ks, n, predictor, &mt);
	FILE *f = fopen(path, "w");
	if (!f)
		return perpi_set_error("cannot write '%s': %s", path, strerror(errno));
	char title[160];
	snprintf(title, sizeof(title), "%s: RMS error %.1f%%, Kendall tau %.3f, coverage %.0f%%",
		 eval_cycles_predictor[predictor], 100 * mt.rms, mt.tau, 100 * mt.coverage);
	svg_frame(f, &a, title);
	for (size_t i = 0; i < n; i++)
		if (covered(&ks[i], predictor))
			fprintf(
			    f,
			    "<circle cx=\"%g\" cy=\"%g\" r=\"3.5\" fill=\"steelblue\" "
			    "fill-opacity=\"0.7\"><title>%s: native %.0f, predicted %.0f</title>"
			    "</circle>\n",
			    a.margin + at(&a, ks[i].native),
			    a.margin + a.plot - at(&a, ks[i].pred[predictor]), ks[i].name,
			    ks[i].native, ks[i].pred[predictor]);
	fprintf(f, "</svg>\n");
	if (fclose(f) != 0)
		return perpi_set_error("cannot write '%s': %s", path, strerror(errno));
	return 0;
}

static void print_cell(FILE *out, const struct eval_cycles_kernel *k, int p)
{
	if (isnan(k->pred[p]))
		fprintf(out, " %10s %7s", "-", "");
	else if (isnan(k->native))
		fprintf(out, " %10.0f %7s", k->pred[p], "");
	else
		fprintf(out, " %10.0f %+6.1f%%", k->pred[p],
			100 * (k->pred[p] - k->native) / k->native);
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* perpi measure against the kernels' own rdtsc, over the calls of 1,000
 * cycles or more (issue 11: within 5%). */
static void print_agreement(FILE *out, const struct eval_cycles_kernel *ks, size_t n)
{
	double *d = xcalloc(n + 1, sizeof(double)), worst = -1;
	size_t m = 0, at = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(ks[i].measured) && !isnan(ks[i].driver) && ks[i].driver >= 1000) {
			d[m] = fabs(ks[i].measured - ks[i].driver) / ks[i].driver;
			if (d[m] > worst)
				worst = d[m], at = i;
			m++;
		}
	if (m) {
		qsort(d, m, sizeof(double), by_double);
		fprintf(out,
			"\nperpi measure against the kernels' own rdtsc (%zu kernel%s of 1,000 "
			"cycles or more): median difference %.1f%%, largest %.1f%% (%s)\n",
			m, m == 1 ? "" : "s", 100 * d[m / 2], 100 * worst, ks[at].name);
	}
	free(d);
}

void eval_cycles_print(FILE *out, const struct eval_cycles_kernel *ks, size_t n)
{
	fprintf(out, "%-22s %9s %18s %18s %18s %7s %6s\n", "kernel", "native", "perpi", "bound",
		"llvm-mca", "L1miss", "mispr");
	size_t slowed = 0;
	for (size_t i = 0; i < n; i++) {
		slowed += ks[i].slowed;
		fprintf(out, "%-22s %8.0f%s", ks[i].name, ks[i].native, ks[i].slowed ? "~" : " ");
		for (int p = 0; p < PRED_COUNT; p++)
			print_cell(out, &ks[i], p);
		fprintf(out, " %6.1f%%%s %6.1f\n", 100 * ks[i].l1_miss_rate,
			ks[i].flagged ? "!" : " ", ks[i].mispredicts);
	}
	fprintf(out, "\n%-10s %12s %12s %10s\n", "predictor", "RMS error", "Kendall tau",
		"coverage");
	for (int p = 0; p < PRED_COUNT; p++) {
		struct eval_cycles_metrics mt;
		eval_cycles_metrics(ks, n, p, &mt);
		if (!mt.covered) /* (llvm-mca left out, or it failed on every kernel) */
			fprintf(out, "%-10s %12s %12s %6.0f%% (0 of %zu)\n", eval_cycles_predictor[p],
				"-", "-", 0.0, n);
		else
			fprintf(out, "%-10s %11.1f%% %12.3f %6.0f%% (%zu of %zu)\n",
				eval_cycles_predictor[p], 100 * mt.rms, mt.tau, 100 * mt.coverage,
				mt.covered, n);
	}
	print_agreement(out, ks, n);
	if (slowed)
		fprintf(out,
			"~ %zu kernel%s timed on a core that ran perpi's throughput probe more than "
			"10%% slower than its best after every run (another thread or VM shared it): "
			"the native figure may be high\n",
			slowed, slowed == 1 ? "" : "s");
}
