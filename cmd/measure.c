/* perpi measure: native cycles of a program's region or functions, in the
 * unmodified binary (tracer/measure.h): per call (min and median) and in
 * total, the smallest over N runs, TSC ticks converted to core cycles by
 * the calibration chain of palmed/timing.h (or the cycle counter where
 * counters work), the stubs' overhead subtracted. perpi measure -i FILE
 * shows what perpi record --measure kept. */
#define _GNU_SOURCE /* vasprintf */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/measure.h"
#include "common/util.h"
#include "ilp/trace_file.h"
#include "palmed/db.h"
#include "palmed/timing.h"

#define CALIBRATION_PROBES 64

struct measure_cli {
	struct measure_options opt;
	unsigned runs;
	int json;
	const char *output, *input;
	int program; /* index of PROGRAM in argv */
};

static void usage(FILE *out)
{
	fputs("usage: perpi measure [OPTIONS] [--] PROGRAM [ARGS...]\n"
	      "       perpi measure -i FILE [--json] [-o OUT]\n"
	      "Time PROGRAM natively, at full speed and unmodified on disk: the region\n"
	      "between perpi_start() and perpi_stop() when it calls them, else main, or\n"
	      "every call of the --function's. Core cycles per call (min, median) and in\n"
	      "total, the smallest over the runs, the timing overhead subtracted.\n\n"
	      "  --function SYM     time every call of SYM (repeatable)\n"
	      "  --start SYM --stop SYM\n"
	      "                     time from each entry of one to the next entry of the other\n"
	      "  --runs N           run the program N times (default 4)\n"
	      "  --method M         jump (default: a jump at the entry, a breakpoint where\n"
	      "                     none fits) or breakpoint (a stop before every call)\n"
	      "  --cpu N            run perpi and the program on CPU N (default: the current)\n"
	      "  --json             the figures as JSON\n"
	      "  -o FILE            write the figures to FILE (default: stderr; the program\n"
	      "                     keeps stdout)\n"
	      "  -i FILE            show the figures perpi record --measure kept in FILE\n"
	      "                     (on stdout)\n"
	      "  -q                 no warnings\n"
	      "\nExit status: 0 when everything asked for was timed; the program's status,\n"
	      "128+N when signal N killed it, 130 when interrupted, 1 when a function was\n"
	      "never called or a region never ended. 'man perpi-measure' tells how.\n",
	      out);
}

/* "--name VALUE" or "--name=VALUE" at argv[*i]: the value (advancing *i), or NULL. */
static const char *value_of(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	if (strncmp(a, name, n) || (a[n] && a[n] != '='))
		return NULL;
	if (a[n] == '=') {
		(*i)++;
		return a + n + 1;
	}
	if (*i + 1 >= argc) {
		perpi_set_error("%s: needs a value", name);
		return "";
	}
	*i += 2;
	return argv[*i - 1];
}

static int parse_value(struct measure_cli *c, const char *name, const char *v)
{
	char *end;
	if (!*v)
		return -1;
	if (!strcmp(name, "--function")) {
		c->opt.functions = xrealloc(c->opt.functions,
					    (c->opt.n_functions + 1) * sizeof(*c->opt.functions));
		c->opt.functions[c->opt.n_functions++] = (char *)v;
	} else if (!strcmp(name, "--start")) {
		c->opt.start = v;
	} else if (!strcmp(name, "--stop")) {
		c->opt.stop = v;
	} else if (!strcmp(name, "--runs")) {
		long n = strtol(v, &end, 10);
		if (*end || n < 1 || n > 10000)
			return perpi_set_error("--runs %s: not a number of runs (1 to 10000)", v);
		c->runs = (unsigned)n;
	} else if (!strcmp(name, "--method")) {
		if (strcmp(v, "jump") && strcmp(v, "breakpoint"))
			return perpi_set_error("--method %s: jump or breakpoint", v);
		c->opt.method = !strcmp(v, "jump") ? MEASURE_AUTO : MEASURE_BREAKPOINT;
	} else if (!strcmp(name, "--cpu")) {
		long n = strtol(v, &end, 10);
		if (*end || n < 0 || n > 4095)
			return perpi_set_error("--cpu %s: not a CPU number", v);
		c->opt.cpu = (int)n;
	} else if (!strcmp(name, "-o")) {
		c->output = v;
	} else {
		c->input = v;
	}
	return 0;
}

/* 1: parsed; 0: --help printed; -1: bad options (message set). */
static int parse(struct measure_cli *c, int argc, char **argv)
{
	static const char *const valued[] = {"--function", "--start", "--stop", "--runs",
					     "--method",   "--cpu",   "-o",	"-i"};
	int i = 1;
	while (i < argc && argv[i][0] == '-') {
		const char *a = argv[i], *v = NULL;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return usage(stdout), 0;
		if (!strcmp(a, "--json") || !strcmp(a, "-q")) {
			*(a[1] == 'q' ? &perpi_quiet : &c->json) = 1;
			i++;
			continue;
		}
		size_t k = 0;
		for (; k < ARRAY_SIZE(valued) && !v; k++)
			v = value_of(argc, argv, &i, valued[k]);
		if (!v)
			return perpi_set_error("%s: unknown option (perpi measure --help)", a);
		if (parse_value(c, valued[k - 1], v) < 0)
			return -1;
	}
	c->program = i;
	if (c->input && i < argc)
		return perpi_set_error("-i %s: give either a file or a program, not both",
				       c->input);
	if (!c->input && i >= argc)
		return perpi_set_error("no program given (perpi measure --help)");
	return 1;
}

