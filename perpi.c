/* perpi: instruction-level parallelism and resource-bound throughput of
 * x86-64 programs. main only dispatches to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cmd/commands.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{"run", cmd_run, "run a program and report its ILP per function (the default)"},
	{"record", cmd_record, "trace a program into perpi.data for report, hist, graph, critical"},
	{"report", cmd_report, "the ILP of a recorded run's functions (text or JSON)"},
	{"hist", cmd_hist, "the ILP histogram by class (terminal, CSV, SVG)"},
	{"graph", cmd_graph, "the data-flow graph as Graphviz dot"},
	{"critical", cmd_critical, "a longest dependency chain, with source lines"},
	{"tui", cmd_tui, "browse a recorded run (or trace a program) in a curses interface"},
	{"measure", cmd_measure, "native cycles of a program's region or functions, unmodified"},
	{"bench", cmd_bench, "measure kernels of instruction forms on this CPU (Pipedream)"},
	{"forms", cmd_forms, "discover which instruction forms this CPU can benchmark"},
	{"db", cmd_db, "export or import the measurement database"},
	{"palmed", cmd_palmed, "CPU resource model from benchmarks: build, show, predict, eval"},
	{"core", cmd_core, "measure the core parameters and latencies the cycle prediction needs"},
	{"eval", cmd_eval, "predicted against native cycles over a suite of kernels"},
	{"help", NULL, "this list"},
};

static int usage(FILE *out)
{
	fprintf(out, "usage: perpi [OPTIONS] PROGRAM [ARGS...]\n"
		     "       perpi COMMAND [OPTIONS] [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'perpi run --help' lists the options of the default command;\n"
		     "'perpi COMMAND --help' and 'man perpi' tell more.\n");
	return out == stderr ? 2 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "--version")) {
		printf("perpi %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage(stdout);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].run && !strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	/* perpi [OPTIONS] PROGRAM [ARGS...] is perpi run */
	return cmd_run(argc, argv);
}
