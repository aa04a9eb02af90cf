/* The core's parameters and form latencies: see core.h. */
#include "palmed/core.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/model.h"

const struct core_param_info core_param_info[CORE_PARAM_COUNT] = {
    [CORE_WIDTH] = {"dispatch_width", "insns/cycle", "instructions dispatched per cycle"},
    [CORE_RETIRE_WIDTH] = {"retire_width", "insns/cycle", "instructions retired per cycle"},
    [CORE_WINDOW] = {"window", "entries", "reorder buffer: instructions in flight"},
    [CORE_LOAD_LATENCY] = {"load_latency", "cycles", "L1 load to use, into a GPR"},
    [CORE_LOAD_LATENCY_VEC] = {"load_latency_vector", "cycles",
			       "L1 load to use, into a vector register"},
    [CORE_FORWARD_LATENCY] = {"forward_latency", "cycles",
			      "store data ready to a dependent load's GPR result"},
    [CORE_FORWARD_LATENCY_VEC] = {"forward_latency_vector", "cycles",
				  "the same into a vector register"},
    [CORE_RENAMED_LATENCY] = {"renamed_latency", "cycles",
			      "the same when the load repeats the store's address (renamed)"},
    [CORE_MISPREDICT] = {"mispredict_penalty", "cycles",
			 "a mispredicted branch's execution to the next dispatch"},
    [CORE_TAKEN_BRANCH] = {"taken_branch", "cycles",
			   "a taken branch's dispatch to its target's dispatch"},
    [CORE_FP_BYPASS] = {"fp_bypass", "cycles",
			"more for a fast FP add fed by a slower FP instruction"},
    [CORE_STORE_LINE] = {"store_line", "cycles",
			 "per store to another cache line than the store before"},
    [CORE_CMOV_SIGNED] = {"cmov_signed", "cycles",
			  "more from the flags to a cmovl/ge/le/g than to a cmove"},
    [CORE_CMOV_UNSIGNED] = {"cmov_unsigned", "cycles",
			    "more from the flags to a cmova/be than to a cmove"},
    [CORE_STREAM_STORE] = {"stream_store", "bytes/cycle",
			   "rep stosb past L1 (64 KiB, in L2); 0: the model's rate"},
    [CORE_STREAM_COPY] = {"stream_copy", "bytes/cycle",
			  "rep movsb past L1 (64 KiB, in L2); 0: the model's rate"},
    [CORE_L1_SIZE] = {"l1_size", "bytes", "L1 data cache size"},
    [CORE_L1_WAYS] = {"l1_ways", "ways", "L1 data cache associativity"},
    [CORE_L1_LINE] = {"l1_line", "bytes", "L1 data cache line"},
};

const char *const core_source_name[3] = {"default", "table", "measured"};

/* Where no table entry and no measurement says otherwise: a modest core. */
static const double generic[CORE_PARAM_COUNT] = {
    [CORE_WIDTH] = 4,
    [CORE_RETIRE_WIDTH] = 4,
    [CORE_WINDOW] = 224,
    [CORE_LOAD_LATENCY] = 4,
    [CORE_LOAD_LATENCY_VEC] = 7,
    [CORE_FORWARD_LATENCY] = 5,
    [CORE_FORWARD_LATENCY_VEC] = 7,
    [CORE_RENAMED_LATENCY] = 5,
    [CORE_MISPREDICT] = 15,
    [CORE_TAKEN_BRANCH] = 1,
    [CORE_L1_SIZE] = 32768,
    [CORE_L1_WAYS] = 8,
    [CORE_L1_LINE] = 64,
};

/* The documented values (docs/CYCLES.md gives the sources): AMD's Software
 * Optimization Guides for family 19h (Zen 4, pub. 57647) and family 1Ah
 * (Zen 5, pub. 58455), and AMD's Zen 5 presentation at Hot Chips 2024.
 * Only what those documents state is here; 0 leaves a parameter to the
 * measurement. */
struct core_table_entry {
	const char *name;
	int family, model_lo, model_hi;
	double v[CORE_PARAM_COUNT];
};