static void on_stop_signal(int sig)
{
	measure_stop_signal = sig;
}

static void problem(struct measure_outcome *o, const char *who, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg;
	if (vasprintf(&msg, fmt, ap) < 0)
		perpi_fatal("out of memory");
	va_end(ap);
	fprintf(stderr, "perpi %s: %s\n", who, msg);
	o->problems = xrealloc(o->problems, (o->n_problems + 1) * sizeof(*o->problems));
	o->problems[o->n_problems++] = msg;
}

/* What a run's end says; 1 when no further run should start. */
static int run_end(struct measure_outcome *o, const char *who, const struct measure_run *r,
		   unsigned k)
{
	if (r->problem[0] && !r->term_signal)
		problem(o, who, "run %u: %s", k + 1, r->problem);
	if (r->interrupted) {
		problem(o, who, "interrupted during run %u: the figures timed so far follow",
			k + 1);
		o->status = 130;
		return 1;
	}
	if (r->term_signal) {
		problem(o, who, "run %u: the program was %s: the figures timed so far follow",
			k + 1, r->problem);
		o->status = 128 + r->term_signal;
		return 1;
	}
	if (r->exit_code && !o->status) {
		problem(o, who, "run %u: the program exited with status %d", k + 1, r->exit_code);
		o->status = r->exit_code;
	}
	if (r->lost)
		problem(o, who, "run %u: %llu calls nested too deep were not timed", k + 1,
			(unsigned long long)r->lost);
	return r->execed;
}

/* Figures that say something was never reached. */
static void check_figures(struct measure_outcome *o, const char *who, unsigned runs)
{
	const struct measured *m = o->summary;
	for (size_t i = 0; i < m->n_figures; i++) {
		const struct measured_figure *f = &m->figures[i];
		if (f->calls)
			continue;
		if (!f->is_region)
			problem(o, who, "--function %s: never called%s in %u run%s", f->name,
				f->unfinished ? " to its return" : "", runs, runs == 1 ? "" : "s");
		else if (!strcmp(f->name, "main"))
			problem(o, who, "main: %s",
				f->unfinished
				    ? "never returned (the program ended inside it: exit() "
				      "or a signal); time a --function or use perpi_stop()"
				    : "never called");
		else
			problem(o, who, "the region %s %s", f->name,
				f->unfinished
				    ? "started but never ended (its stop was never reached)"
				    : "was never entered");
		if (!o->status)
			o->status = 1;
	}
}

/* After run k: the ALU throughput probe now (cycles per add, the fastest
 * of 3: a chain of dependent adds, which the calibration times, runs as
 * fast when another thread shares the core; 8 independent chains do not)
 * against its best on this machine, and
 * the window probe (a split reorder window slows latency-bound code, as a
 * busy sibling thread does to this Zen 5's 448 entries, without slowing
 * the throughput probe: horner's 6,500 cycles a call became 10,400). */
static void check_probe(struct measure_outcome *o, double ratio)
{
	double cpi = timing_probe_cpi(PROBE_ALU, ratio, 3), window = timing_window_ratio();
	int slowed = o->probe_best > 0 && cpi > MEASURE_SLOWED * o->probe_best;
	o->probe_worst = fmax(o->probe_worst, cpi);
	o->window_worst = fmax(o->window_worst, window);
	if (window > timing_window_split()) {
		o->split_runs++;
		slowed = 1;
	}
	o->slowed_runs += (unsigned)slowed;
}

