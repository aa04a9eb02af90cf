/* Predicted cycles in perpi's reports: see cycles_report.h. */
#include "palmed/cycles_report.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

int cycles_report_new(const char *core_path, const struct model *m, struct cycles_report **out)
{
	struct cycles_report *cr = xcalloc(1, sizeof(*cr));
	cr->core_path = core_path ? xstrdup(core_path) : core_default_path();
	*out = cr;
	FILE *f = core_path ? NULL : fopen(cr->core_path, "r");
	if (core_path || f) {
		if (f)
			fclose(f);
		if (core_load(cr->core_path, &cr->core) < 0) {
			if (core_path) {
				cycles_report_delete(cr);
				*out = NULL;
				return -1;
			}
			/* a damaged default core file must not stop the report */
			perpi_warn("ignoring the default core file: %s", perpi_error());
			cr->core = NULL;
		} else {
			core_check_cpu(cr->core);
		}
	} else if (errno != ENOENT) {
		perpi_warn("cannot read the core file %s: %s", cr->core_path, strerror(errno));
	}
	if (m && cr->core)
		cr->cycles = cycles_new(m, cr->core);
	return 0;
}

void cycles_report_delete(struct cycles_report *cr)
{
	if (!cr)
		return;
	cycles_delete(cr->cycles);
	core_delete(cr->core);
	free(cr->core_path);
	free(cr);
}

int cycles_report_event(struct cycles_report *cr, const struct perpi_event *ev)
{
	return cr && cr->cycles ? cycles_event(cr->cycles, ev) : 0;
}

void cycles_report_finish(struct cycles_report *cr)
{
	if (cr && cr->cycles && !cr->finished)
		cycles_finish(cr->cycles);
	if (cr)
		cr->finished = 1;
}

int cycles_report_figures(const struct cycles_report *cr, uint64_t entry, int whole_run,
			  struct cycles_figures *out)
{
	memset(out, 0, sizeof(*out));
	if (!cr || !cr->cycles)
		return -1;
	if (whole_run) {
		cycles_total(cr->cycles, out);
		return 0;
	}
	return cycles_function(cr->cycles, entry, out);
}

void cycles_report_set_measured(struct cycles_report *cr, const struct measured *m,
				const char *(*name)(void *ctx, uint64_t entry), void *ctx)
{
	cr->measured = m;
	cr->name = name;
	cr->name_ctx = ctx;
}

/* The native figure of the function entered at entry: NULL when it was
 * not timed or never called. */
static const struct measured_figure *figure_of(const struct cycles_report *cr, uint64_t entry)
{
	const char *name = cr->name ? cr->name(cr->name_ctx, entry) : NULL;
	const struct measured_figure *f = name ? measured_find(cr->measured, name) : NULL;
	return f && f->calls ? f : NULL;
}

int cycles_report_measured(const struct cycles_report *cr, uint64_t entry, int whole_run,
			   double *out)
{
	const struct measured *m = cr ? cr->measured : NULL;
	if (!m)
		return -1;
	if (whole_run) {
		const struct measured_figure *region = measured_region(m);
		if (region && !region->calls) /* the region never ran */
			return -1;
		*out = m->whole;
		return 0;
	}
	const struct measured_figure *f = figure_of(cr, entry);
	if (!f)
		return -1;
	*out = f->total;
	return 0;
}

void cycles_report_columns(const struct cycles_report *cr, uint64_t entry, int whole_run, char *buf,
			   size_t size)
{
	struct cycles_figures f;
	double measured;
	size_t used = 0;
	buf[0] = '\0';
	int predicted = cycles_report_figures(cr, entry, whole_run, &f) == 0;
	if (predicted)
		used += snprintf(buf + used, size - used, "cycles [%.1f] :: ", f.cycles);
	if (used < size && cycles_report_measured(cr, entry, whole_run, &measured) == 0)
		used += snprintf(buf + used, size - used, "measured [%.1f] :: ", measured);
	if (used < size && predicted && cycles_flagged(&f))
		snprintf(buf + used, size - used, "L1 misses [%.1f%%: cycles not reliable] :: ",
			 100 * cycles_l1_miss_rate(&f));
}

void cycles_report_header(FILE *out, const struct cycles_report *cr)
{
	if (cr && cr->cycles)
		fprintf(out,
			"# Core: %s (%s%s); cycles: predicted by the out-of-order model, bound: "
			"the resource bound\n",
			cr->core_path, cr->core->table ? cr->core->table : "no documented table",
			cr->core->nlat ? "" : ", no form latencies");
}

void cycles_report_hint(FILE *out, const struct cycles_report *cr)
{
	if (cr && !cr->core)
		fprintf(out,
			"perpi: no core file at %s: 'perpi core --from perpi.data' measures the "
			"latencies and core parameters, then the report adds predicted cycles\n",
			cr->core_path);
}

static json_object *number_or_null(int known, double v)
{
	return known ? json_object_new_double(v) : NULL;
}

void cycles_report_json(const struct cycles_report *cr, json_object *j, uint64_t entry,
			int whole_run, double resource_bound)
{
	struct cycles_figures f;
	double measured = 0;
	int predicted = cycles_report_figures(cr, entry, whole_run, &f) == 0;
	int has_measured = cycles_report_measured(cr, entry, whole_run, &measured) == 0;
	json_object *c = json_object_new_object();
	json_object_object_add(c, "predicted", number_or_null(predicted, f.cycles));
	json_object_object_add(c, "resource_bound",
			       number_or_null(resource_bound >= 0, resource_bound));
	json_object_object_add(c, "measured", number_or_null(has_measured, measured));
	const struct measured_figure *mf =
	    !whole_run && cr && cr->measured ? figure_of(cr, entry) : NULL;
	if (!whole_run)
		json_object_object_add(c, "measured_min_call",
				       number_or_null(mf != NULL, mf ? mf->min : 0));
	if (predicted) {
		json_object_object_add(c, "flagged", json_object_new_boolean(cycles_flagged(&f)));
		json_object_object_add(c, "min_call", number_or_null(!whole_run, f.min_call));
		json_object_object_add(c, "branches", json_object_new_int64((int64_t)f.branches));
		json_object_object_add(c, "mispredicts",
				       json_object_new_int64((int64_t)f.mispredicts));
		json_object_object_add(c, "mapped", json_object_new_int64((int64_t)f.mapped));
		json_object_object_add(c, "timed", json_object_new_int64((int64_t)f.timed));
	}
	json_object_object_add(j, "cycles", c);
	json_object_object_add(j, "l1_miss_rate",
			       number_or_null(predicted, cycles_l1_miss_rate(&f)));
}
