/* perpi core: measure the core parameters and form latencies that the
 * cycle prediction needs (palmed/core.h), into the core file. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/bench_cli.h"
#include "cmd/commands.h"
#include "common/util.h"
#include "palmed/core_measure.h"
#include "palmed/db.h"
#include "palmed/lift.h"

static void usage(FILE *out)
{
	fputs("usage: perpi core [--from perpi.data]... [-m MODEL] [-o FILE] [OPTIONS]\n"
	      "       perpi core --show [-o FILE]\n"
	      "Measure this CPU's core parameters (dispatch width, reorder window, load and\n"
	      "store-forwarding latencies, branch misprediction penalty...) and the latency\n"
	      "of instruction forms, for the cycles 'perpi report' predicts.\n\n"
	      "  --from FILE      also the latency of every form the run recorded in FILE\n"
	      "                   executed (repeatable)\n"
	      "  -m, --model FILE also the latency of every form of a Palmed model\n"
	      "  -o FILE          the core file (default: $XDG_DATA_HOME/perpi/core.json);\n"
	      "                   an existing one is updated\n"
	      "  --no-probes      keep the file's parameters: measure latencies only\n"
	      "  --show           print the core file, measure nothing\n"
	      "  --db FILE        measurement database for the latencies (default:\n"
	      "                   $XDG_DATA_HOME/perpi/measurements.db)\n"
	      "  --cpu N          pin the probes to CPU N\n"
	      "'man perpi-core' tells more.\n",
	      out);
}

struct core_args {
	const char *output, *model, *db;
	const char **from;
	size_t nfrom;
	int show, no_probes, cpu;
};

static int parse(int argc, char **argv, struct core_args *a)
{
	static const struct option opts[] = {{"from", required_argument, NULL, 'f'},
					     {"model", required_argument, NULL, 'm'},
					     {"output", required_argument, NULL, 'o'},
					     {"db", required_argument, NULL, 'd'},
					     {"show", no_argument, NULL, 's'},
					     {"no-probes", no_argument, NULL, 'n'},
					     {"cpu", required_argument, NULL, 'c'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	int c;
	long cpu;
	memset(a, 0, sizeof(*a));
	a->cpu = -1;
	a->from = xcalloc((size_t)argc + 1, sizeof(*a->from));
	optind = 1;
	while ((c = getopt_long(argc, argv, "m:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			a->from[a->nfrom++] = optarg;
			break;
		case 'm':
			a->model = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'd':
			a->db = optarg;
			break;
		case 's':
			a->show = 1;
			break;
		case 'n':
			a->no_probes = 1;
			break;
		case 'c':
			if (bench_cli_count(optarg, &cpu, 0, 4095) < 0)
				return -1;
			a->cpu = (int)cpu;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return perpi_set_error("bad option (perpi core --help lists them)");
		}
	}
	if (optind < argc)
		return perpi_set_error("unexpected argument '%s'", argv[optind]);
	return 1;
}

static void show(FILE *out, const struct core *c, const char *path)
{
	fprintf(out, "# %s: %s%s%s\n", path, c->cpu, c->table ? "; documented table: " : "",
		c->table ? c->table : "");
	fprintf(out, "%-24s %10s %-9s %10s  %s\n", "parameter", "value", "source", "table",
		"meaning");
	for (size_t p = 0; p < CORE_PARAM_COUNT; p++) {
		char table[24] = "-";
		if (c->table_value[p] > 0)
			snprintf(table, sizeof(table), "%g", c->table_value[p]);
		fprintf(out, "%-24s %10.2f %-9s %10s  %s (%s)\n", core_param_info[p].name,
			c->value[p], core_source_name[c->source[p]], table, core_param_info[p].what,
			core_param_info[p].unit);
	}
	fprintf(out, "%zu form latencies, %zu forms without one\n", c->nlat, c->nnolat);
}

/* Warn where the measurement and the documented table disagree by more
 * than 15%: the table is checked, the measurement used. */
static void check_table(const struct core *c)
{
	for (size_t p = 0; p < CORE_PARAM_COUNT; p++) {
		double t = c->table_value[p], v = c->value[p];
		if (t > 0 && c->source[p] == CORE_SOURCE_MEASURED && (v > 1.15 * t || v < t / 1.15))
			perpi_warn("core: %s measured %.2f, the %s table says %g: using the "
				   "measurement",
				   core_param_info[p].name, v, c->table, t);
	}
}

