/* perpi measure's plan: which functions' entries are taken over, what
 * their calls mean (a --function's calls, the region's start or end), and
 * the figures they feed. measure_run.c runs the program; measure_stats.c
 * makes the figures. */
#include "tracer/measure.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tracer/elf.h"
#include "tracer/measure_internal.h"
#include "tracer/process.h"
#include "tracer/x86.h"

struct measure_session *measure_new(const struct measure_options *opt)
{
	struct measure_session *s = xcalloc(1, sizeof(*s));
	s->opt = *opt;
	s->region_figure = -1;
	return s;
}

void measure_delete(struct measure_session *s)
{
	if (!s)
		return;
	if (s->dec)
		x86_decoder_delete(s->dec);
	elf_image_delete(s->prog);
	for (size_t i = 0; i < s->n_probes; i++)
		free(s->probes[i].sites);
	free(s->probes);
	free(s->names);
	free(s->is_region);
	free(s->region_name);
	free(s->path);
	free(s);
}

static int figure_add(struct measure_session *s, const char *name, int is_region)
{
	s->names = xrealloc(s->names, (s->n_figures + 1) * sizeof(*s->names));
	s->is_region = xrealloc(s->is_region, (s->n_figures + 1) * sizeof(*s->is_region));
	s->names[s->n_figures] = name;
	s->is_region[s->n_figures] = is_region;
	return (int)s->n_figures++;
}

static int probe_add(struct measure_session *s, const char *what, const char *name, int role,
		     int figure)
{
	const struct elf_symbol *sym = elf_image_lookup(s->prog, name);
	if (!sym)
		return perpi_set_error("%s %s: no function of that name in %s (perpi measure times "
				       "the program's own functions; is it static and the "
				       "program stripped?)",
				       what, name, s->path);
	for (size_t i = 0; i < s->n_probes; i++)
		if (s->probes[i].link == sym->value)
			return perpi_set_error("%s %s: given twice", what, name);
	s->probes = xrealloc(s->probes, (s->n_probes + 1) * sizeof(*s->probes));
	s->probes[s->n_probes++] = (struct probe){.name = sym->name,
						  .role = role,
						  .figure = figure,
						  .link = sym->value,
						  .size = sym->size};
	return 0;
}

/* The region: --start/--stop, else the perpi.h markers, else main. */
static int plan_region(struct measure_session *s)
{
	const struct measure_options *o = &s->opt;
	if (o->start || o->stop) {
		if (!o->start || !o->stop)
			return perpi_set_error("--start and --stop: give both (perpi measure times "
					       "from the entry of one function to the entry of "
					       "the other)");
		s->region_name = xasprintf("%s..%s", o->start, o->stop);
		s->region_figure = figure_add(s, s->region_name, 1);
		if (probe_add(s, "--start", o->start, ROLE_START, -1) < 0 ||
		    probe_add(s, "--stop", o->stop, ROLE_STOP, -1) < 0)
			return -1;
		return 0;
	}
	if (elf_image_lookup(s->prog, "perpi_start") && elf_image_lookup(s->prog, "perpi_stop")) {
		s->region_figure = figure_add(s, "perpi_start..perpi_stop", 1);
		if (probe_add(s, "marker", "perpi_start", ROLE_START, -1) < 0 ||
		    probe_add(s, "marker", "perpi_stop", ROLE_STOP, -1) < 0)
			return -1;
		return 0;
	}
	if (!elf_image_lookup(s->prog, "main"))
		return perpi_set_error("%s: no main, no perpi_start/perpi_stop markers (a "
				       "stripped program?): name what to time with --function "
				       "or --start/--stop",
				       s->path);
	s->region_figure = figure_add(s, "main", 1);
	return probe_add(s, "region", "main", ROLE_CALLS, s->region_figure);
}

int measure_prepare(struct measure_session *s, char *const argv[])
{
	const struct measure_options *o = &s->opt;
	if (o->n_functions && (o->start || o->stop))
		return perpi_set_error("--function: cannot be combined with --start/--stop"), -2;
	s->cpu = process_pin_cpu(o->cpu);
	if (s->cpu < 0)
		return -2;
	s->path = elf_find_program(argv[0]);
	if (!s->path)
		return -1;
	s->prog = elf_image_open(s->path);
	if (!s->prog)
		return -1;
	s->dec = x86_decoder_new();
	for (size_t i = 0; i < o->n_functions; i++) {
		int fig = figure_add(s, o->functions[i], 0);
		if (probe_add(s, "--function", o->functions[i], ROLE_CALLS, fig) < 0)
			return -2;
	}
	if (!o->n_functions && plan_region(s) < 0)
		return -2;
	return 0;
}

size_t measure_figures(const struct measure_session *s, const char *const **names,
		       const int **is_region)
{
	*names = s->names;
	*is_region = s->is_region;
	return s->n_figures;
}
