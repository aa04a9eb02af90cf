/* Showing a model: a table and a Graphviz picture. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/model.h"

char *model_default_path(void)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		return xasprintf("%s/perpi/model.json", xdg);
	return xasprintf("%s/.local/share/perpi/model.json", home && *home ? home : ".");
}

static int same_usage(const struct model *m, size_t a, size_t b)
{
	for (size_t r = 0; r < m->nres; r++)
		if (model_rho(m, a, r) != model_rho(m, b, r))
			return 0;
	return 1;
}

/* A row of the table: up to SHOWN forms, the heaviest users first, then
 * how many more (a catalogue model has thousands). */
#define SHOWN 12

static const struct model *ordering;
static size_t ordering_res;

static int by_usage(const void *a, const void *b)
{
	double x = model_rho(ordering, *(const size_t *)a, ordering_res);
	double y = model_rho(ordering, *(const size_t *)b, ordering_res);
	if (x != y)
		return x > y ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) -
	       (*(const size_t *)a < *(const size_t *)b);
}

static void show_resources(const struct model *m, FILE *out)
{
	size_t *users = xmalloc((m->nforms + 1) * sizeof(size_t));
	fprintf(out, "%-6s %s\n", "resource",
		"forms using it (usage per instance; 1 = the whole resource for a cycle), the "
		"heaviest first");
	for (size_t r = 0; r < m->nres; r++) {
		size_t n = 0;
		for (size_t i = 0; i < m->nforms; i++)
			if (model_rho(m, i, r) > 0)
				users[n++] = i;
		ordering = m;
		ordering_res = r;
		qsort(users, n, sizeof(size_t), by_usage);
		fprintf(out, "%-8s", m->res[r].name);
		for (size_t k = 0; k < n && k < SHOWN; k++)
			fprintf(out, "%s%s %.3g", k ? ", " : " ", m->forms[users[k]],
				model_rho(m, users[k], r));
		if (n > SHOWN)
			fprintf(out, ", and %zu more forms", n - SHOWN);
		fprintf(out, "\n");
		if (m->res[r].kernel)
			fprintf(out, "         bottleneck of: %.200s%s\n", m->res[r].kernel,
				strlen(m->res[r].kernel) > 200 ? "..." : "");
	}
	free(users);
}

static void show_forms(const struct model *m, FILE *out)
{
	fprintf(out, "\n%-28s %8s %6s  %s\n", "form", "cycles", "IPC", "usage");
	for (size_t i = 0; i < m->nforms; i++) {
		fprintf(out, "%-28s %8.3f %6.2f ", m->forms[i], m->form_cycles[i],
			m->form_cycles[i] > 0 ? 1 / m->form_cycles[i] : 0);
		for (size_t r = 0, shown = 0; r < m->nres; r++)
			if (model_rho(m, i, r) > 0)
				fprintf(out, "%s%s %.3g", shown++ ? ", " : " ", m->res[r].name,
					model_rho(m, i, r));
		fprintf(out, "\n");
	}
}

