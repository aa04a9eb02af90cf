/* The model file: versioned JSON (docs/MODEL.md). */
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/model.h"

static json_object *form_usage(const struct model *m, size_t i)
{
	json_object *usage = json_object_new_object();
	for (size_t r = 0; r < m->nres; r++)
		if (model_rho(m, i, r) > 0)
			json_object_object_add(usage, m->res[r].name,
					       json_object_new_double(model_rho(m, i, r)));
	return usage;
}

#define MEAS_HEADER "# perpi-palmed-measurements 1: cycles per iteration, kernel"

/* PATH.measurements: one "cycles<TAB>kernel" line per measurement. */
static int save_measurements(const struct model *m, const char *path)
{
	char *file = xasprintf("%s.measurements", path);
	FILE *f = fopen(file, "w");
	int rc = 0;
	if (!f) {
		rc = perpi_set_error("cannot write '%s': %s", file, strerror(errno));
	} else {
		fprintf(f, "%s\n", MEAS_HEADER);
		for (size_t i = 0; i < m->nmeas; i++)
			fprintf(f, "%.17g\t%s\n", m->meas[i].cycles, m->meas[i].kernel);
		if (fclose(f) != 0)
			rc = perpi_set_error("cannot write '%s': %s", file, strerror(errno));
	}
	free(file);
	return rc;
}

/* What each core of a model has of its own (docs/MODEL.md): the stores'
 * turns, resources, forms and REP timings, into o. */
static void save_core(json_object *o, const struct model *m)
{
	json_object *arr;
	if (m->store_turn > 0) /* optional: models before it have none */
		json_object_object_add(o, "store_turn", json_object_new_double(m->store_turn));
	if (m->rmw_turn > 0)
		json_object_object_add(o, "rmw_turn", json_object_new_double(m->rmw_turn));
	arr = json_object_new_array();
	for (size_t r = 0; r < m->nres; r++) {
		json_object *e = json_object_new_object();
		json_object_object_add(e, "name", json_object_new_string(m->res[r].name));
		if (m->res[r].kernel)
			json_object_object_add(e, "bottleneck_of",
					       json_object_new_string(m->res[r].kernel));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "resources", arr);
	arr = json_object_new_array();
	for (size_t i = 0; i < m->nforms; i++) {
		json_object *e = json_object_new_object();
		json_object_object_add(e, "form", json_object_new_string(m->forms[i]));
		json_object_object_add(e, "cycles", json_object_new_double(m->form_cycles[i]));
		json_object_object_add(e, "usage", form_usage(m, i));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "forms", arr);
	if (m->nstrings) {
		arr = json_object_new_array();
		for (size_t i = 0; i < m->nstrings; i++) {
			json_object *e = json_object_new_object();
			json_object_object_add(e, "form",
					       json_object_new_string(m->strings[i].form));
			json_object_object_add(e, "start",
					       json_object_new_double(m->strings[i].start));
			json_object_object_add(e, "iteration",
					       json_object_new_double(m->strings[i].iteration));
			json_object_array_add(arr, e);
		}
		json_object_object_add(o, "strings", arr);
	}
}

int model_save(const struct model *m, const char *path)
{
	json_object *root = json_object_new_object(), *arr;
	json_object_object_add(root, "format", json_object_new_string(MODEL_FORMAT));
	json_object_object_add(root, "version", json_object_new_int(MODEL_VERSION));
	json_object_object_add(root, "cpu", json_object_new_string(m->cpu));
	json_object_object_add(root, "benchmarks", json_object_new_int((int)m->benchmarks));
	save_core(root, m);
	arr = json_object_new_array();
	for (size_t i = 0; i < m->nunmapped; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "form", json_object_new_string(m->unmapped[i].form));
		json_object_object_add(o, "reason", json_object_new_string(m->unmapped[i].reason));
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "unmapped", arr);
	if (m->ncores) { /* optional: a model of one core has none */
		arr = json_object_new_array();
		for (size_t c = 0; c < m->ncores; c++) {
			json_object *o = json_object_new_object();
			save_core(o, m->cores[c]);
			json_object_array_add(arr, o);
		}
		json_object_object_add(root, "cores", arr);
	}
	const char *base = strrchr(path, '/');
	char *file = xasprintf("%s.measurements", base ? base + 1 : path);
	json_object_object_add(root, "measurements_file", json_object_new_string(file));
	json_object_object_add(root, "measurement_count", json_object_new_int64((int64_t)m->nmeas));
	free(file);
	int rc = json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY);
	json_object_put(root);
	if (rc < 0)
		return perpi_set_error("cannot write model '%s': %s", path, strerror(errno));
	return save_measurements(m, path);
}

