/* perpi eval cycles: predicted against native cycles over a suite of
 * small kernels (bench/kernels/, palmed/eval_cycles.h). */
#define _GNU_SOURCE 1 /* sched_getaffinity, CPU_SET */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <libgen.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/bench_cli.h"
#include "cmd/commands.h"
#include "common/util.h"
#include "palmed/core_measure.h"
#include "palmed/db.h"
#include "palmed/eval_cycles.h"
#include "palmed/lift.h"
#include "palmed/timing.h"

static void usage(FILE *out)
{
	fputs("usage: perpi eval cycles [OPTIONS] KERNEL...\n"
	      "Predicted against native cycles: each KERNEL, a program built from\n"
	      "bench/kernels/driver.c and one kernel (sh bench/kernels/build.sh DIR), is\n"
	      "recorded (its function's calls), timed natively and predicted by perpi's\n"
	      "core model, by the lifted resource bound and by llvm-mca-19 lifted by exact\n"
	      "block occurrences; RMS relative error, Kendall's tau and coverage of each.\n\n"
	      "  -m, --model FILE   the Palmed model (default: $XDG_DATA_HOME/perpi/model.json)\n"
	      "  --core FILE        the core file (default: $XDG_DATA_HOME/perpi/core.json)\n"
	      "  --function SYM     the function each kernel times (default: kernel)\n"
	      "  --calls N          calls recorded and timed per run (default: 3); a call's\n"
	      "                     cycles are the mean over the calls but the first\n"
	      "  --runs N           native runs (default: 20)\n"
	      "  --native WHO       the native figure: measure (default: perpi measure's\n"
	      "                     median call, the fastest run) or driver (the kernel's\n"
	      "                     own rdtsc around each call, in the same runs); both kept\n"
	      "  -o DIR             recordings, eval-cycles.csv and the scatter plots\n"
	      "                     (default: eval-cycles)\n"
	      "  --no-mca           leave llvm-mca out\n"
	      "  --db FILE          measurement database for missing latencies\n"
	      "  --again DIR        neither record nor time: predict DIR's recordings again\n"
	      "                     against the native figures of DIR/eval-cycles.csv (an\n"
	      "                     earlier run's -o; another model on the same natives)\n"
	      "'man perpi-eval' tells more.\n",
	      out);
}

struct eval_args {
	const char *model, *core, *function, *dir, *db;
	const char *again; /* an earlier run's -o: its recordings and native figures */
	long calls, runs;
	int no_mca;
	int driver; /* the driver's rdtsc is the native figure, not perpi measure */
};

