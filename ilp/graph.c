/* Data-flow graph: nodes and edges as the engine reports them, dot output. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/graph.h"
#include "ilp/hist.h"

struct node {
	uint64_t index, step;
	const struct perpi_insn *insn;
	size_t first_dep, n_deps; /* into graph->deps */
};

struct graph {
	uint64_t max_nodes, seen;
	struct node *nodes;
	size_t n_nodes, cap_nodes;
	struct engine_dep *deps;
	size_t n_deps, cap_deps;
};

static const char *const gpr_names[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
					  "r8",	 "r9",	"r10", "r11", "r12", "r13", "r14", "r15"};
static const char *const special_names[] = {"CF", "PF",	    "AF",     "ZF",    "SF",   "OF",
					    "DF", "fsbase", "gsbase", "mxcsr", "fpcw", "fpsw"};

const char *graph_unit_name(unsigned u)
{
	static char buf[32];
	if (u < UNIT_VEC)
		return gpr_names[u];
	if (u < UNIT_K) {
		unsigned n = (u - UNIT_VEC) / 3, p = (u - UNIT_VEC) % 3;
		static const char *const parts[3] = {"xmm%u", "ymm%u[128:255]", "zmm%u[256:511]"};
		snprintf(buf, sizeof(buf), parts[p], n);
	} else if (u < UNIT_X87) {
		snprintf(buf, sizeof(buf), "k%u", u - UNIT_K);
	} else if (u < UNIT_CF) {
		snprintf(buf, sizeof(buf), "R%u", u - UNIT_X87);
	} else if (u < UNIT_COUNT) {
		return special_names[u - UNIT_CF];
	} else {
		snprintf(buf, sizeof(buf), "unit%u", u);
	}
	return buf;
}

const char *graph_dep_name(const struct engine_dep *dep)
{
	static char buf[48];
	if (dep->kind == DEP_UNIT)
		return graph_unit_name((unsigned)dep->what);
	snprintf(buf, sizeof(buf), "[0x%llx]:%u", (unsigned long long)dep->what, dep->size);
	return buf;
}

struct graph *graph_new(uint64_t max_nodes)
{
	struct graph *g = xcalloc(1, sizeof(*g));
	g->max_nodes = max_nodes;
	return g;
}

void graph_delete(struct graph *g)
{
	if (!g)
		return;
	free(g->nodes);
	free(g->deps);
	free(g);
}

uint64_t graph_nodes_seen(const struct graph *g)
{
	return g->seen;
}

void graph_observe(void *graph, const struct engine_step_info *info)
{
	struct graph *g = graph;
	if (!info->step)
		return;
	if (g->seen++ >= g->max_nodes)
		return;
	if (g->n_nodes == g->cap_nodes) {
		g->cap_nodes = g->cap_nodes ? 2 * g->cap_nodes : 256;
		g->nodes = xrealloc(g->nodes, g->cap_nodes * sizeof(*g->nodes));
	}
	if (g->n_deps + info->n_deps > g->cap_deps) {
		while (g->n_deps + info->n_deps > g->cap_deps)
			g->cap_deps = g->cap_deps ? 2 * g->cap_deps : 512;
		g->deps = xrealloc(g->deps, g->cap_deps * sizeof(*g->deps));
	}
	struct node *n = &g->nodes[g->n_nodes++];
	n->index = info->index;
	n->step = info->step;
	n->insn = info->ev->insn;
	n->first_dep = g->n_deps;
	n->n_deps = info->n_deps;
	if (info->n_deps)
		memcpy(g->deps + g->n_deps, info->deps, info->n_deps * sizeof(*info->deps));
	g->n_deps += info->n_deps;
}