/* Each getter fails with a message naming the file and the field. */
static const char *load_path;

static int get(json_object *o, const char *key, json_type type, json_object **out)
{
	if (!json_object_object_get_ex(o, key, out) ||
	    (!json_object_is_type(*out, type) &&
	     !(type == json_type_double && json_object_is_type(*out, json_type_int))))
		return perpi_set_error("corrupt model '%s': field '%s' missing or not a %s",
				       load_path, key, json_type_to_name(type));
	return 0;
}

static int get_string(json_object *o, const char *key, const char **out)
{
	json_object *v;
	if (get(o, key, json_type_string, &v) < 0)
		return -1;
	*out = json_object_get_string(v);
	return 0;
}

static int get_number(json_object *o, const char *key, double *out)
{
	json_object *v;
	if (get(o, key, json_type_double, &v) < 0)
		return -1;
	*out = json_object_get_double(v);
	if (!isfinite(*out) || *out < 0)
		return perpi_set_error("corrupt model '%s': field '%s' is %g, not a finite "
				       "non-negative number",
				       load_path, key, *out);
	return 0;
}

/* get_number for a field a model may lack (*out kept then). */
static int get_optional_number(json_object *o, const char *key, double *out)
{
	return json_object_object_get_ex(o, key, NULL) ? get_number(o, key, out) : 0;
}

static int load_resources(json_object *root, struct model *m)
{
	json_object *arr;
	if (get(root, "resources", json_type_array, &arr) < 0)
		return -1;
	for (size_t r = 0; r < json_object_array_length(arr); r++) {
		json_object *o = json_object_array_get_idx(arr, r), *k;
		const char *name;
		if (!json_object_is_type(o, json_type_object) || get_string(o, "name", &name) < 0)
			return perpi_set_error("corrupt model '%s': resource %zu has no name",
					       load_path, r);
		const char *kernel = json_object_object_get_ex(o, "bottleneck_of", &k)
					 ? json_object_get_string(k)
					 : NULL;
		model_add_resource(m, name, kernel);
	}
	return 0;
}

static long resource_index(const struct model *m, const char *name)
{
	for (size_t r = 0; r < m->nres; r++)
		if (!strcmp(m->res[r].name, name))
			return (long)r;
	return -1;
}

static int load_forms(json_object *root, struct model *m)
{
	json_object *arr, *usage;
	if (get(root, "forms", json_type_array, &arr) < 0)
		return -1;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		const char *form;
		double cycles;
		if (!json_object_is_type(o, json_type_object) || get_string(o, "form", &form) < 0 ||
		    get_number(o, "cycles", &cycles) < 0 ||
		    get(o, "usage", json_type_object, &usage) < 0)
			return perpi_set_error("corrupt model '%s': form entry %zu: %s", load_path,
					       i, perpi_error());
		if (model_form_index(m, form) >= 0)
			return perpi_set_error("corrupt model '%s': form %s listed twice",
					       load_path, form);
		size_t fi = model_add_form(m, form, cycles);
		json_object_object_foreach(usage, rname, val)
		{
			long r = resource_index(m, rname);
			if (r < 0)
				return perpi_set_error("corrupt model '%s': form %s uses unknown "
						       "resource %s",
						       load_path, form, rname);
			double rho = json_object_get_double(val);
			if (!(json_object_is_type(val, json_type_double) ||
			      json_object_is_type(val, json_type_int)) ||
			    !isfinite(rho) || rho < 0)
				return perpi_set_error(
				    "corrupt model '%s': form %s: bad usage of %s", load_path, form,
				    rname);
			model_set_rho(m, fi, (size_t)r, rho);
		}
	}
	return 0;
}