static int parse(int argc, char **argv, struct eval_args *a)
{
	static const struct option opts[] = {
	    {"model", required_argument, NULL, 'm'},	{"core", required_argument, NULL, 'c'},
	    {"function", required_argument, NULL, 'f'}, {"calls", required_argument, NULL, 'n'},
	    {"runs", required_argument, NULL, 'r'},	{"output", required_argument, NULL, 'o'},
	    {"no-mca", no_argument, NULL, 'x'},		{"db", required_argument, NULL, 'd'},
	    {"native", required_argument, NULL, 'N'},	{"again", required_argument, NULL, 'A'},
	    {"help", no_argument, NULL, 'h'},		{NULL, 0, NULL, 0}};
	int c;
	*a = (struct eval_args){.function = "kernel", .dir = "eval-cycles", .calls = 3, .runs = 20};
	optind = 1;
	while ((c = getopt_long(argc, argv, "m:o:h", opts, NULL)) != -1) {
		int rc = 0;
		switch (c) {
		case 'm':
			a->model = optarg;
			break;
		case 'c':
			a->core = optarg;
			break;
		case 'f':
			a->function = optarg;
			break;
		case 'n':
			rc = bench_cli_count(optarg, &a->calls, 1, 1000);
			break;
		case 'r':
			rc = bench_cli_count(optarg, &a->runs, 1, 1000);
			break;
		case 'o':
			a->dir = optarg;
			break;
		case 'x':
			a->no_mca = 1;
			break;
		case 'd':
			a->db = optarg;
			break;
		case 'A':
			a->again = optarg;
			break;
		case 'N':
			if (strcmp(optarg, "measure") && strcmp(optarg, "driver"))
				return perpi_set_error("--native: 'measure' or 'driver', not '%s'",
						       optarg);
			a->driver = !strcmp(optarg, "driver");
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return perpi_set_error("bad option (perpi eval cycles --help lists them)");
		}
		if (rc < 0)
			return -1;
	}
	if (optind >= argc)
		return perpi_set_error(
		    "no kernel given (sh bench/kernels/build.sh DIR builds them)");
	if (a->again && !strcmp(a->again, a->dir))
		return perpi_set_error("--again %s: the same directory as -o (it would be "
				       "overwritten): give another -o",
				       a->again);
	return 1;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Runs argv with stdout into buf (NULL: /dev/null); its exit status, or -1. */
static int run_program(char *const *argv, char *buf, size_t size)
{
	int fds[2] = {-1, -1};
	if (buf && pipe(fds) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		int out = buf ? fds[1] : open("/dev/null", O_WRONLY);
		dup2(out, 1);
		if (buf)
			close(fds[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	size_t got = 0;
	if (buf) {
		close(fds[1]);
		ssize_t r = 1;
		char drain[4096]; /* past size: read and dropped, so the child never blocks */
		while (pid > 0 && r > 0) {
			int room = got + 1 < size;
			r = room ? read(fds[0], buf + got, size - 1 - got)
				 : read(fds[0], drain, sizeof(drain));
			if (r > 0 && room)
				got += (size_t)r;
		}
		buf[got] = '\0';
		close(fds[0]);
	}
	int status;
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* perpi record --function SYM of the kernel's calls into path. */
static int record_kernel(const struct eval_args *a, const char *binary, const char *path)
{
	char calls[24];
	snprintf(calls, sizeof(calls), "%ld", a->calls);
	char *argv[] = {
	    "/proc/self/exe", "record",	      "-q",  "--function", (char *)a->function, "-o",
	    (char *)path,     (char *)binary, calls, NULL};
	int rc = run_program(argv, NULL, 0);
	if (rc != 0)
		return perpi_set_error("%s: perpi record failed (status %d)", binary, rc);
	return 0;
}

/* One driver line ("perpi-kernel NAME calls N step S overhead O cycles
 * C1..CN probes P1..PN") at *line: call k's cycles into v[k], its
 * neighbouring probes' into probe[k], the TSC step; *line moves past it. */
static int driver_line(const char *binary, const char **line, double *v, double *probe, long n,
		       double *step)
{
	char name[64], *end;
	double overhead;
	long got;
	int used = 0;
	const char *at = strstr(*line, "perpi-kernel ");
	if (!at ||
	    sscanf(at, "perpi-kernel %63s calls %ld step %lf overhead %lf cycles%n", name, &got,
		   step, &overhead, &used) != 4 ||
	    got != n)
		return perpi_set_error("%s: no 'perpi-kernel' line in its output: is it built with "
				       "bench/kernels/driver.c?",
				       binary);
	at += used;
	for (long k = 0; k < n; k++, at = end)
		if ((v[k] = strtod(at, &end)), end == at)
			return perpi_set_error("%s: %ld calls timed, not %ld", binary, k, n);
	if (strncmp(at, " probes", 7))
		return perpi_set_error("%s: no probes in its output: rebuild it", binary);
	at += 7;
	for (long k = 0; k < n; k++, at = end)
		if ((probe[k] = strtod(at, &end)), end == at)
			return perpi_set_error("%s: %ld probes, not %ld", binary, k, n);
	*line = at;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Mean of v[0..n) within 1.5 TSC steps of its minimum (sorts v). */
static double clean_mean(double *v, size_t n, double step)
{
	double sum = 0;
	size_t k = 0;
	qsort(v, n, sizeof(*v), by_value);
	while (k < n && v[k] <= v[0] + 1.5 * step)
		sum += v[k++];
	return sum / (double)k;
}

/* Readings of call k over the runs whose probes ran at full speed (within
 * 3% of the fastest probe of the kernel's runs): all of them if none did. */
static size_t undisturbed(const double *v, const double *probe, long n, long runs, long k,
			  double fastest, double *out)
{
	size_t m = 0;
	for (long r = 0; r < runs; r++)
		if (probe[r * n + k] <= 1.03 * fastest)
			out[m++] = v[r * n + k];
	for (long r = 0; !m && r < runs; r++)
		out[m++] = v[r * n + k];
	return m;
}

/* The driver's figure for a call, from its lines in out (one a run): the
 * mean over the calls but the first of each call's undisturbed readings
 * over the runs. */
static int driver_figure(const struct eval_args *a, const char *binary, const char *out,
			 double *cycles)
{
	long n = a->calls, runs = 0;
	double *v = xcalloc((size_t)(n * a->runs), sizeof(*v)), step = 0, sum = 0;
	double *probe = xcalloc((size_t)(n * a->runs), sizeof(*probe)), fastest = INFINITY;
	int rc = 0;
	*cycles = NAN;
	while (runs < a->runs && strstr(out, "perpi-kernel ") &&
	       (rc = driver_line(binary, &out, v + runs * n, probe + runs * n, n, &step)) == 0)
		runs++;
	for (long i = 0; i < runs * n; i++)
		fastest = fmin(fastest, probe[i]);
	double *call = xcalloc((size_t)runs + 1, sizeof(*call));
	for (long k = n > 1 ? 1 : 0; k < n && runs; k++)
		sum += clean_mean(call, undisturbed(v, probe, n, runs, k, fastest, call), step);
	if (runs)
		*cycles = sum / (double)(n > 1 ? n - 1 : 1);
	else if (rc == 0)
		rc = perpi_set_error("%s: no 'perpi-kernel' line in its output", binary);
	free(call);
	free(probe);
	free(v);
	return rc;
}

static double json_number(json_object *o, const char *key, const char *inner)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) ||
	    (inner && !json_object_object_get_ex(v, inner, &v)))
		return NAN;
	return json_object_get_double(v);
}

#define MEASURE_AGAIN 2 /* more measurements of a kernel whose every run was slowed */

/* The allowed CPU whose reorder window is whole now (the smallest window
 * probe, timing_window_ratio, run pinned there), or -1. */
static int calmest_cpu(void)
{
	cpu_set_t allowed, one;
	int best = -1;
	double least = INFINITY;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0)
			continue;
		double w = timing_window_ratio();
		if (w > 0 && w < least)
			least = w, best = c;
	}
	sched_setaffinity(0, sizeof(allowed), &allowed);
	return best;
}

/* A call's native cycles, the kernel's runs timed by perpi measure
 * --function SYM: its figure, the median of the calls (each the fastest
 * over the runs), into k->measured; the driver's own rdtsc around each
 * call in the same runs into k->driver (its window holds perpi's timing
 * stub, whose cost perpi measure states: taken off). cpu >= 0: on that
 * CPU. */
static int measure_once(const struct eval_args *a, const char *binary, int cpu,
			struct eval_cycles_kernel *k)
{
	char calls[24], runs[24], on[24], out[65536];
	snprintf(calls, sizeof(calls), "%ld", a->calls);
	snprintf(runs, sizeof(runs), "%ld", a->runs);
	snprintf(on, sizeof(on), "%d", cpu);
	char *path = xasprintf("%s/measure.json", a->dir);
	char *argv[16] = {"/proc/self/exe", "measure", "-q",  "--function", (char *)a->function,
			  "--runs",	    runs,      "--json", "-o",	       path};
	size_t n = 10;
	if (cpu >= 0) {
		argv[n++] = "--cpu";
		argv[n++] = on;
	}
	argv[n++] = (char *)binary;
	argv[n++] = calls;
	argv[n] = NULL;
	k->measured = k->driver = NAN;
	int rc = run_program(argv, out, sizeof(out));
	json_object *root = rc == 0 ? json_object_from_file(path) : NULL, *fns;
	unlink(path);
	free(path);
	if (!root)
		return perpi_set_error("%s: perpi measure failed (status %d)", binary, rc);
	if (json_object_object_get_ex(root, "functions", &fns))
		for (size_t i = 0; i < json_object_array_length(fns); i++) {
			json_object *f = json_object_array_get_idx(fns, i), *name;
			if (json_object_object_get_ex(f, "name", &name) &&
			    !strcmp(json_object_get_string(name), a->function))
				k->measured = json_number(f, "median", NULL);
		}
	double stub_cost = json_number(root, "overhead", "call"); /* perpi's timing stub's */
	/* every run followed by a slowed probe or a split window: the core was
	 * shared throughout */
	k->slowed = json_number(root, "probe", "slowed_runs") >= json_number(root, "runs", NULL);
	json_object_put(root);
	if (driver_figure(a, binary, out, &k->driver) == 0 && !isnan(stub_cost))
		k->driver -= stub_cost;
	if (isnan(k->measured))
		return perpi_set_error("%s: perpi measure timed no call of %s", binary,
				       a->function);
	return 0;
}

/* measure_once, and when every run was slowed (a busy sibling thread, the
 * host), twice more on the CPU whose window probe reads calmest then. */
static int measure_kernel(const struct eval_args *a, const char *binary,
			  struct eval_cycles_kernel *k)
{
	int rc = measure_once(a, binary, -1, k);
	for (int again = 0; rc == 0 && k->slowed && again < MEASURE_AGAIN; again++) {
		int cpu = calmest_cpu();
		fprintf(stderr, "perpi eval: %s: every run slowed; measured again on CPU %d\n",
			binary, cpu);
		rc = measure_once(a, binary, cpu, k);
	}
	return rc;
}

/* Latencies the core file lacks for the recordings' forms, measured now
 * (into c only; `perpi core --from` keeps them). */
static void missing_latencies(const struct eval_args *a, struct core *c, char **paths, size_t n)
{
	char **want = NULL;
	size_t nwant = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		char **forms;
		size_t nf, undecoded;
		if (lift_trace_forms(paths[i], &forms, &nf, &undecoded) < 0)
			continue;
		for (size_t k = 0; k < nf; k++) {
			double lat;
			int have =
			    core_latency(c, forms[k], &lat) == 0 || core_no_latency(c, forms[k]);
			for (size_t j = 0; j < nwant && !have; j++)
				have = !strcmp(want[j], forms[k]);
			if (have) {
				free(forms[k]);
				continue;
			}
			if (nwant == cap)
				want = xrealloc(want, (cap = cap ? 2 * cap : 32) * sizeof(*want));
			want[nwant++] = forms[k];
		}
		free(forms);
	}
	struct db *db = NULL;
	if (nwant && bench_cli_open_db(a->db, &db) == 0) {
		struct bench_options o;
		bench_options_default(&o);
		struct bench_ctx *b = bench_new(&o, db);
		size_t got = core_measure_latencies(b, c, want, nwant, NULL, NULL);
		fprintf(
		    stderr,
		    "perpi eval: %zu of %zu latencies the core file lacked measured (perpi core "
		    "--from keeps them)\n",
		    got, nwant);
		bench_delete(b);
		db_close(db);
	}
	for (size_t j = 0; j < nwant; j++)
		free(want[j]);
	free(want);
}

