/* perpi measure's output: the figures as a table or as JSON. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd/measure.h"
#include "palmed/timing.h"
#include "common/util.h"

static void clock_text(FILE *out, const struct measured *m)
{
	if (m->clock == MEASURED_CLOCK_CYCLES)
		fprintf(out, "core cycles counted (the cycle counter, PAPI_TOT_CYC's event)");
	else
		fprintf(out,
			"core cycles from the TSC at %.4f ticks per cycle (calibrated by a chain "
			"of dependent adds)",
			m->ticks_per_cycle);
}

static void figure_line(FILE *out, const struct measured_figure *f)
{
	char name[64];
	snprintf(name, sizeof(name), "%s%s", f->is_region ? "region " : "", f->name);
	fprintf(out, "%-36s %10llu %12.0f %12.0f %14.0f", name, (unsigned long long)f->calls,
		f->min, f->median, f->total);
	if (f->unfinished)
		fprintf(out, "   (%llu %s)", (unsigned long long)f->unfinished,
			f->is_region ? "never ended" : "never returned");
	fputc('\n', out);
}

void measure_print_text(FILE *out, const struct measured *m, const char *program,
			const struct measure_outcome *o)
{
	fprintf(out, "# perpi measure: %s\n# %u run%s%s; ", program, m->runs,
		m->runs == 1 ? "" : "s", m->runs < m->runs_asked ? " (fewer than asked)" : "");
	clock_text(out, m);
	fprintf(out, "\n# entries taken over by %s; overhead subtracted: ",
		m->method == MEASURED_BREAKPOINT ? "a breakpoint (a stop before each call)"
						 : "a jump to the timing stub");
	if (measured_region(m) && !strcmp(measured_region(m)->name, "main"))
		fprintf(out, "%.1f cycles per call\n", m->overhead);
	else if (measured_region(m))
		fprintf(out, "%.1f cycles per region\n", m->region_overhead);
	else
		fprintf(out, "%.1f cycles per call, %.1f more per timed call nested in one\n",
			m->overhead, m->nested_overhead);
	fprintf(out, "# cycles: the smallest over the runs of each run's min, median and total\n");
	fprintf(out, "%-36s %10s %12s %12s %14s\n", "what", "calls", "min", "median", "total");
	int region = 0;
	for (size_t i = 0; i < m->n_figures; i++) {
		figure_line(out, &m->figures[i]);
		region |= m->figures[i].is_region;
	}
	if (!region && m->n_figures > 1)
		fprintf(out, "%-36s %10s %12s %12s %14.0f\n", "all (outermost timed calls)", "", "",
			"", m->whole);
	if (o && o->probe_worst > 0) {
		fprintf(out, "# throughput probe after the runs: %.3f cycles per add at the slowest",
			o->probe_worst);
		if (o->probe_best > 0)
			fprintf(out, " (best on this machine %.3f; %u run%s more than %.0f%% slower)",
				o->probe_best, o->slowed_runs, o->slowed_runs == 1 ? "" : "s",
				100 * (MEASURE_SLOWED - 1));
		fprintf(out, "\n");
		fprintf(out, "# window probe after the runs: %.2f at the largest (%u run%s above %.2f: "
			"the reorder window split)\n",
			o->window_worst, o->split_runs, o->split_runs == 1 ? "" : "s",
			timing_window_split());
	}
	for (size_t i = 0; o && i < o->n_problems; i++)
		fprintf(out, "# incomplete: %s\n", o->problems[i]);
}

static json_object *cycles(double v)
{
	char text[32];
	snprintf(text, sizeof(text), "%.1f", v);
	return json_object_new_double_s(v, text);
}

static json_object *figure_json(const struct measured_figure *f)
{
	json_object *j = json_object_new_object();
	json_object_object_add(j, "name", json_object_new_string(f->name));
	json_object_object_add(j, "calls", json_object_new_int64((int64_t)f->calls));
	json_object_object_add(j, "unfinished", json_object_new_int64((int64_t)f->unfinished));
	json_object_object_add(j, "min", cycles(f->min));
	json_object_object_add(j, "median", cycles(f->median));
	json_object_object_add(j, "total", cycles(f->total));
	return j;
}

static json_object *overhead_json(const struct measured *m)
{
	json_object *j = json_object_new_object();
	json_object_object_add(j, "call", cycles(m->overhead));
	json_object_object_add(j, "region", cycles(m->region_overhead));
	json_object_object_add(j, "nested_call", cycles(m->nested_overhead));
	return j;
}

void measure_print_json(FILE *out, const struct measured *m, const char *program,
			const struct measure_outcome *o)
{
	json_object *j = json_object_new_object(), *fns = json_object_new_array();
	json_object *region = NULL, *problems = json_object_new_array();
	for (size_t i = 0; i < m->n_figures; i++) {
		if (m->figures[i].is_region)
			region = figure_json(&m->figures[i]);
		else
			json_object_array_add(fns, figure_json(&m->figures[i]));
	}
	for (size_t i = 0; o && i < o->n_problems; i++)
		json_object_array_add(problems, json_object_new_string(o->problems[i]));
	json_object_object_add(j, "program", json_object_new_string(program));
	json_object_object_add(j, "unit", json_object_new_string("cycles"));
	json_object_object_add(j, "runs", json_object_new_int((int)m->runs));
	json_object_object_add(j, "runs_asked", json_object_new_int((int)m->runs_asked));
	json_object_object_add(j, "clock", json_object_new_string(measured_clock_name(m->clock)));
	json_object_object_add(j, "ticks_per_cycle", json_object_new_double(m->ticks_per_cycle));
	json_object_object_add(j, "method",
			       json_object_new_string(measured_method_name(m->method)));
	json_object_object_add(j, "overhead", overhead_json(m));
	json_object_object_add(j, "functions", fns);
	json_object_object_add(j, "region", region);
	json_object_object_add(j, "whole", cycles(m->whole));
	if (o && o->probe_worst > 0) {
		json_object *p = json_object_new_object();
		json_object_object_add(p, "slowest", json_object_new_double(o->probe_worst));
		json_object_object_add(p, "best", o->probe_best > 0
						      ? json_object_new_double(o->probe_best)
						      : NULL);
		json_object_object_add(p, "slowed_runs", json_object_new_int((int)o->slowed_runs));
		json_object_object_add(p, "window_largest", json_object_new_double(o->window_worst));
		json_object_object_add(p, "split_runs", json_object_new_int((int)o->split_runs));
		json_object_object_add(j, "probe", p);
	}
	json_object_object_add(j, "complete", json_object_new_boolean(!o || !o->n_problems));
	json_object_object_add(j, "problems", problems);
	fprintf(out, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY));
	json_object_put(j);
}
