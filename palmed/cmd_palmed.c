/* `perpi palmed`: build a resource model from benchmarks, show it, predict
 * with it, evaluate it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "common/util.h"
#include "palmed/infer.h"
#include "palmed/lift.h"
#include "palmed/model.h"
#include "palmed/predict.h"
#include "palmed/sim.h"

static void build_usage(FILE *out)
{
	fprintf(out,
		"usage: perpi palmed build [--sim MACHINE] [--from perpi.data] [-o MODEL] [-q]\n"
		"  --from FILE    model just the forms a recorded run executed\n"
		"  --sim MACHINE  infer the model of a simulated machine:");
	for (size_t i = 0; sim_machine_at(i); i++)
		fprintf(out, " %s", sim_machine_at(i)->name);
	fprintf(out, "\n  -o MODEL       where to write the model (default: "
		     "$XDG_DATA_HOME/perpi/model.json)\n"
		     "  -q             no progress\n");
}

/* mkdir -p of the directory part of path. */
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

/* --from FILE: the forms of the instructions a recorded run executed. */
static int forms_from_trace(const char *path, char ***names, size_t *n, int quiet)
{
	size_t undecoded;
	if (lift_trace_forms(path, names, n, &undecoded) < 0) {
		fprintf(stderr, "perpi: palmed build: --from %s\n", perpi_error());
		return -1;
	}
	if (!quiet)
		fprintf(stderr, "palmed: %zu forms from %s\n", *n, path);
	if (undecoded)
		perpi_warn("palmed build: %zu instructions of %s have no form (neither Capstone "
			   "nor Zydis decodes them)",
			   undecoded, path);
	return 0;
}

static int build_sim(const char *machine, const char *out_path, int quiet, char **from,
		     size_t nfrom)
{
	const struct sim_machine *sim = sim_find(machine);
	if (!sim) {
		fprintf(stderr, "perpi: palmed build: no simulated machine '%s' (try: overlap, "
				"intel, zen)\n",
			machine);
		return 2;
	}
	struct measure ms;
	struct infer_options o;
	struct infer_stats stats;
	struct model *m;
	size_t nforms = from ? nfrom : sim->nforms;
	const char **forms = xmalloc((nforms + 1) * sizeof(char *));
	for (size_t i = 0; i < nforms; i++)
		forms[i] = from ? from[i] : sim->forms[i].name;
	sim_measure(sim, &ms);
	infer_options_exact(&o);
	o.progress = quiet ? NULL : stderr;
	double start = perpi_now();
	int rc = infer_model(&ms, forms, nforms, &o, &m, &stats);
	free(forms);
	if (rc < 0) {
		fprintf(stderr, "perpi: palmed build: %s\n", perpi_error());
		return 1;
	}
	make_parent_dirs(out_path);
	if (model_save(m, out_path) < 0) {
		fprintf(stderr, "perpi: palmed build: %s\n", perpi_error());
		model_delete(m);
		return 1;
	}
	printf("%s: %zu forms on %zu resources (%zu unmapped) from %u benchmarks in %.1f s\n",
	       out_path, m->nforms, m->nres, m->nunmapped, stats.benchmarks, perpi_now() - start);
	model_delete(m);
	return 0;
}

static int palmed_build(int argc, char **argv)
{
	static const struct option longopts[] = {{"sim", required_argument, NULL, 's'},
						 {"from", required_argument, NULL, 'F'},
						 {"output", required_argument, NULL, 'o'},
						 {"quiet", no_argument, NULL, 'q'},
						 {"help", no_argument, NULL, 'h'},
						 {0}};
	const char *sim = NULL, *out = NULL, *from = NULL;
	int quiet = 0, c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 's': sim = optarg; break;
		case 'F': from = optarg; break;
		case 'o': out = optarg; break;
		case 'q': quiet = 1; break;
		default: build_usage(c == 'h' ? stdout : stderr); return c == 'h' ? 0 : 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perpi: palmed build: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	char **forms = NULL;
	size_t nforms = 0;
	if (from && forms_from_trace(from, &forms, &nforms, quiet) < 0)
		return 1;
	char *def = out ? NULL : model_default_path();
	int rc;
	if (sim) {
		rc = build_sim(sim, out ? out : def, quiet, forms, nforms);
	} else {
		fprintf(stderr, "perpi: palmed build: measuring this CPU needs the benchmark "
				"runner, not built in; use --sim MACHINE\n");
		rc = 2;
	}
	for (size_t i = 0; i < nforms; i++)
		free(forms[i]);
	free(forms);
	free(def);
	return rc;
}

static int palmed_show(int argc, char **argv)
{
	static const struct option longopts[] = {{"model", required_argument, NULL, 'm'},
						 {"dot", required_argument, NULL, 'd'},
						 {"help", no_argument, NULL, 'h'},
						 {0}};
	const char *path = NULL, *dot = NULL;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+m:h", longopts, NULL)) != -1) {
		if (c == 'm') {
			path = optarg;
		} else if (c == 'd') {
			dot = optarg;
		} else {
			fprintf(c == 'h' ? stdout : stderr,
				"usage: perpi palmed show [-m MODEL] [--dot FILE]\n"
				"  --dot FILE  also write the form/resource graph (Graphviz; '-' for "
				"stdout)\n");
			return c == 'h' ? 0 : 2;
		}
	}
	struct model *m;
	char *def = path ? NULL : model_default_path();
	if (model_load(path ? path : def, &m) < 0) {
		fprintf(stderr, "perpi: palmed show: %s\n", perpi_error());
		free(def);
		return 1;
	}
	printf("model: %s\n", path ? path : def);
	free(def);
	int rc = 0;
	if (dot && !strcmp(dot, "-")) {
		model_write_dot(m, stdout);
	} else {
		model_show(m, stdout);
		if (dot) {
			FILE *f = fopen(dot, "w");
			if (!f) {
				fprintf(stderr, "perpi: palmed show: cannot write '%s': %s\n", dot,
					strerror(errno));
				rc = 1;
			} else {
				model_write_dot(m, f);
				fclose(f);
			}
		}
	}
	model_delete(m);
	return rc;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} subcommands[] = {
	{"build", palmed_build, "infer the CPU's resource model from benchmarks"},
	{"show", palmed_show, "resources, the forms using each, and the graph"},
	{"predict", palmed_predict_main, "cycles, IPC and bottleneck of a kernel"},
	{"eval", palmed_eval_main, "accuracy on held-out kernels"},
};

int cmd_palmed(int argc, char **argv)
{
	if (argc >= 2)
		for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
			if (!strcmp(argv[1], subcommands[i].name))
				return subcommands[i].run(argc - 1, argv + 1);
	int help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help"));
	FILE *out = help ? stdout : stderr;
	if (argc >= 2 && !help)
		fprintf(stderr, "perpi: palmed: unknown subcommand '%s'\n", argv[1]);
	fprintf(out, "usage: perpi palmed SUBCOMMAND [OPTIONS]\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		fprintf(out, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out, "\n'perpi palmed SUBCOMMAND --help' and 'man perpi-palmed' tell more.\n");
	return help ? 0 : 2;
}
