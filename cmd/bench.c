/* perpi bench: measure kernels (multisets of instruction forms) on this CPU. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "palmed/bench.h"
#include "cmd/bench_cli.h"
#include "palmed/db.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: perpi bench [OPTIONS] KERNEL...\n"
	    "       perpi bench [OPTIONS] --latency FORM...\n"
	    "  KERNEL is a multiset of forms: 'ADDSD_XMM_XMM^2 IMUL_GPR64_GPR64 MOV_GPR64_M64^3'\n"
	    "  -f, --file FILE     read kernels from FILE, one per line ('-': stdin)\n"
	    "  -l, --latency       measure each FORM's latency (a dependent chain)\n"
	    "      --json          print JSON\n"
	    "      --show-asm      print the generated loop instead of measuring\n"
	    "      --db FILE       measurement database (default: "
	    "$XDG_DATA_HOME/perpi/measurements.db)\n"
	    "      --no-db         neither read nor store measurements\n"
	    "      --fresh         measure again even if the database has the kernel\n"
	    "      --tsc           time with the TSC even if PAPI counters work\n"
	    "      --cpu N         pin the benchmark worker to CPU N\n"
	    "      --unroll N      UNROLL_SIZE, instructions in the loop body (256)\n"
	    "      --total N       TOTAL_INSN, instructions per timed repetition (100000)\n"
	    "      --measures N    NUM_MEASURES, timed repetitions (15)\n"
	    "      --warmup N      warm-up rounds (3)\n"
	    "      --max-seconds S time budget per kernel while the host disturbs it (2)\n"
	    "  'man perpi-bench' tells more.\n");
}

static void print_text(const char *spec, const struct bench_result *r, int latency)
{
	printf("%-9.3f %-7.3f %5.1f%%  %-5s %s%s", r->cycles, r->ipc, 100 * r->spread,
	       timing_source_name(r->source), latency ? "latency " : "", spec);
	if (r->from_cache)
		printf("  (cached)");
	if (r->flagged)
		printf("  [flagged: %s]", r->flag_reason);
	if (r->helpers[0])
		printf("  [with %s]", r->helpers);
	if (r->bimodal)
		printf("  [two modes: %.3f and %.3f cycles, the faster kept]", r->cycles,
		       r->other_cycles);
	printf("\n");
}

static json_object *result_json(const char *spec, const struct bench_result *r, int latency)
{
	json_object *o = json_object_new_object(), *s = json_object_new_array(),
		    *c = json_object_new_array();
	json_object_object_add(o, "kernel", json_object_new_string(spec));
	json_object_object_add(o, "kind",
			       json_object_new_string(latency ? "latency" : "throughput"));
	json_object_object_add(o, "cycles", json_object_new_double(r->cycles));
	json_object_object_add(o, "ipc", json_object_new_double(r->ipc));
	json_object_object_add(o, "spread", json_object_new_double(r->spread));
	json_object_object_add(o, "timing", json_object_new_string(timing_source_name(r->source)));
	json_object_object_add(o, "ticks_per_cycle", json_object_new_double(r->ticks_per_cycle));
	json_object_object_add(o, "flagged", json_object_new_boolean(r->flagged));
	if (r->flagged)
		json_object_object_add(o, "flag_reason", json_object_new_string(r->flag_reason));
	json_object_object_add(o, "cached", json_object_new_boolean(r->from_cache));
	json_object_object_add(o, "helpers", json_object_new_string(r->helpers));
	json_object_object_add(o, "bimodal", json_object_new_boolean(r->bimodal));
	if (r->bimodal)
		json_object_object_add(o, "other_mode_cycles",
				       json_object_new_double(r->other_cycles));
	for (unsigned i = 0; i < r->n_samples; i++) {
		json_object_array_add(s, json_object_new_double(r->samples[i]));
		json_object_array_add(c, json_object_new_boolean(r->clean[i]));
	}
	json_object_object_add(o, "samples", s);
	json_object_object_add(o, "clean", c);
	return o;
}

struct bench_args {
	struct bench_options opt;
	const char *db_path, *file;
	int json, show_asm, no_db, latency;
};

enum { O_DB = 256, O_CPU, O_UNROLL, O_TOTAL, O_MEASURES, O_WARMUP, O_MAXSEC };

/* The value of option c (-f, --db or a number); 0, or -1 with perpi_error(). */
static int parse_value(struct bench_args *a, int c, const char *arg)
{
	long v;
	unsigned *count[] = {[O_UNROLL - O_UNROLL] = &a->opt.unroll_size,
			     [O_TOTAL - O_UNROLL] = &a->opt.total_insn,
			     [O_MEASURES - O_UNROLL] = &a->opt.num_measures,
			     [O_WARMUP - O_UNROLL] = &a->opt.warmup};
	if (c == 'f') {
		a->file = arg;
	} else if (c == O_DB) {
		a->db_path = arg;
	} else if (c == O_MAXSEC) {
		a->opt.max_seconds = atof(arg);
		if (!(a->opt.max_seconds > 0 && a->opt.max_seconds <= 3600))
			return perpi_set_error("bad --max-seconds '%s': give seconds in (0, 3600]",
					       arg);
	} else if (bench_cli_count(arg, &v, c == O_CPU ? 0 : 1, c == O_TOTAL ? 100000000 : 100000) <
		   0) {
		return -1;
	} else if (c == O_CPU) {
		a->opt.cpu = (int)v;
	} else {
		*count[c - O_UNROLL] = (unsigned)v;
	}
	return 0;
}