struct suite {
	struct eval_cycles_kernel *ks;
	char **paths; /* the recordings, NULL where recording failed */
	size_t n;
};

static int earlier_recording(const char *path)
{
	if (access(path, R_OK) < 0)
		return perpi_set_error("--again: %s: %s", path, strerror(errno));
	return 0;
}

/* k's native figures from the row of k->name in an earlier run's
 * eval-cycles.csv (eval_cycles_write_csv's columns: kernel, native, the
 * predictions, calls, instructions, l1_miss_rate, flagged,
 * mispredicts_per_call, measure, driver, slowed). */
static int earlier_natives(const struct eval_args *a, struct eval_cycles_kernel *k)
{
	char *path = xasprintf("%s/eval-cycles.csv", a->again), line[1024];
	FILE *f = fopen(path, "r");
	int found = 0;
	if (!f) {
		perpi_set_error("--again: cannot read '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		char *field[13], *save = NULL, *t = strtok_r(line, ",\n", &save);
		size_t n = 0;
		for (; t && n < 13; t = strtok_r(NULL, ",\n", &save))
			field[n++] = t;
		if (n != 13 || strcmp(field[0], k->name))
			continue;
		found = 1;
		k->measured = strtod(field[10], NULL);
		k->driver = strtod(field[11], NULL);
		k->slowed = atoi(field[12]);
	}
	fclose(f);
	if (!found)
		perpi_set_error("--again: %s: no row for %s", path, k->name);
	free(path);
	return found ? 0 : -1;
}

/* Records and times each kernel (with --again, reads both from the earlier
 * run); stops early (keeping what was done) on Ctrl-C. */
static void measure_suite(const struct eval_args *a, char **bins, size_t n, struct suite *s)
{
	s->ks = xcalloc(n + 1, sizeof(*s->ks));
	s->paths = xcalloc(n + 1, sizeof(*s->paths));
	for (size_t i = 0; i < n && !interrupted; i++) {
		char *copy = xstrdup(bins[i]);
		struct eval_cycles_kernel *k = &s->ks[s->n];
		k->name = xstrdup(basename(copy));
		free(copy);
		for (int p = 0; p < PRED_COUNT; p++)
			k->pred[p] = NAN;
		k->measured = k->driver = NAN;
		fprintf(stderr, "perpi eval: [%zu/%zu] %s\n", i + 1, n, k->name);
		char *path = xasprintf("%s/%s.data", a->again ? a->again : a->dir, k->name);
		if ((a->again ? earlier_recording(path) : record_kernel(a, bins[i], path)) < 0) {
			perpi_warn("%s", perpi_error());
			free(path);
			path = NULL;
		}
		if ((a->again ? earlier_natives(a, k) : measure_kernel(a, bins[i], k)) < 0)
			perpi_warn("%s", perpi_error());
		k->native = a->driver ? k->driver : k->measured;
		s->paths[s->n++] = path;
	}
}

static void predict_suite(const struct eval_args *a, const struct model *m, const struct core *c,
			  struct suite *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->paths[i] &&
		    eval_cycles_predict(s->paths[i], a->function, m, c, !a->no_mca, &s->ks[i]) < 0)
			perpi_warn("%s", perpi_error());
}

