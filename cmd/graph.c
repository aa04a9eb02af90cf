/* perpi graph: the data-flow graph of a recorded run as Graphviz dot. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "ilp/filter.h"
#include "ilp/graph.h"

struct graph_args {
	const char *output;
	uint64_t max_nodes;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: perpi graph -o FILE.dot [--max-nodes N] [-i FILE] [OPTIONS]\n"
		"The data-flow graph, one rank per step; render it with\n"
		"'dot -Tsvg FILE.dot -o FILE.svg'.\n"
		"  -o FILE             the dot file to write ('-': standard output)\n"
		"  --max-nodes N       allow more than %d nodes\n%s",
		GRAPH_DEFAULT_MAX_NODES, filter_usage);
}

static int own_option(void *ctx, int argc, char **argv, int *i)
{
	struct graph_args *a = ctx;
	const char *opt = argv[*i];
	if (strcmp(opt, "-o") && strcmp(opt, "--max-nodes"))
		return 0;
	if (*i + 1 >= argc)
		return perpi_set_error("%s needs a value", opt);
	const char *v = argv[++*i];
	if (!strcmp(opt, "-o")) {
		a->output = v;
		return 1;
	}
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	if (*end || !*v || *v == '-' || n < 1)
		return perpi_set_error("--max-nodes: '%s' is not a positive number", v);
	a->max_nodes = n;
	return 1;
}

static char *graph_title(const struct filter_options *o, const struct filter_result *r)
{
	const char *argv = o->input;
	for (size_t i = 0; i < r->n_meta; i++)
		if (!strcmp(r->meta[i].key, "argv"))
			argv = r->meta[i].value;
	return xasprintf("%s%s%s: %" PRIu64 " instructions in %" PRIu64 " steps", argv,
			 o->function ? " --function " : "", o->function ? o->function : "",
			 r->totals.insns, r->totals.steps);
}

static int write_graph(const struct graph_args *a, const struct graph *g,
		       const struct filter_options *o, const struct filter_result *r,
		       struct trace_reader *reader)
{
	if (graph_nodes_seen(g) > a->max_nodes)
		return graph_write_dot(g, NULL, NULL, NULL); /* sets the message */
	int to_stdout = !strcmp(a->output, "-");
	FILE *fp = to_stdout ? stdout : fopen(a->output, "w");
	if (!fp)
		return perpi_set_error("cannot create %s: %m", a->output);
	struct insn_namer namer = filter_trace_namer(reader);
	char *title = graph_title(o, r);
	int rc = graph_write_dot(g, fp, &namer, title);
	free(title);
	if ((to_stdout ? fflush(fp) : fclose(fp)) != 0 && rc == 0)
		rc = perpi_set_error("writing %s: %m", a->output);
	if (rc < 0 && !to_stdout)
		unlink(a->output);
	return rc;
}

int cmd_graph(int argc, char **argv)
{
	struct filter_options o;
	struct filter_result r;
	struct trace_reader *reader;
	struct graph_args a = {NULL, GRAPH_DEFAULT_MAX_NODES};
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	filter_options_init(&o);
	if (filter_parse_args(&o, argc, argv, own_option, &a, "graph") < 0)
		return 2;
	if (!a.output) {
		fprintf(stderr, "perpi graph: no output file: give -o FILE.dot\n");
		return 2;
	}
	struct graph *g = graph_new(a.max_nodes);
	struct filter_observer obs = {graph_observe, g, 1};
	if (filter_run(&o, &obs, 1, &r, &reader) < 0) {
		fprintf(stderr, "perpi graph: %s\n", perpi_error());
		graph_delete(g);
		return 1;
	}
	int rc = write_graph(&a, g, &o, &r, reader);
	if (rc < 0)
		fprintf(stderr, "perpi graph: %s\n", perpi_error());
	else if (strcmp(a.output, "-"))
		fprintf(stderr, "perpi graph: %" PRIu64 " nodes written to %s\n",
			graph_nodes_seen(g), a.output);
	graph_delete(g);
	filter_result_done(&r);
	trace_reader_close(reader);
	return rc < 0 ? 1 : 0;
}
