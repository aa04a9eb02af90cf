/* `perpi palmed`: build a resource model from benchmarks, show it, predict
 * with it, evaluate it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/palmed.h"
#include "common/util.h"
#include "palmed/model.h"

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
			fprintf(
			    c == 'h' ? stdout : stderr,
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
    {"build", palmed_build_main, "infer the CPU's resource model from benchmarks"},
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