static void dot_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static int by_step(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a, *y = *(const struct node *const *)b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Nodes are kept in index order (the engine's order): binary search. */
static const struct node *find_node(const struct graph *g, uint64_t index)
{
	size_t lo = 0, hi = g->n_nodes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->nodes[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n_nodes && g->nodes[lo].index == index ? &g->nodes[lo] : NULL;
}

static void write_ranks(const struct graph *g, FILE *out)
{
	const struct node **order = xmalloc((g->n_nodes + 1) * sizeof(*order));
	for (size_t i = 0; i < g->n_nodes; i++)
		order[i] = &g->nodes[i];
	qsort(order, g->n_nodes, sizeof(*order), by_step);
	/* A column of step labels, chained invisibly, pins one rank per step. */
	for (size_t i = 0; i < g->n_nodes; i++) {
		if (i && order[i]->step == order[i - 1]->step)
			continue;
		fprintf(out,
			"  s%llu [label=\"step %llu\", shape=plaintext, style=\"\", "
			"fontname=\"sans-serif\"];\n",
			(unsigned long long)order[i]->step, (unsigned long long)order[i]->step);
		if (i)
			fprintf(out, "  s%llu -> s%llu [style=invis];\n",
				(unsigned long long)order[i - 1]->step,
				(unsigned long long)order[i]->step);
	}
	for (size_t i = 0; i < g->n_nodes; i++) {
		if (!i || order[i]->step != order[i - 1]->step)
			fprintf(out, "%s  { rank=same; s%llu;", i ? " }\n" : "",
				(unsigned long long)order[i]->step);
		fprintf(out, " n%llu;", (unsigned long long)order[i]->index);
	}
	if (g->n_nodes)
		fprintf(out, " }\n");
	free(order);
}

/* An edge over more than GRAPH_LONG_EDGE steps becomes a stub above its
 * reader naming the producer: Graphviz lays out every step an edge crosses
 * (a loop counter read at every step from step 1 made dot run for hours). */
static void write_edge(FILE *out, const struct node *from, const struct node *to, size_t d,
		       const char *label)
{
	unsigned long long f = from->index, t = to->index;
	if (to->step - from->step <= GRAPH_LONG_EDGE) {
		fprintf(out, "  n%llu -> n%llu [label=", f, t);
	} else {
		fprintf(out,
			"  r%llu_%zu [shape=plaintext, style=\"\", fontsize=9, label=\"from #%llu, "
			"step %llu\"];\n",
			t, d, f, (unsigned long long)from->step);
		fprintf(out, "  r%llu_%zu -> n%llu [style=dashed, label=", t, d, t);
	}
	dot_string(out, label);
	fprintf(out, "];\n");
}

int graph_write_dot(const struct graph *g, FILE *out, const struct insn_namer *namer,
		    const char *title)
{
	if (g->seen > g->max_nodes)
		return perpi_set_error("the graph has %llu nodes, more than the limit of %llu: "
				       "narrow it with --function, --call or --steps, or raise "
				       "--max-nodes",
				       (unsigned long long)g->seen,
				       (unsigned long long)g->max_nodes);
	fprintf(out, "digraph perpi {\n  graph [rankdir=TB, labelloc=t, fontname=\"sans-serif\", ");
	if (g->n_nodes > 500) /* fewer layout passes: dot's time halves on big graphs */
		fprintf(out, "nslimit=2, mclimit=0.3, ");
	fprintf(out, "label=");
	dot_string(out, title ? title : "data-flow graph");
	fprintf(out, "];\n  edge [fontname=\"monospace\", fontsize=9, color=\"#555555\"];\n");
	fprintf(out, "  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\", "
		     "fontsize=10];\n");
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct node *n = &g->nodes[i];
		char *label = xasprintf("%s\n%s", n->insn->text,
					filter_describe_addr(namer, n->insn, n->insn->addr));
		fprintf(out, "  n%llu [label=", (unsigned long long)n->index);
		dot_string(out, label);
		fprintf(out, ", fillcolor=\"%s60\", tooltip=\"#%llu, step %llu, %s\"];\n",
			hist_class_colour(n->insn->klass), (unsigned long long)n->index,
			(unsigned long long)n->step, hist_class_name(n->insn->klass));
		free(label);
	}
	write_ranks(g, out);
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct node *n = &g->nodes[i];
		const struct engine_dep *deps = &g->deps[n->first_dep];
		for (size_t d = 0; d < n->n_deps; d++) {
			const struct node *p = find_node(g, deps[d].producer);
			if (!p)
				continue; /* produced outside the graph's range */
			size_t e = 0;
			while (e < d && deps[e].producer != deps[d].producer)
				e++;
			if (e < d)
				continue; /* already drawn with the first one */
			/* One edge per producer, labelled with all it carries. */
			struct strbuf label;
			strbuf_init(&label);
			for (e = d; e < n->n_deps; e++)
				if (deps[e].producer == deps[d].producer)
					strbuf_addf(&label, "%s%s", e > d ? ", " : "",
						    graph_dep_name(&deps[e]));
			write_edge(out, p, n, d, label.buf);
			strbuf_done(&label);
		}
	}
	fprintf(out, "}\n");
	return 0;
}
