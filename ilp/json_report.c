/* The JSON report: metadata, options, totals, per-class counts and
 * per-function figures. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "common/util.h"
#include "ilp/hist.h"
#include "ilp/json_report.h"

static const char *const end_kinds[TRACE_END_KIND_COUNT] = {"exited", "signaled", "interrupted",
							    "detached"};

static json_object *json_u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

/* I / C with 6 decimals (the exact figures are beside it). */
static json_object *json_ilp(uint64_t insns, uint64_t steps)
{
	char text[32];
	if (!steps)
		return NULL;
	snprintf(text, sizeof(text), "%.6f", (double)insns / steps);
	return json_object_new_double_s((double)insns / steps, text);
}

static json_object *trace_object(const struct filter_options *o, const struct filter_result *r)
{
	json_object *t = json_object_new_object(), *meta = json_object_new_object();
	json_object_object_add(t, "file", o->input ? json_object_new_string(o->input) : NULL);
	for (size_t i = 0; i < r->n_meta; i++)
		json_object_object_add(meta, r->meta[i].key,
				       json_object_new_string(r->meta[i].value));
	json_object_object_add(t, "metadata", meta);
	json_object *end = json_object_new_object();
	json_object_object_add(end, "kind",
			       json_object_new_string(r->end.kind < TRACE_END_KIND_COUNT
							  ? end_kinds[r->end.kind]
							  : "unknown"));
	json_object_object_add(end, "status", json_object_new_int(r->end.status));
	json_object_object_add(end, "events", json_u64(r->end.events));
	json_object_object_add(t, "end", end);
	return t;
}

static json_object *options_object(const struct filter_options *o)
{
	json_object *j = json_object_new_object();
	json_object_object_add(j, "function",
			       o->function ? json_object_new_string(o->function) : NULL);
	json_object_object_add(j, "call", o->call ? json_u64(o->call) : NULL);
	json_object *steps = NULL;
	if (o->step_first || o->step_last != UINT64_MAX) {
		steps = json_object_new_array();
		json_object_array_add(steps, json_u64(o->step_first ? o->step_first : 1));
		json_object_array_add(steps,
				      o->step_last == UINT64_MAX ? NULL : json_u64(o->step_last));
	}
	json_object_object_add(j, "steps", steps);
	json_object *only = json_object_new_array();
	for (unsigned k = 0; k < CLASS_COUNT; k++)
		if (!o->engine.class_mask || o->engine.class_mask & (1u << k))
			json_object_array_add(only, json_object_new_string(hist_class_name(k)));
	json_object_object_add(j, "classes", only);
	json_object_object_add(j, "window", json_object_new_int64(o->engine.window));
	json_object_object_add(j, "width", json_object_new_int64(o->engine.width));
	json_object_object_add(j, "stack_engine", json_object_new_boolean(o->engine.stack_engine));
	json_object_object_add(j, "latency",
			       o->latency ? json_object_new_string(o->latency) : NULL);
	return j;
}

static const struct json_report_extra *extra_members; /* during json_report_write_extra */

static void add_extra(json_object *j, uint64_t entry, int whole_run)
{
	json_object *x = extra_members && extra_members->function
			     ? extra_members->function(extra_members->ctx, entry, whole_run)
			     : NULL;
	if (x)
		json_object_object_add(j, "palmed", x);
	if (extra_members && extra_members->add_members)
		extra_members->add_members(extra_members->members_ctx, j, entry, whole_run);
}

static json_object *totals_object(const struct filter_result *r)
{
	json_object *j = json_object_new_object(), *classes = json_object_new_object();
	json_object_object_add(j, "instructions", json_u64(r->totals.insns));
	json_object_object_add(j, "steps", json_u64(r->totals.steps));
	json_object_object_add(j, "ilp", json_ilp(r->totals.insns, r->totals.steps));
	json_object_object_add(j, "unknown", json_u64(r->totals.unknown));
	json_object_object_add(j, "syscalls", json_u64(r->totals.syscalls));
	for (unsigned k = 0; k < CLASS_COUNT; k++)
		json_object_object_add(classes, hist_class_name(k),
				       json_u64(r->totals.class_insns[k]));
	json_object_object_add(j, "classes", classes);
	add_extra(j, 0, 1);
	return j;
}

static int by_insns(const void *a, const void *b)
{
	const struct engine_function *x = a, *y = b;
	if (x->insns != y->insns)
		return x->insns > y->insns ? -1 : 1;
	return (x->entry > y->entry) - (x->entry < y->entry);
}

static json_object *functions_array(const struct filter_result *r, report_name_fn name,
				    void *name_ctx)
{
	struct engine_function *f = xmalloc((r->n_functions + 1) * sizeof(*f));
	if (r->n_functions)
		memcpy(f, r->functions, r->n_functions * sizeof(*f));
	qsort(f, r->n_functions, sizeof(*f), by_insns);
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < r->n_functions; i++) {
		json_object *j = json_object_new_object();
		char entry[24];
		snprintf(entry, sizeof(entry), "0x%llx", (unsigned long long)f[i].entry);
		const char *s = name ? name(name_ctx, f[i].entry) : NULL;
		json_object_object_add(j, "name", json_object_new_string(s ? s : entry));
		json_object_object_add(j, "entry", json_object_new_string(entry));
		json_object_object_add(j, "calls", json_u64(f[i].calls));
		json_object_object_add(j, "instructions", json_u64(f[i].insns));
		json_object_object_add(j, "steps", json_u64(f[i].steps));
		json_object_object_add(j, "ilp", json_ilp(f[i].insns, f[i].steps));
		add_extra(j, f[i].entry, 0);
		json_object_array_add(a, j);
	}
	free(f);
	return a;
}

int json_report_write(FILE *out, const struct filter_options *o, const struct filter_result *r,
		      report_name_fn name, void *name_ctx)
{
	return json_report_write_extra(out, o, r, name, name_ctx, NULL);
}

int json_report_write_extra(FILE *out, const struct filter_options *o,
			    const struct filter_result *r, report_name_fn name, void *name_ctx,
			    const struct json_report_extra *extra)
{
	extra_members = extra;
	json_object *root = json_object_new_object();
	json_object_object_add(root, "schema", json_object_new_int(JSON_REPORT_SCHEMA));
	json_object_object_add(root, "perpi_version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(root, "trace", trace_object(o, r));
	json_object_object_add(root, "options", options_object(o));
	json_object_object_add(root, "totals", totals_object(r));
	json_object_object_add(root, "instances", o->function ? json_u64(r->instances) : NULL);
	/* The per-function figures are the whole analysis's: none for a step range. */
	int ranged = o->step_first || o->step_last != UINT64_MAX;
	json_object_object_add(root, "functions",
			       ranged ? json_object_new_array()
				      : functions_array(r, name, name_ctx));
	if (extra && extra->root)
		json_object_object_add(root, "palmed", extra->root(extra->ctx));
	extra_members = NULL;
	const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE);
	int rc =
	    fprintf(out, "%s\n", s) < 0 ? perpi_set_error("writing the JSON report failed") : 0;
	json_object_put(root);
	return rc;
}
