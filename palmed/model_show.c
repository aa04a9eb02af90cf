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

static void show_resources(const struct model *m, FILE *out)
{
	fprintf(out, "%-6s %s\n", "resource",
		"forms using it (usage per instance; 1 = the whole "
		"resource for a cycle)");
	for (size_t r = 0; r < m->nres; r++) {
		fprintf(out, "%-8s", m->res[r].name);
		size_t shown = 0;
		for (size_t i = 0; i < m->nforms; i++) {
			double rho = model_rho(m, i, r);
			if (rho <= 0)
				continue;
			fprintf(out, "%s%s %.3g", shown++ ? ", " : " ", m->forms[i], rho);
		}
		fprintf(out, "\n");
		if (m->res[r].kernel)
			fprintf(out, "         bottleneck of: %.200s%s\n", m->res[r].kernel,
				strlen(m->res[r].kernel) > 200 ? "..." : "");
	}
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

static void show_classes(const struct model *m, FILE *out)
{
	int header = 0;
	char *seen = xcalloc(m->nforms + 1, 1);
	for (size_t i = 0; i < m->nforms; i++) {
		if (seen[i])
			continue;
		size_t members = 0;
		for (size_t j = i + 1; j < m->nforms; j++)
			if (!seen[j] && same_usage(m, i, j))
				members++;
		if (!members)
			continue;
		if (!header++)
			fprintf(out, "\nclasses (forms that use the same resources alike):\n");
		fprintf(out, "  %s", m->forms[i]);
		for (size_t j = i + 1; j < m->nforms; j++)
			if (!seen[j] && same_usage(m, i, j)) {
				seen[j] = 1;
				fprintf(out, " %s", m->forms[j]);
			}
		fprintf(out, "\n");
	}
	free(seen);
}

void model_show(const struct model *m, FILE *out)
{
	fprintf(out,
		"cpu: %s\n%zu forms mapped on %zu resources, %zu unmapped; built from %u "
		"benchmarks (%zu measurements kept%s%s)\n\n",
		m->cpu, m->nforms, m->nres, m->nunmapped, m->benchmarks,
		m->meas_path ? m->meas_count : m->nmeas, m->meas_path ? " in " : "",
		m->meas_path ? m->meas_path : "");
	show_resources(m, out);
	show_forms(m, out);
	show_classes(m, out);
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