static int run_all(struct measure_outcome *o, const char *who, struct measure_session *s,
		   char *const argv[], unsigned runs)
{
	double ratio = timing_calibrate(CALIBRATION_PROBES), best[PROBE_COUNT];
	char machine[256];
	machine_reference_key(machine, sizeof(machine));
	timing_reference_load(machine, best);
	o->probe_best = best[PROBE_ALU];
	struct measure_run *rs = xcalloc(runs, sizeof(*rs));
	size_t n = 0;
	for (unsigned k = 0; k < runs && !measure_stop_signal; k++) {
		if (measure_run_once(s, argv, ratio, &rs[n]) < 0) {
			problem(o, who, "run %u: %s", k + 1, perpi_error());
			o->status = o->status ? o->status : 1;
			measure_run_done(&rs[n]);
			break;
		}
		ratio = fmin(ratio, timing_calibrate(CALIBRATION_PROBES));
		check_probe(o, ratio);
		if (run_end(o, who, &rs[n++], k))
			break;
	}
	if (measure_stop_signal && o->status != 130) {
		problem(o, who, "interrupted: the figures timed so far follow");
		o->status = 130;
	}
	if (o->slowed_runs - o->split_runs)
		perpi_warn("%s: after %u of %zu runs perpi's throughput probe ran more than %.0f%% "
			   "slower than its best on this machine (%.3f cycles per add, best %.3f): "
			   "another hardware thread or VM shared the core, and the figures may be high",
			   who, o->slowed_runs - o->split_runs, n, 100 * (MEASURE_SLOWED - 1),
			   o->probe_worst, o->probe_best);
	if (o->split_runs)
		perpi_warn("%s: after %u of %zu runs perpi's window probe found the core's reorder "
			   "window split (%.2f, above %.2f): another hardware thread was busy, and the "
			   "figures of latency-bound code may be high",
			   who, o->split_runs, n, o->window_worst, timing_window_split());
	if (n)
		o->summary = measure_summarize(s, rs, n, ratio, runs);
	for (size_t k = 0; k < n; k++)
		measure_run_done(&rs[k]);
	free(rs);
	if (o->summary)
		check_figures(o, who, (unsigned)n);
	return o->status;
}

int measure_collect(const char *who, const struct measure_options *opt, char *const argv[],
		    unsigned runs, struct measure_outcome *out)
{
	memset(out, 0, sizeof(*out));
	struct sigaction sa, old_int, old_term;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal; /* no SA_RESTART: waitpid returns EINTR */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	measure_stop_signal = 0;
	struct measure_options o = *opt;
	o.counter = timing_papi_works();
	struct measure_session *s = measure_new(&o);
	int rc = measure_prepare(s, argv);
	if (rc < 0) {
		problem(out, who, "%s", perpi_error());
		out->status = rc == -1 ? 127 : 2;
	} else {
		run_all(out, who, s, argv, runs);
	}
	measure_delete(s);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return out->status;
}

void measure_outcome_done(struct measure_outcome *out)
{
	measured_free(out->summary);
	for (size_t i = 0; i < out->n_problems; i++)
		free(out->problems[i]);
	free(out->problems);
	memset(out, 0, sizeof(*out));
}

static int print_to(const struct measure_cli *c, const struct measured *m, const char *program,
		    const struct measure_outcome *o)
{
	/* as perpi run: the program keeps stdout, the figures go to stderr */
	FILE *def = c->input ? stdout : stderr;
	FILE *out = c->output ? fopen(c->output, "w") : def;
	if (!out) {
		fprintf(stderr, "perpi measure: cannot create %s: %s\n", c->output,
			strerror(errno));
		return -1;
	}
	if (c->json)
		measure_print_json(out, m, program, o);
	else
		measure_print_text(out, m, program, o);
	if (out != def ? fclose(out) != 0 : fflush(out) != 0) {
		fprintf(stderr, "perpi measure: writing %s: %s\n", c->output ? c->output : "stdout",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* perpi measure -i FILE */
static int show_file(const struct measure_cli *c)
{
	struct trace_reader *r = trace_reader_open(c->input);
	if (!r) {
		fprintf(stderr, "perpi measure: %s\n", perpi_error());
		return 1;
	}
	const struct measured *m = trace_reader_measured(r);
	int rc = 0;
	if (!m) {
		fprintf(stderr,
			"perpi measure: %s: no native measurements in it (record with 'perpi "
			"record --measure')\n",
			c->input);
		rc = 1;
	} else {
		const char *prog = trace_reader_meta(r, "program"),
			   *args = trace_reader_meta(r, "argv");
		char *line = xasprintf("%s", args && *args ? args : prog ? prog : c->input);
		rc = print_to(c, m, line, NULL) < 0 ? 1 : 0;
		free(line);
	}
	trace_reader_close(r);
	return rc;
}

static int measure_main(struct measure_cli *c, int argc, char **argv)
{
	struct measure_outcome o;
	unsigned runs = c->runs ? c->runs : MEASURE_DEFAULT_RUNS;
	int status = measure_collect("measure", &c->opt, argv + c->program, runs, &o);
	struct strbuf line;
	strbuf_init(&line);
	for (int i = c->program; i < argc; i++)
		strbuf_addf(&line, "%s%s", i > c->program ? " " : "", argv[i]);
	if (o.summary && print_to(c, o.summary, line.buf, &o) < 0 && !status)
		status = 1;
	strbuf_done(&line);
	measure_outcome_done(&o);
	return status;
}

int cmd_measure(int argc, char **argv)
{
	struct measure_cli c;
	memset(&c, 0, sizeof(c));
	c.opt.cpu = -1;
	int rc = parse(&c, argc, argv);
	if (rc < 0)
		fprintf(stderr, "perpi measure: %s\n", perpi_error());
	else if (rc > 0)
		rc = c.input ? show_file(&c) : measure_main(&c, argc, argv);
	free(c.opt.functions);
	return rc < 0 ? 2 : rc;
}
