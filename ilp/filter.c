/* The analysis options' values, the names of a recorded run's
 * instructions, and the header every analysis's text output starts with. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/filter.h"
#include "ilp/hist.h"

void filter_options_init(struct filter_options *o)
{
	memset(o, 0, sizeof(*o));
	o->input = TRACE_FILE_DEFAULT;
	o->step_last = UINT64_MAX;
}

static int parse_u64(const char *opt, const char *s, uint64_t min, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-' || v < min)
		return perpi_set_error("%s: '%s' is not a number >= %llu", opt, s,
				       (unsigned long long)min);
	*out = v;
	return 0;
}

int filter_parse_steps(struct filter_options *o, const char *s)
{
	const char *colon = strchr(s, ':');
	if (!colon)
		return perpi_set_error("--steps: '%s' is not A:B (e.g. 10:20, 10: or :20)", s);
	char *a = xstrdup(s);
	a[colon - s] = 0;
	int rc = 0;
	if (*a)
		rc = parse_u64("--steps", a, 1, &o->step_first);
	if (!rc && colon[1])
		rc = parse_u64("--steps", colon + 1, 1, &o->step_last);
	free(a);
	if (!rc && o->step_first > o->step_last)
		rc = perpi_set_error("--steps %s: empty step range (A is after B)", s);
	return rc;
}

int filter_parse_classes(const char *list, unsigned *mask)
{
	char *copy = xstrdup(list), *save = NULL;
	*mask = 0;
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		unsigned k = 0;
		while (k < CLASS_COUNT && strcmp(name, hist_class_name(k)))
			k++;
		if (k == CLASS_COUNT) {
			perpi_set_error(
			    "--only: unknown class '%s' (classes: load, store, int, fp, "
			    "vec, move, branch, other)",
			    name);
			free(copy);
			return -1;
		}
		*mask |= 1u << k;
	}
	free(copy);
	return *mask ? 0 : perpi_set_error("--only: no class given");
}

static const char *trace_function(void *ctx, const struct perpi_insn *insn, uint64_t *offset)
{
	return trace_reader_function(ctx, insn, offset);
}

static int trace_line(void *ctx, const struct perpi_insn *insn, const char **file, unsigned *line)
{
	return trace_reader_source_line(ctx, insn, file, line);
}

struct insn_namer filter_trace_namer(struct trace_reader *reader)
{
	return (struct insn_namer){trace_function, trace_line, reader};
}

const char *filter_describe_addr(const struct insn_namer *namer, const struct perpi_insn *insn,
				 uint64_t addr)
{
	static char buf[160];
	uint64_t off = 0;
	const char *name =
	    namer && namer->function && insn ? namer->function(namer->ctx, insn, &off) : NULL;
	if (!name)
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	else if (off) /* "name+0x1c@libc.so.6", as the tracer's symbolizer writes it */
		snprintf(buf, sizeof(buf), "%.*s+0x%llx%s", (int)strcspn(name, "@"), name,
			 (unsigned long long)off, name + strcspn(name, "@"));
	else
		snprintf(buf, sizeof(buf), "%s", name);
	return buf;
}

const char *filter_function_name(void *reader, uint64_t addr)
{
	const struct perpi_insn *insn = trace_reader_insn_at(reader, addr);
	if (!insn)
		return NULL;
	struct insn_namer namer = filter_trace_namer(reader);
	return filter_describe_addr(&namer, insn, addr);
}

void filter_write_header(FILE *out, const struct filter_options *o, const struct filter_result *r)
{
	const char *argv = NULL, *cpu = NULL, *date = NULL, *version = NULL;
	for (size_t i = 0; i < r->n_meta; i++) {
		const char *k = r->meta[i].key, *v = r->meta[i].value;
		if (!strcmp(k, "argv"))
			argv = v;
		else if (!strcmp(k, "cpu"))
			cpu = v;
		else if (!strcmp(k, "date"))
			date = v;
		else if (!strcmp(k, "perpi_version"))
			version = v;
	}
	fprintf(out, "# %s: %s\n", o->input, argv ? argv : "(program unknown)");
	fprintf(out, "# recorded%s%s%s%s by perpi %s; %s\n", date ? " " : "", date ? date : "",
		cpu ? " on " : "", cpu ? cpu : "", version ? version : "?",
		trace_end_describe(&r->end));
	if (o->function) {
		fprintf(out, "# --function %s: %llu call instance%s", o->function,
			(unsigned long long)r->instances, r->instances == 1 ? "" : "s");
		if (o->call)
			fprintf(out, ", --call %llu", (unsigned long long)o->call);
		fprintf(out, "\n");
	}
	if (o->step_first || o->step_last != UINT64_MAX)
		fprintf(
		    out, "# --steps %llu:%llu of %llu steps\n",
		    (unsigned long long)(o->step_first ? o->step_first : 1),
		    (unsigned long long)(o->step_last < r->run_steps ? o->step_last : r->run_steps),
		    (unsigned long long)r->run_steps);
	const struct engine_options *e = &o->engine;
	if (e->class_mask) {
		fprintf(out, "# --only");
		for (unsigned k = 0, first = 1; k < CLASS_COUNT; k++)
			if (e->class_mask & (1u << k))
				fprintf(out, "%s%s", first ? " " : ",", hist_class_name(k)),
				    first = 0;
		fprintf(out, ": other instructions are free\n");
	}
	if (e->window || e->width || e->stack_engine)
		fprintf(out, "# machine: window %u, width %u, stack engine %s (0 = unlimited)\n",
			e->window, e->width, e->stack_engine ? "on" : "off");
	if (o->latency)
		fprintf(out,
			"# --latency %s: %zu static instruction%s of forms not listed took 1 "
			"step\n",
			o->latency, r->latency_unlisted, r->latency_unlisted == 1 ? "" : "s");
}