/* The REP forms timed at two lengths (optional: models before them have
 * none). */
static int load_strings(json_object *root, struct model *m)
{
	json_object *arr;
	if (!json_object_object_get_ex(root, "strings", &arr))
		return 0;
	if (get(root, "strings", json_type_array, &arr) < 0)
		return -1;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		const char *form;
		double start, iteration;
		if (!json_object_is_type(o, json_type_object) || get_string(o, "form", &form) < 0 ||
		    get_number(o, "start", &start) < 0 || get_number(o, "iteration", &iteration) < 0)
			return perpi_set_error("strings entry %zu: %s", i, perpi_error());
		if (model_form_index(m, form) < 0)
			return perpi_set_error("corrupt model '%s': strings entry %zu: form %s "
					       "is not in the model",
					       load_path, i, form);
		model_set_string(m, form, start, iteration);
	}
	return 0;
}

/* Version 2: the measurements are in a file beside the model, read when
 * asked for (model_load_measurements). */
static int load_measurement_file(json_object *root, struct model *m)
{
	const char *file;
	double count;
	if (get_string(root, "measurements_file", &file) < 0 ||
	    get_number(root, "measurement_count", &count) < 0)
		return -1;
	if (strchr(file, '/'))
		return perpi_set_error("corrupt model '%s': measurements_file '%s' is not a file "
				       "name",
				       load_path, file);
	const char *slash = strrchr(load_path, '/');
	m->meas_path =
	    slash ? xasprintf("%.*s/%s", (int)(slash - load_path), load_path, file) : xstrdup(file);
	m->meas_count = (size_t)count;
	return 0;
}

static int load_lists(json_object *root, struct model *m)
{
	json_object *arr;
	if (get(root, "unmapped", json_type_array, &arr) < 0)
		return -1;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		const char *form, *reason;
		if (!json_object_is_type(o, json_type_object) || get_string(o, "form", &form) < 0 ||
		    get_string(o, "reason", &reason) < 0)
			return -1;
		model_add_unmapped(m, form, reason);
	}
	if (!json_object_object_get_ex(root, "measurements", &arr))
		return load_measurement_file(root, m);
	if (get(root, "measurements", json_type_array, &arr) < 0)
		return -1;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		const char *kernel;
		double cycles;
		if (!json_object_is_type(o, json_type_object) ||
		    get_string(o, "kernel", &kernel) < 0 || get_number(o, "cycles", &cycles) < 0)
			return -1;
		model_add_measurement(m, kernel, cycles);
	}
	return 0;
}

/* What save_core wrote, into m (sorted). */
static int load_core(json_object *o, struct model *m)
{
	/* optional: models before them have none */
	if (get_optional_number(o, "store_turn", &m->store_turn) < 0 ||
	    get_optional_number(o, "rmw_turn", &m->rmw_turn) < 0 || load_resources(o, m) < 0 ||
	    load_forms(o, m) < 0 || load_strings(o, m) < 0)
		return -1;
	model_sort(m);
	return 0;
}

/* The further cores (optional: a model of one core has none). */
static int load_cores(json_object *root, struct model *m)
{
	json_object *arr;
	if (!json_object_object_get_ex(root, "cores", NULL))
		return 0;
	if (get(root, "cores", json_type_array, &arr) < 0)
		return -1;
	for (size_t c = 0; c < json_object_array_length(arr); c++) {
		json_object *o = json_object_array_get_idx(arr, c);
		struct model *core = model_new(m->cpu);
		model_add_core(m, core);
		if (!json_object_is_type(o, json_type_object))
			return perpi_set_error("corrupt model '%s': cores entry %zu is not an "
					       "object",
					       load_path, c);
		if (load_core(o, core) < 0) {
			char *why = xstrdup(perpi_error());
			perpi_set_error("%s (cores entry %zu)", why, c);
			free(why);
			return -1;
		}
	}
	return 0;
}