/* 1: parsed (the kernels from argv[optind]); 0: --help printed; -1: bad
 * options (message set). */
static int parse_args(int argc, char **argv, struct bench_args *a)
{
	memset(a, 0, sizeof(*a));
	bench_options_default(&a->opt);
	const struct option longopts[] = {{"file", required_argument, NULL, 'f'},
					  {"latency", no_argument, NULL, 'l'},
					  {"json", no_argument, &a->json, 1},
					  {"show-asm", no_argument, &a->show_asm, 1},
					  {"db", required_argument, NULL, O_DB},
					  {"no-db", no_argument, &a->no_db, 1},
					  {"fresh", no_argument, &a->opt.fresh, 1},
					  {"tsc", no_argument, &a->opt.force_tsc, 1},
					  {"cpu", required_argument, NULL, O_CPU},
					  {"unroll", required_argument, NULL, O_UNROLL},
					  {"total", required_argument, NULL, O_TOTAL},
					  {"measures", required_argument, NULL, O_MEASURES},
					  {"warmup", required_argument, NULL, O_WARMUP},
					  {"max-seconds", required_argument, NULL, O_MAXSEC},
					  {"help", no_argument, NULL, 'h'},
					  {NULL, 0, NULL, 0}};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:lh", longopts, NULL)) != -1) {
		if (c == 0) /* a flag, set by getopt_long */
			continue;
		if (c == 'l') {
			a->latency = 1;
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else if (c == '?') {
			return perpi_set_error("unknown option or missing argument '%s' "
					       "('perpi bench --help' lists them)",
					       argv[optind - 1]);
		} else if (parse_value(a, c, optarg) < 0) {
			return -1;
		}
	}
	return 1;
}

static int show_asm(struct bench_ctx *b, const struct kernel *ks, size_t n, int latency)
{
	for (size_t i = 0; i < n; i++) {
		char *text = bench_kernel_asm(b, &ks[i], latency);
		if (!text) {
			fprintf(stderr, "perpi: bench: %s\n", perpi_error());
			return 1;
		}
		char *spec = kernel_to_string(&ks[i]);
		printf("# kernel: %s\n.intel_syntax noprefix\n%s", spec, text);
		free(spec);
		free(text);
	}
	return 0;
}

/* Ctrl-C or SIGTERM: the kernels not measured yet are given up, the
 * results so far are shown (and stay in the database); a second one stops
 * at once. */
static volatile sig_atomic_t bench_stop;

static void on_stop(int sig)
{
	bench_stop = sig;
}

