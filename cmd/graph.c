/* perpi graph: the data-flow graph of a recorded run as Graphviz dot. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "cmd/options.h"
#include "ilp/filter.h"
#include "ilp/graph.h"

static const struct cmd_info info = {
    CMD_GRAPH, "perpi graph",
    "usage: perpi graph -o FILE.dot [--max-nodes N] [-i FILE] [OPTIONS]\n"
    "The data-flow graph, one rank per step; render it with\n"
    "'dot -Tsvg FILE.dot -o FILE.svg'.\n\n",
    NULL};

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

static int write_graph(const struct cmd_args *a, const struct graph *g,
		       const struct filter_result *r, struct trace_reader *reader)
{
	const struct filter_options *o = &a->filter;
	if (graph_nodes_seen(g) > a->max_nodes && (o->step_first || o->step_last != UINT64_MAX))
		/* the ideal machine runs a loop's independent instructions in
		 * one step: a few steps can hold thousands */
		return perpi_set_error("the graph has %" PRIu64 " nodes, more than the limit of "
				       "%" PRIu64 ": the %" PRIu64 " steps of --steps hold %" PRIu64
				       " instructions; narrow it with --function or --call, "
				       "or raise --max-nodes",
				       graph_nodes_seen(g), a->max_nodes, r->totals.steps,
				       r->totals.insns);
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

static int graph(struct cmd_args *a, char **argv)
{
	if (!a->output) {
		fprintf(stderr, "perpi graph: no output file: give -o FILE.dot\n");
		return 2;
	}
	struct filter_result r;
	struct trace_reader *reader;
	struct graph *g = graph_new(a->max_nodes);
	struct filter_observer obs = {graph_observe, g, 1};
	if (filter_run(&a->filter, &obs, 1, &r, &reader) < 0) {
		fprintf(stderr, "perpi graph: %s\n", perpi_error());
		graph_delete(g);
		return 1;
	}
	int rc = write_graph(a, g, &r, reader);
	if (rc < 0)
		fprintf(stderr, "perpi graph: %s\n", perpi_error());
	else if (strcmp(a->output, "-"))
		fprintf(stderr, "perpi graph: %" PRIu64 " nodes written to %s\n",
			graph_nodes_seen(g), a->output);
	graph_delete(g);
	filter_result_done(&r);
	trace_reader_close(reader);
	return rc < 0 ? 1 : 0;
}

int cmd_graph(int argc, char **argv)
{
	return cmd_main(&info, argc, argv, graph);
}