static const struct core_table_entry table[] = {
    {"AMD Zen 4",
     25,
     0x10,
     0x1f,
     {[CORE_WIDTH] = 6,
      [CORE_RETIRE_WIDTH] = 8,
      [CORE_WINDOW] = 320,
      [CORE_LOAD_LATENCY] = 4,
      [CORE_LOAD_LATENCY_VEC] = 7,
      [CORE_L1_SIZE] = 32768,
      [CORE_L1_WAYS] = 8,
      [CORE_L1_LINE] = 64}},
    {"AMD Zen 4",
     25,
     0x60,
     0xaf,
     {[CORE_WIDTH] = 6,
      [CORE_RETIRE_WIDTH] = 8,
      [CORE_WINDOW] = 320,
      [CORE_LOAD_LATENCY] = 4,
      [CORE_LOAD_LATENCY_VEC] = 7,
      [CORE_L1_SIZE] = 32768,
      [CORE_L1_WAYS] = 8,
      [CORE_L1_LINE] = 64}},
    {"AMD Zen 5",
     26,
     0x00,
     0x7f,
     {[CORE_WIDTH] = 8,
      [CORE_RETIRE_WIDTH] = 8,
      [CORE_WINDOW] = 448,
      [CORE_LOAD_LATENCY] = 4,
      [CORE_L1_SIZE] = 49152,
      [CORE_L1_WAYS] = 12,
      [CORE_L1_LINE] = 64}},
};

/* "AuthenticAMD family 26 model 2 stepping 1: ..." */
static int parse_cpu(const char *cpu, char *vendor, size_t size, int *family, int *model)
{
	char fmt[64];
	snprintf(fmt, sizeof(fmt), "%%%zus family %%d model %%d", size - 1);
	return cpu && sscanf(cpu, fmt, vendor, family, model) == 3 ? 0 : -1;
}

const char *core_table(const char *cpu, double values[CORE_PARAM_COUNT])
{
	char vendor[32];
	int family, model;
	memset(values, 0, CORE_PARAM_COUNT * sizeof(*values));
	if (parse_cpu(cpu, vendor, sizeof(vendor), &family, &model) < 0 ||
	    strcmp(vendor, "AuthenticAMD"))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (table[i].family == family && model >= table[i].model_lo &&
		    model <= table[i].model_hi) {
			memcpy(values, table[i].v, CORE_PARAM_COUNT * sizeof(*values));
			return table[i].name;
		}
	return NULL;
}

struct core *core_new(const char *cpu)
{
	struct core *c = xcalloc(1, sizeof(*c));
	c->cpu = cpu ? xstrdup(cpu) : model_host_cpu();
	const char *name = core_table(c->cpu, c->table_value);
	c->table = name ? xstrdup(name) : NULL;
	for (size_t p = 0; p < CORE_PARAM_COUNT; p++) {
		c->value[p] = c->table_value[p] > 0 ? c->table_value[p] : generic[p];
		c->source[p] = c->table_value[p] > 0 ? CORE_SOURCE_TABLE : CORE_SOURCE_DEFAULT;
	}
	return c;
}

void core_delete(struct core *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nlat; i++)
		free(c->lat_form[i]);
	for (size_t i = 0; i < c->nnolat; i++) {
		free(c->nolat_form[i]);
		free(c->nolat_reason[i]);
	}
	free(c->lat_form);
	free(c->lat);
	free(c->nolat_form);
	free(c->nolat_reason);
	free(c->cpu);
	free(c->table);
	free(c);
}

void core_set_measured(struct core *c, enum core_param p, double value)
{
	c->value[p] = value;
	c->source[p] = CORE_SOURCE_MEASURED;
}

/* Index of form in a sorted list, or where it would go (negative - 1). */
static long find_form(char *const *forms, size_t n, const char *form)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int cmp = strcmp(forms[mid], form);
		if (!cmp)
			return (long)mid;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -(long)lo - 1;
}