/* The raw timings, in cycles per link or instruction (docs/CYCLES.md). */
static void show_probes(FILE *out, const struct core_probes *p)
{
	fprintf(out,
		"perpi core: probes: load %.2f, vector load + vmovq %.2f, vmovq round trip %.2f, "
		"forwarded %.2f, vector %.2f, renamed %.2f; nop %.3f, mix %.3f; loop %.2f; "
		"branch random %.2f, fixed %.2f; mulsd %.2f, addsd %.2f, both %.2f; stores to "
		"lines %.2f; cmp + cmove %.2f, cmovl %.2f, cmova %.2f; rep stosb of 64 KiB %.0f, "
		"rep movsb %.0f\n",
		p->load, p->load_vec, p->movq_round_trip, p->forward, p->forward_vec, p->renamed,
		p->nops, p->mix, p->loop, p->branch_random, p->branch_fixed, p->fp_mul, p->fp_add,
		p->fp_mul_add, p->store_lines, p->cmove, p->cmovl, p->cmova, p->stream_store,
		p->stream_copy);
	fprintf(out, "perpi core: window probe (fill: cycles per iteration):");
	for (size_t i = 0; i < p->nwindow; i++)
		fprintf(out, " %u:%.0f", p->window_fill[i], p->window_cycles[i]);
	fprintf(out, "\n");
}

struct form_set {
	char **forms;
	size_t n, cap;
};

static void add_form(struct form_set *s, const char *form)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->forms[i], form))
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->forms = xrealloc(s->forms, s->cap * sizeof(*s->forms));
	}
	s->forms[s->n++] = xstrdup(form);
}

/* The forms of the runs and of the model. */
static int collect_forms(const struct core_args *a, struct form_set *s)
{
	for (size_t i = 0; i < a->nfrom; i++) {
		char **forms;
		size_t n, undecoded;
		if (lift_trace_forms(a->from[i], &forms, &n, &undecoded) < 0)
			return -1;
		for (size_t k = 0; k < n; k++) {
			add_form(s, forms[k]);
			free(forms[k]);
		}
		free(forms);
	}
	if (a->model) {
		struct model *m;
		if (model_load(a->model, &m) < 0)
			return -1;
		for (size_t k = 0; k < m->nforms; k++)
			add_form(s, m->forms[k]);
		model_delete(m);
	}
	return 0;
}

static int measure_latencies(const struct core_args *a, struct core *c, struct form_set *s)
{
	struct db *db = NULL;
	struct bench_options o;
	if (bench_cli_open_db(a->db, &db) < 0)
		return -1;
	bench_options_default(&o);
	o.cpu = a->cpu;
	struct bench_ctx *b = bench_new(&o, db);
	struct bench_cli_progress p;
	bench_cli_progress_init(&p, "latencies");
	size_t got = core_measure_latencies(b, c, s->forms, s->n, bench_cli_progress, &p);
	bench_cli_progress_end(&p);
	fprintf(stderr, "perpi core: %zu of %zu form latencies measured (the others: %s)\n", got,
		s->n, "control flow, or no chain through what the form writes");
	bench_delete(b);
	db_close(db);
	return 0;
}

static void make_parent_dirs(const char *path)
{
	char *dir = xstrdup(path);
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0755);
			*p = '/';
		}
	free(dir);
}

static int run(const struct core_args *a, const char *path)
{
	struct core *c = NULL;
	struct form_set s = {0};
	FILE *f = fopen(path, "r");
	int rc = -1;
	if (f)
		fclose(f);
	if (f ? core_load(path, &c) < 0 : !(c = core_new(NULL)))
		return -1;
	if (collect_forms(a, &s) < 0)
		goto out;
	if (!a->no_probes) {
		fprintf(stderr, "perpi core: timing the probes (about a minute)\n");
		struct core_probes pr;
		if (core_measure_params(c, a->cpu, &pr) < 0)
			goto out;
		show_probes(stderr, &pr);
		core_probes_done(&pr);
		check_table(c);
	}
	if (s.n && measure_latencies(a, c, &s) < 0)
		goto out;
	make_parent_dirs(path);
	if (core_save(c, path) < 0)
		goto out;
	show(stdout, c, path);
	rc = 0;
out:
	for (size_t i = 0; i < s.n; i++)
		free(s.forms[i]);
	free(s.forms);
	core_delete(c);
	return rc;
}

int cmd_core(int argc, char **argv)
{
	struct core_args a;
	int r = parse(argc, argv, &a);
	if (r <= 0) {
		if (r < 0)
			fprintf(stderr, "perpi core: %s\n", perpi_error());
		free(a.from);
		return r < 0 ? 2 : 0;
	}
	char *def = a.output ? NULL : core_default_path();
	const char *path = a.output ? a.output : def;
	int rc = 0;
	if (a.show) {
		struct core *c;
		if (core_load(path, &c) < 0) {
			fprintf(stderr, "perpi core: %s\n", perpi_error());
			rc = 1;
		} else {
			show(stdout, c, path);
			core_delete(c);
		}
	} else if (run(&a, path) < 0) {
		fprintf(stderr, "perpi core: %s\n", perpi_error());
		rc = 1;
	}
	free(def);
	free(a.from);
	return rc;
}
