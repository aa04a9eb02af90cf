/* Critical path: per dynamic instruction its step and the producer that
 * made it wait longest; the chain is read backwards at the end. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/critical.h"
#include "ilp/graph.h"

#define NO_NODE UINT64_MAX

struct slot {			       /* 32 bytes: a run of 10^8 instructions needs 3.2 GB */
	const struct perpi_insn *insn; /* NULL: not observed */
	uint64_t pred;		       /* index of the chosen producer, or NO_NODE */
	uint64_t dep_what;	       /* what the producer carried (engine_dep) */
	uint32_t step;		       /* the step; for a free instruction (--only),
					* the step its inputs were ready at */
	uint8_t counted, dep_kind, dep_size;
};

struct critical {
	struct slot *slots; /* by dynamic index */
	size_t cap;
	uint64_t *at_step; /* by step: the first index seen at that step */
	size_t cap_steps;
	uint64_t last_index, max_step;
};

struct critical *critical_new(void)
{
	return xcalloc(1, sizeof(struct critical));
}

void critical_delete(struct critical *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c->at_step);
	free(c);
}

static void grow(void **array, size_t *cap, size_t need, size_t elem, int fill)
{
	if (need < *cap)
		return;
	size_t n = *cap ? *cap : 4096;
	while (n <= need)
		n *= 2;
	*array = xrealloc(*array, n * elem);
	memset((char *)*array + *cap * elem, fill, (n - *cap) * elem);
	*cap = n;
}

void critical_observe(void *crit, const struct engine_step_info *info)
{
	struct critical *c = crit;
	grow((void **)&c->slots, &c->cap, info->index, sizeof(*c->slots), 0);
	struct slot *s = &c->slots[info->index];
	s->insn = info->ev->insn;
	s->counted = info->step != 0;
	s->pred = NO_NODE;
	uint64_t best = 0;
	/* The producer that made it wait longest; a free producer counts at
	 * the step its own inputs were ready. */
	for (size_t i = 0; i < info->n_deps; i++) {
		uint64_t p = info->deps[i].producer;
		if (p < c->cap && c->slots[p].insn && p < info->index && c->slots[p].step > best) {
			best = c->slots[p].step;
			s->pred = p;
			s->dep_what = info->deps[i].what;
			s->dep_kind = info->deps[i].kind;
			s->dep_size = info->deps[i].size;
		}
	}
	s->step = (uint32_t)(info->step ? info->step : best);
	if (!info->step)
		return;
	grow((void **)&c->at_step, &c->cap_steps, info->step, sizeof(*c->at_step), 0xff);
	if (c->at_step[info->step] == NO_NODE)
		c->at_step[info->step] = info->index;
	if (info->step > c->max_step)
		c->max_step = info->step;
}

size_t critical_path(const struct critical *c, struct critical_link **out)
{
	*out = NULL;
	if (!c->max_step)
		return 0;
	size_t n = 0, cap = 64;
	struct critical_link *links = xmalloc(cap * sizeof(*links));
	uint64_t i = c->at_step[c->max_step];
	while (i != NO_NODE) {
		const struct slot *s = &c->slots[i];
		if (!s->counted) { /* a free link: followed, not shown */
			i = s->pred;
			continue;
		}
		if (n == cap)
			links = xrealloc(links, (cap *= 2) * sizeof(*links));
		struct critical_link *l = &links[n++];
		l->index = i;
		l->step = s->step;
		l->insn = s->insn;
		l->has_dep = s->pred != NO_NODE && c->slots[s->pred].step;
		l->dep = (struct engine_dep){s->pred, s->dep_what, s->dep_kind, s->dep_size};
		/* No data producer (a call instance's first instruction, or a
		 * wait imposed by --window/--width): go on from any instruction
		 * at the step before. */
		if (s->pred != NO_NODE && c->slots[s->pred].step)
			i = s->pred;
		else if (s->step > 1 && s->step - 1 < c->cap_steps)
			i = c->at_step[s->step - 1];
		else
			i = NO_NODE;
	}
	for (size_t a = 0, b = n - 1; a < b; a++, b--) {
		struct critical_link t = links[a];
		links[a] = links[b];
		links[b] = t;
	}
	links[0].has_dep = 0; /* each link's dep is its edge from the one before */
	*out = links;
	return n;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

struct line_count {
	const char *file;
	unsigned line;
	uint64_t count;
};

static int by_count(const void *a, const void *b)
{
	const struct line_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int f = strcmp(x->file, y->file);
	return f ? f : (x->line > y->line) - (x->line < y->line);
}

static void write_line_summary(FILE *out, const struct critical_link *links, size_t n,
			       const struct insn_namer *namer)
{
	struct line_count *lines = xcalloc(n + 1, sizeof(*lines));
	size_t n_lines = 0;
	for (size_t i = 0; i < n; i++) {
		const char *file = "(no line information)";
		unsigned line = 0;
		if (namer->source_line)
			namer->source_line(namer->ctx, links[i].insn, &file, &line);
		size_t k = 0;
		while (k < n_lines && (lines[k].line != line || strcmp(lines[k].file, file)))
			k++;
		if (k == n_lines)
			lines[n_lines++] = (struct line_count){file, line, 0};
		lines[k].count++;
	}
	qsort(lines, n_lines, sizeof(*lines), by_count);
	fprintf(out, "\ncritical-path instructions per source line:\n%10s %6s  %s\n", "count", "%",
		"line");
	for (size_t k = 0; k < n_lines; k++) {
		fprintf(out, "%10llu %5.1f%%  %s", (unsigned long long)lines[k].count,
			100.0 * lines[k].count / n, lines[k].file);
		if (lines[k].line)
			fprintf(out, ":%u", lines[k].line);
		fprintf(out, "\n");
	}
	free(lines);
}

void critical_write_text(FILE *out, const struct critical_link *links, size_t n,
			 const struct insn_namer *namer)
{
	if (!n) {
		fprintf(out, "critical path: no instruction in the analysed range\n");
		return;
	}
	fprintf(out, "critical path: %zu instructions, steps %llu-%llu\n", n,
		(unsigned long long)links[0].step, (unsigned long long)links[n - 1].step);
	fprintf(out, "%8s  %-24s %-22s %-34s %s\n", "step", "function", "source", "instruction",
		"via");
	for (size_t i = 0; i < n; i++) {
		const char *file;
		unsigned line;
		char src[64] = "-";
		if (namer->source_line &&
		    namer->source_line(namer->ctx, links[i].insn, &file, &line) == 0)
			snprintf(src, sizeof(src), "%s:%u", base_name(file), line);
		fprintf(out, "%8llu  %-24s %-22s %-34s %s\n", (unsigned long long)links[i].step,
			filter_describe_addr(namer, links[i].insn, links[i].insn->addr), src,
			links[i].insn->text,
			!i		   ? ""
			: links[i].has_dep ? graph_dep_name(&links[i].dep)
					   : "(no data dependency)");
	}
	write_line_summary(out, links, n, namer);
}