static int by_row(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	for (size_t r = 0; r < ordering->nres; r++) {
		double x = model_rho(ordering, i, r), y = model_rho(ordering, j, r);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return (i > j) - (i < j);
}

/* Forms with the same usages, found by sorting the rows (n log n: a
 * catalogue has thousands of forms). */
static void show_classes(const struct model *m, FILE *out)
{
	int header = 0;
	size_t *order = xmalloc((m->nforms + 1) * sizeof(size_t));
	for (size_t i = 0; i < m->nforms; i++)
		order[i] = i;
	ordering = m;
	qsort(order, m->nforms, sizeof(size_t), by_row);
	for (size_t a = 0, b; a < m->nforms; a = b) {
		for (b = a + 1; b < m->nforms && same_usage(m, order[a], order[b]); b++)
			;
		if (b - a < 2)
			continue;
		if (!header++)
			fprintf(out, "\nclasses (forms that use the same resources alike):\n");
		for (size_t k = a; k < b; k++)
			fprintf(out, "%s%s", k == a ? "  " : " ", m->forms[order[k]]);
		fprintf(out, "\n");
	}
	free(order);
}

void model_show(const struct model *m, FILE *out)
{
	fprintf(out,
		"cpu: %s\n%zu forms mapped on %zu resources, %zu unmapped; built from %u "
		"benchmarks (%zu measurements kept%s%s)\n\n",
		m->cpu, m->nforms, m->nres, m->nunmapped, m->benchmarks,
		m->meas_path ? m->meas_count : m->nmeas, m->meas_path ? " in " : "",
		m->meas_path ? m->meas_path : "");
	if (m->ncores) {
		fprintf(out,
			"%zu cores: predictions are the mean of their cycles; below, the "
			"first's resources (the others':",
			m->ncores + 1);
		for (size_t c = 0; c < m->ncores; c++)
			fprintf(out, "%s %zu forms on %zu resources", c ? "," : "",
				m->cores[c]->nforms, m->cores[c]->nres);
		fprintf(out, ")\n\n");
	}
	if (m->store_turn > 0)
		fprintf(out,
			"stores to other cache lines in turn: %.2f cycles a store to another "
			"line than the store before, past its half cycle\n\n",
			m->store_turn);
	if (m->rmw_turn > m->store_turn)
		fprintf(out,
			"a plain store beside read-modify-writes, other lines in turn: %.2f "
			"cycles past its half cycle\n\n",
			m->rmw_turn);
	show_resources(m, out);
	show_forms(m, out);
	show_classes(m, out);
	if (m->nstrings)
		fprintf(out, "\nREP forms timed at two lengths (one execution of n iterations: "
			     "start + n x iteration):\n");
	for (size_t i = 0; i < m->nstrings; i++)
		fprintf(out, "  %-28s start %8.3f, %.4f an iteration\n", m->strings[i].form,
			m->strings[i].start, m->strings[i].iteration);
	if (m->nunmapped)
		fprintf(out, "\nunmapped forms:\n");
	for (size_t i = 0; i < m->nunmapped; i++)
		fprintf(out, "  %-28s %s\n", m->unmapped[i].form, m->unmapped[i].reason);
}

/* Past this many edges the usages are left off the edges (the table has
 * them) and edges are straight and translucent: a fitted model of a
 * hundred forms has a thousand or more, and labelled edges made the
 * picture 76,000 points tall. */
#define DOT_LABELLED_EDGES 150

void model_write_dot(const struct model *m, FILE *out)
{
	size_t edges = 0;
	for (size_t i = 0; i < m->nforms; i++)
		for (size_t r = 0; r < m->nres; r++)
			edges += model_rho(m, i, r) > 0;
	int dense = edges > DOT_LABELLED_EDGES;
	fprintf(out, "// perpi palmed show --dot: forms (boxes) and the resources they use\n");
	if (dense)
		fprintf(out,
			"// %zu edges: the usages are in 'perpi palmed show', the edges' width "
			"shows them\n",
			edges);
	fprintf(out, "graph palmed {\n\trankdir=LR;\n\tnode [fontname=\"sans-serif\"];\n");
	if (dense)
		fprintf(out, "\tsplines=line;\n\tnodesep=0.05;\n\tranksep=6;\n"
			     "\tedge [color=\"#1f3b6040\"];\n");
	for (size_t i = 0; i < m->nforms; i++)
		fprintf(out, "\t\"f:%s\" [label=\"%s\", shape=box];\n", m->forms[i], m->forms[i]);
	for (size_t r = 0; r < m->nres; r++)
		fprintf(out,
			"\t\"r:%s\" [label=\"%s\", shape=ellipse, style=filled, "
			"fillcolor=\"#dde8f5\"];\n",
			m->res[r].name, m->res[r].name);
	for (size_t i = 0; i < m->nforms; i++)
		for (size_t r = 0; r < m->nres; r++) {
			double rho = model_rho(m, i, r), width = 0.5 + 2.5 * (rho > 1 ? 1 : rho);
			if (rho <= 0)
				continue;
			if (dense)
				fprintf(out, "\t\"f:%s\" -- \"r:%s\" [penwidth=%.2f];\n",
					m->forms[i], m->res[r].name, width);
			else
				fprintf(out,
					"\t\"f:%s\" -- \"r:%s\" [label=\"%.3g\", penwidth=%.2f];\n",
					m->forms[i], m->res[r].name, rho, width);
		}
	fprintf(out, "}\n");
}