void core_set_latency(struct core *c, const char *form, double cycles)
{
	long i = find_form(c->lat_form, c->nlat, form);
	if (i >= 0) {
		c->lat[i] = cycles;
		return;
	}
	size_t at = (size_t)(-i - 1);
	if (c->nlat == c->lat_cap) {
		c->lat_cap = c->lat_cap ? 2 * c->lat_cap : 64;
		c->lat_form = xrealloc(c->lat_form, c->lat_cap * sizeof(*c->lat_form));
		c->lat = xrealloc(c->lat, c->lat_cap * sizeof(*c->lat));
	}
	memmove(c->lat_form + at + 1, c->lat_form + at, (c->nlat - at) * sizeof(*c->lat_form));
	memmove(c->lat + at + 1, c->lat + at, (c->nlat - at) * sizeof(*c->lat));
	c->lat_form[at] = xstrdup(form);
	c->lat[at] = cycles;
	c->nlat++;
}

int core_latency(const struct core *c, const char *form, double *cycles)
{
	long i = find_form(c->lat_form, c->nlat, form);
	if (i < 0)
		return -1;
	*cycles = c->lat[i];
	return 0;
}

void core_set_no_latency(struct core *c, const char *form, const char *reason)
{
	for (size_t i = 0; i < c->nnolat; i++)
		if (!strcmp(c->nolat_form[i], form)) {
			free(c->nolat_reason[i]);
			c->nolat_reason[i] = xstrdup(reason);
			return;
		}
	if (c->nnolat == c->nolat_cap) {
		c->nolat_cap = c->nolat_cap ? 2 * c->nolat_cap : 16;
		c->nolat_form = xrealloc(c->nolat_form, c->nolat_cap * sizeof(char *));
		c->nolat_reason = xrealloc(c->nolat_reason, c->nolat_cap * sizeof(char *));
	}
	c->nolat_form[c->nnolat] = xstrdup(form);
	c->nolat_reason[c->nnolat++] = xstrdup(reason);
}

const char *core_no_latency(const struct core *c, const char *form)
{
	for (size_t i = 0; i < c->nnolat; i++)
		if (!strcmp(c->nolat_form[i], form))
			return c->nolat_reason[i];
	return NULL;
}

char *core_default_path(void)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		return xasprintf("%s/perpi/core.json", xdg);
	return xasprintf("%s/.local/share/perpi/core.json", home && *home ? home : ".");
}

int core_check_cpu(const struct core *c)
{
	char *host = model_host_cpu();
	int differs = strcmp(host, c->cpu) != 0;
	if (differs)
		perpi_warn("the core file describes CPU '%s' but this is '%s': its latencies and "
			   "widths are that CPU's",
			   c->cpu, host);
	free(host);
	return differs;
}

/* ---- the file ---- */

static json_object *param_object(const struct core *c, size_t p)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "value", json_object_new_double(c->value[p]));
	json_object_object_add(o, "source", json_object_new_string(core_source_name[c->source[p]]));
	json_object_object_add(
	    o, "table", c->table_value[p] > 0 ? json_object_new_double(c->table_value[p]) : NULL);
	return o;
}

int core_save(const struct core *c, const char *path)
{
	json_object *root = json_object_new_object(), *params = json_object_new_object();
	json_object *lat = json_object_new_object(), *nolat = json_object_new_object();
	json_object_object_add(root, "format", json_object_new_string(CORE_FORMAT));
	json_object_object_add(root, "version", json_object_new_int(CORE_VERSION));
	json_object_object_add(root, "cpu", json_object_new_string(c->cpu));
	json_object_object_add(root, "table", c->table ? json_object_new_string(c->table) : NULL);
	for (size_t p = 0; p < CORE_PARAM_COUNT; p++)
		json_object_object_add(params, core_param_info[p].name, param_object(c, p));
	json_object_object_add(root, "parameters", params);
	for (size_t i = 0; i < c->nlat; i++)
		json_object_object_add(lat, c->lat_form[i], json_object_new_double(c->lat[i]));
	json_object_object_add(root, "latencies", lat);
	for (size_t i = 0; i < c->nnolat; i++)
		json_object_object_add(nolat, c->nolat_form[i],
				       json_object_new_string(c->nolat_reason[i]));
	json_object_object_add(root, "no_latency", nolat);
	int rc = json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY);
	json_object_put(root);
	if (rc < 0)
		return perpi_set_error("cannot write the core file '%s': %s", path,
				       strerror(errno));
	return 0;
}