static void catch_stop(int on)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_stop : SIG_DFL;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int report(const struct kernel *ks, size_t n, struct bench_result *res, const int *status,
		  char **errors, const struct bench_args *a)
{
	int failed = 0;
	json_object *arr = a->json ? json_object_new_array() : NULL;
	int any = 0;
	for (size_t i = 0; i < n; i++)
		any |= status[i] == 0;
	if (!a->json && any)
		printf("%-9s %-7s %6s  %-5s %s\n", a->latency ? "latency" : "cycles",
		       a->latency ? "1/lat" : "IPC", "spread", "clock", "kernel");
	size_t stopped = 0;
	for (size_t i = 0; i < n; i++) {
		char *spec = kernel_to_string(&ks[i]);
		if (status[i] < 0 && bench_stop) { /* cut short, whatever it says */
			stopped++;
			failed = 1;
		} else if (status[i] < 0) {
			fprintf(stderr, "perpi: bench: %s\n", errors[i]);
			failed = 1;
		} else if (a->json) {
			json_object_array_add(arr, result_json(spec, &res[i], a->latency));
		} else {
			print_text(spec, &res[i], a->latency);
		}
		free(spec);
	}
	if (arr) {
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
		json_object_put(arr);
	}
	if (stopped)
		fprintf(
		    stderr,
		    "perpi: bench: interrupted: %zu of the %zu kernels not measured or failed\n",
		    stopped, n);
	return failed;
}

/* Measures ks and reports; 128 + the signal when stopped. */
static int measure(struct bench_ctx *b, const struct kernel *ks, size_t n,
		   const struct bench_args *a)
{
	struct bench_result *res = xcalloc(n, sizeof(*res));
	int *status = xcalloc(n, sizeof(int));
	char **errors = xcalloc(n, sizeof(char *));
	struct bench_cli_progress p;
	bench_cli_progress_init(&p, "bench");
	catch_stop(1);
	if (a->latency)
		for (size_t i = 0; i < n; i++) {
			if (bench_stop) {
				status[i] = -1;
				errors[i] = xstrdup("interrupted");
				continue;
			}
			status[i] = bench_latency(b, ks[i].terms[0].form, &res[i]);
			if (status[i] < 0)
				errors[i] = xstrdup(perpi_error());
			bench_cli_progress(&p, i + 1, n);
		}
	else
		bench_measure_many(b, ks, n, res, status, errors, bench_cli_progress, &p);
	catch_stop(0);
	bench_cli_progress_end(&p);
	int rc = report(ks, n, res, status, errors, a);
	if (bench_stop)
		rc = 128 + bench_stop;
	for (size_t i = 0; i < n; i++) {
		bench_result_done(&res[i]);
		free(errors[i]);
	}
	free(res);
	free(status);
	free(errors);
	return rc;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_args a;
	int rc = parse_args(argc, argv, &a);
	if (rc <= 0) {
		if (rc < 0)
			fprintf(stderr, "perpi: bench: %s\n", perpi_error());
		return rc < 0 ? 2 : 0;
	}
	struct kernel *ks = NULL;
	size_t n = 0;
	if (bench_cli_read_kernels(argv + optind, argc - optind, a.file, a.latency, &ks, &n) < 0) {
		fprintf(stderr, "perpi: bench: %s\n", perpi_error());
		return 2;
	}
	struct db *db = NULL;
	if (!a.no_db && !a.show_asm && bench_cli_open_db(a.db_path, &db) < 0) {
		fprintf(stderr, "perpi: bench: %s\n", perpi_error());
		bench_cli_free_kernels(ks, n);
		return 1;
	}
	a.opt.stop = &bench_stop;
	struct bench_ctx *b = bench_new(&a.opt, db);
	if (a.show_asm) {
		rc = show_asm(b, ks, n, a.latency);
	} else {
		rc = measure(b, ks, n, &a);
	}
	bench_delete(b);
	db_close(db);
	bench_cli_free_kernels(ks, n);
	return rc;
}
