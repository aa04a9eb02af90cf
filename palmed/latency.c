/* Latencies per instruction form: see latency.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/latency.h"
#include "palmed/form.h"

#define LATENCY_MAX 1000

struct latency_entry {
	char form[FORM_NAME_MAX];
	unsigned steps;
};

struct latency_table {
	struct latency_entry *entries; /* sorted by form */
	size_t n, cap;
	uint16_t *by_id; /* per insn->id: steps, 0 = not worked out yet */
	size_t ids;
	size_t unlisted;
};

static int by_form(const void *a, const void *b)
{
	return strcmp(((const struct latency_entry *)a)->form,
		      ((const struct latency_entry *)b)->form);
}

/* One line: blank, a comment, or "FORM STEPS". */
static int parse_line(struct latency_table *t, char *line, const char *path, unsigned lineno)
{
	char *hash = strchr(line, '#'), form[FORM_NAME_MAX], extra[2];
	long steps;
	if (hash)
		*hash = 0;
	if (strspn(line, " \t\r\n") == strlen(line))
		return 0;
	if (sscanf(line, "%95s %ld %1s", form, &steps, extra) != 2)
		return perpi_set_error("%s:%u: not 'FORM STEPS' (e.g. 'ADDSD_XMM_XMM 4')", path,
				       lineno);
	if (steps < 1 || steps > LATENCY_MAX)
		return perpi_set_error("%s:%u: %ld steps for %s: give 1 to %d", path, lineno, steps,
				       form, LATENCY_MAX);
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->entries = xrealloc(t->entries, t->cap * sizeof(*t->entries));
	}
	snprintf(t->entries[t->n].form, sizeof(t->entries[t->n].form), "%s", form);
	t->entries[t->n++].steps = (unsigned)steps;
	return 0;
}

struct latency_table *latency_table_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned lineno = 0;
	if (!f) {
		perpi_set_error("%s: %s", path, strerror(errno));
		return NULL;
	}
	struct latency_table *t = xcalloc(1, sizeof(*t));
	while (fgets(line, sizeof(line), f)) {
		if (parse_line(t, line, path, ++lineno) < 0) {
			fclose(f);
			latency_table_delete(t);
			return NULL;
		}
	}
	fclose(f);
	qsort(t->entries, t->n, sizeof(*t->entries), by_form);
	for (size_t i = 1; i < t->n; i++)
		if (!strcmp(t->entries[i].form, t->entries[i - 1].form)) {
			perpi_set_error("%s: %s is listed twice", path, t->entries[i].form);
			latency_table_delete(t);
			return NULL;
		}
	return t;
}

void latency_table_delete(struct latency_table *t)
{
	if (!t)
		return;
	free(t->entries);
	free(t->by_id);
	free(t);
}

size_t latency_table_unlisted(const struct latency_table *t)
{
	return t->unlisted;
}

/* The listed steps of insn's form, or 0 if it has none. */
static unsigned lookup(struct latency_table *t, const struct perpi_insn *insn)
{
	struct latency_entry key;
	struct form form;
	if (form_of_insn(insn, &form) < 0)
		return 0;
	form_print(&form, key.form, sizeof(key.form));
	const struct latency_entry *e =
		bsearch(&key, t->entries, t->n, sizeof(*t->entries), by_form);
	unsigned steps = e ? e->steps : 0;
	return steps;
}

unsigned latency_table_of(void *table, const struct perpi_insn *insn)
{
	struct latency_table *t = table;
	if (insn->id >= t->ids) {
		size_t ids = t->ids ? t->ids : 1024;
		while (ids <= insn->id)
			ids *= 2;
		t->by_id = xrealloc(t->by_id, ids * sizeof(*t->by_id));
		memset(t->by_id + t->ids, 0, (ids - t->ids) * sizeof(*t->by_id));
		t->ids = ids;
	}
	if (!t->by_id[insn->id]) {
		unsigned steps = lookup(t, insn);
		if (!steps) {
			t->unlisted++;
			steps = 1;
		}
		t->by_id[insn->id] = (uint16_t)steps;
	}
	return t->by_id[insn->id];
}
