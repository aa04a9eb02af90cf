/* The forms of a recorded run: see form_trace.h. */
#include "palmed/form_trace.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/trace_file.h"
#include "palmed/form.h"
#include "tracer/event.h"

struct counter {
	const struct perpi_insn **insn; /* by insn id */
	uint64_t *count;
	size_t cap;
};

static int count_event(void *ctx, const struct perpi_event *ev)
{
	struct counter *c = ctx;
	uint32_t id = ev->insn->id;
	if (ev->flags & EVENT_NOT_COUNTED)
		return 0;
	if (id >= c->cap) {
		size_t cap = c->cap ? c->cap : 1024;
		while (cap <= id)
			cap *= 2;
		c->insn = xrealloc(c->insn, cap * sizeof(*c->insn));
		c->count = xrealloc(c->count, cap * sizeof(*c->count));
		memset(c->insn + c->cap, 0, (cap - c->cap) * sizeof(*c->insn));
		memset(c->count + c->cap, 0, (cap - c->cap) * sizeof(*c->count));
		c->cap = cap;
	}
	c->insn[id] = ev->insn;
	c->count[id]++;
	return 0;
}

static void add_use(struct form_uses *u, const char *name, uint64_t count, int control,
		    const char *reason)
{
	for (size_t i = 0; i < u->n; i++)
		if (!strcmp(u->v[i].form, name) && u->v[i].control == control) {
			u->v[i].count += count;
			return;
		}
	if (u->n == u->cap) {
		u->cap = u->cap ? 2 * u->cap : 256;
		u->v = xrealloc(u->v, u->cap * sizeof(*u->v));
	}
	u->v[u->n++] = (struct form_use){xstrdup(name), count, control, reason};
}

int form_uses_add_trace(struct form_uses *u, const char *path)
{
	struct counter c = {0};
	struct trace_reader *r = trace_reader_open(path);
	if (!r)
		return -1;
	int rc = trace_reader_replay(r, count_event, &c);
	for (size_t i = 0; rc >= 0 && i < c.cap; i++) {
		if (!c.insn[i])
			continue;
		struct form f;
		char name[FORM_NAME_MAX] = "(undecoded)";
		const char *why = "no decoder knows the bytes";
		if (form_of_insn(c.insn[i], &f) == 0) {
			form_print(&f, name, sizeof(name));
			why = form_unsupported_reason(&f);
		}
		add_use(u, name, c.count[i], c.insn[i]->control != CTRL_NONE, why);
		u->total += c.count[i];
	}
	trace_reader_close(r);
	free(c.insn);
	free(c.count);
	return rc < 0 ? -1 : 0;
}

static int by_count(const void *a, const void *b)
{
	const struct form_use *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->form, y->form);
}

void form_uses_sort(struct form_uses *u)
{
	if (u->n)
		qsort(u->v, u->n, sizeof(*u->v), by_count);
}

void form_uses_done(struct form_uses *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->v[i].form);
	free(u->v);
	memset(u, 0, sizeof(*u));
}