static int write_outputs(const struct eval_args *a, const struct suite *s)
{
	char *csv = xasprintf("%s/eval-cycles.csv", a->dir);
	int rc = eval_cycles_write_csv(s->ks, s->n, csv);
	free(csv);
	for (int p = 0; p < PRED_COUNT && rc == 0; p++) {
		if (p == PRED_MCA && a->no_mca)
			continue;
		char *svg = xasprintf("%s/eval-cycles-%s.svg", a->dir, eval_cycles_predictor[p]);
		rc = eval_cycles_write_svg(s->ks, s->n, p, svg);
		free(svg);
	}
	return rc;
}

static void suite_done(struct suite *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->ks[i].name);
		free(s->paths[i]);
	}
	free(s->ks);
	free(s->paths);
}

static int load_inputs(const struct eval_args *a, struct model **m, struct core **c)
{
	char *def = a->core ? NULL : core_default_path();
	int rc = model_load_for_use(a->model, m);
	if (rc == 0 && core_load(a->core ? a->core : def, c) < 0) {
		perpi_set_error("%s ('perpi core' measures one)", perpi_error());
		model_delete(*m);
		rc = -1;
	}
	free(def);
	return rc;
}

static int eval_cycles(int argc, char **argv)
{
	struct eval_args a;
	struct model *m;
	struct core *c;
	struct suite s = {0};
	int r = parse(argc, argv, &a);
	if (r <= 0)
		return r < 0 ? (fprintf(stderr, "perpi eval: %s\n", perpi_error()), 2) : 0;
	if (load_inputs(&a, &m, &c) < 0) {
		fprintf(stderr, "perpi eval: %s\n", perpi_error());
		return 1;
	}
	char *csv = a.again ? xasprintf("%s/eval-cycles.csv", a.again) : NULL;
	if (csv && access(csv, R_OK) < 0) {
		fprintf(stderr, "perpi eval: --again %s: no %s (%s): give the -o of an earlier run\n",
			a.again, csv, strerror(errno));
		free(csv);
		model_delete(m);
		core_delete(c);
		return 1;
	}
	free(csv);
	if (mkdir(a.dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "perpi eval: %s: %s\n", a.dir, strerror(errno));
		model_delete(m);
		core_delete(c);
		return 1;
	}
	struct sigaction sa = {.sa_handler = on_interrupt}, old;
	sigaction(SIGINT, &sa, &old);
	measure_suite(&a, argv + optind, (size_t)(argc - optind), &s);
	sigaction(SIGINT, &old, NULL);
	if (interrupted)
		fprintf(stderr, "perpi eval: interrupted: the %zu kernels done so far\n", s.n);
	missing_latencies(&a, c, s.paths, s.n);
	predict_suite(&a, m, c, &s);
	eval_cycles_print(stdout, s.ks, s.n);
	int rc = write_outputs(&a, &s);
	if (rc < 0)
		fprintf(stderr, "perpi eval: %s\n", perpi_error());
	suite_done(&s);
	model_delete(m);
	core_delete(c);
	return interrupted ? 130 : rc < 0 ? 1 : 0;
}

int cmd_eval(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "cycles"))
		return eval_cycles(argc - 1, argv + 1);
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr,
		"perpi eval: %s: 'perpi eval cycles KERNEL...' is the one evaluation here "
		"('perpi palmed eval' evaluates the resource model)\n",
		argc > 1 ? argv[1] : "nothing to evaluate");
	return 2;
}