static int number(json_object *v, double *out)
{
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return -1;
	*out = json_object_get_double(v);
	return isfinite(*out) && *out >= 0 ? 0 : -1;
}

static int load_param(const char *path, struct core *c, json_object *params, size_t p)
{
	json_object *o, *v, *src;
	const char *name = core_param_info[p].name;
	if (!json_object_object_get_ex(params, name, &o))
		return 0; /* a file from before the parameter existed: the default */
	if (!json_object_object_get_ex(o, "value", &v) || number(v, &c->value[p]) < 0 ||
	    ((p == CORE_WIDTH || p == CORE_RETIRE_WIDTH || p == CORE_WINDOW || p >= CORE_L1_SIZE) &&
	     c->value[p] < 1))
		return perpi_set_error("corrupt core file '%s': parameter '%s': no valid value",
				       path, name);
	c->source[p] = CORE_SOURCE_DEFAULT;
	if (json_object_object_get_ex(o, "source", &src))
		for (unsigned s = 0; s < 3; s++)
			if (!strcmp(json_object_get_string(src), core_source_name[s]))
				c->source[p] = (unsigned char)s;
	return 0;
}

static int load_latencies(const char *path, struct core *c, json_object *root)
{
	json_object *lat, *nolat;
	if (!json_object_object_get_ex(root, "latencies", &lat) ||
	    !json_object_is_type(lat, json_type_object))
		return perpi_set_error("corrupt core file '%s': no 'latencies' object", path);
	json_object_object_foreach(lat, form, v)
	{
		double cycles;
		if (number(v, &cycles) < 0)
			return perpi_set_error("corrupt core file '%s': latency of %s is not a "
					       "non-negative number",
					       path, form);
		core_set_latency(c, form, cycles);
	}
	if (json_object_object_get_ex(root, "no_latency", &nolat) &&
	    json_object_is_type(nolat, json_type_object)) {
		json_object_object_foreach(nolat, f, why)
		    core_set_no_latency(c, f, json_object_get_string(why));
	}
	return 0;
}

static int load_root(const char *path, json_object *root, struct core **out)
{
	json_object *v, *params;
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "format", &v) ||
	    strcmp(json_object_get_string(v), CORE_FORMAT))
		return perpi_set_error("'%s' is not a perpi core file (format '%s')", path,
				       CORE_FORMAT);
	if (!json_object_object_get_ex(root, "version", &v) ||
	    json_object_get_int(v) != CORE_VERSION)
		return perpi_set_error("core file '%s' is not version %d: measure it again with "
				       "'perpi core'",
				       path, CORE_VERSION);
	if (!json_object_object_get_ex(root, "cpu", &v) ||
	    !json_object_is_type(v, json_type_string))
		return perpi_set_error("corrupt core file '%s': no 'cpu'", path);
	struct core *c = core_new(json_object_get_string(v));
	if (!json_object_object_get_ex(root, "parameters", &params) ||
	    !json_object_is_type(params, json_type_object)) {
		core_delete(c);
		return perpi_set_error("corrupt core file '%s': no 'parameters' object", path);
	}
	for (size_t p = 0; p < CORE_PARAM_COUNT; p++)
		if (load_param(path, c, params, p) < 0) {
			core_delete(c);
			return -1;
		}
	if (load_latencies(path, c, root) < 0) {
		core_delete(c);
		return -1;
	}
	*out = c;
	return 0;
}

int core_load(const char *path, struct core **out)
{
	*out = NULL;
	json_object *root = json_object_from_file(path);
	if (!root) {
		const char *why = json_util_get_last_err();
		size_t len = why ? strcspn(why, "\n") : 0;
		return perpi_set_error("cannot read the core file '%s': %.*s", path, (int)len,
				       why ? why : "not valid JSON");
	}
	int rc = load_root(path, root, out);
	json_object_put(root);
	return rc;
}