static int load_root(json_object *root, struct model **out)
{
	const char *format, *cpu;
	double version, benchmarks = 0;
	if (!json_object_is_type(root, json_type_object))
		return perpi_set_error("corrupt model '%s': not a JSON object", load_path);
	if (get_string(root, "format", &format) < 0)
		return -1;
	if (strcmp(format, MODEL_FORMAT))
		return perpi_set_error("'%s' is not a perpi Palmed model (format '%s')", load_path,
				       format);
	if (get_number(root, "version", &version) < 0)
		return -1;
	if (version != MODEL_VERSION && version != 1)
		return perpi_set_error("model '%s' has version %g; this perpi reads version %d: "
				       "rebuild it with 'perpi palmed build'",
				       load_path, version, MODEL_VERSION);
	if (get_string(root, "cpu", &cpu) < 0 || get_number(root, "benchmarks", &benchmarks) < 0)
		return -1;
	if (benchmarks > UINT_MAX || benchmarks != floor(benchmarks)) /* found by fuzz/ */
		return perpi_set_error("corrupt model '%s': field 'benchmarks' is %g, not a count",
				       load_path, benchmarks);
	struct model *m = model_new(cpu);
	m->benchmarks = (unsigned)benchmarks;
	if (load_core(root, m) < 0 || load_lists(root, m) < 0 || load_cores(root, m) < 0) {
		model_delete(m);
		return -1;
	}
	*out = m;
	return 0;
}

int model_load(const char *path, struct model **out)
{
	*out = NULL;
	json_object *root = json_object_from_file(path);
	if (!root) {
		const char *why = json_util_get_last_err();
		size_t len = why ? strcspn(why, "\n") : 0;
		return perpi_set_error("cannot read model '%s': not valid JSON (%.*s)", path,
				       (int)len, why ? why : "");
	}
	load_path = path;
	int rc = load_root(root, out);
	json_object_put(root);
	return rc;
}

int model_load_for_use(const char *path, struct model **out)
{
	char *def = path ? NULL : model_default_path();
	const char *p = path ? path : def;
	FILE *f = fopen(p, "r");
	if (!f) {
		int rc =
		    perpi_set_error("no model at '%s' (%s): build one with 'perpi palmed "
				    "build'%s",
				    p, strerror(errno), path ? "" : " or give one with -m FILE");
		free(def);
		return rc;
	}
	fclose(f);
	int rc = model_load(p, out);
	free(def);
	if (rc == 0)
		model_check_cpu(*out);
	return rc;
}

int model_load_measurements(struct model *m)
{
	if (!m->meas_path || m->nmeas)
		return 0;
	FILE *f = fopen(m->meas_path, "r");
	if (!f)
		return perpi_set_error("cannot read the measurements of the model, '%s': %s "
				       "(rebuild the model with 'perpi palmed build')",
				       m->meas_path, strerror(errno));
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	int rc = 0;
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (lineno == 1) {
			if (strcmp(line, MEAS_HEADER))
				rc = perpi_set_error("'%s' is not a file of perpi measurements",
						     m->meas_path);
			continue;
		}
		char *tab = strchr(line, '\t'), *end;
		double cycles = strtod(line, &end);
		if (!tab || end != tab || !(cycles > 0) || !isfinite(cycles) || !tab[1])
			rc = perpi_set_error("corrupt measurements '%s': line %zu", m->meas_path,
					     lineno);
		else
			model_add_measurement(m, tab + 1, cycles);
	}
	free(line);
	fclose(f);
	if (rc == 0 && m->nmeas != m->meas_count)
		rc = perpi_set_error("corrupt measurements '%s': %zu lines, the model says %zu",
				     m->meas_path, m->nmeas, m->meas_count);
	model_sort_measurements(m);
	return rc;
}
