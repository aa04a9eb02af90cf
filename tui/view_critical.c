/* Critical path / source: the source lines holding the critical path's
 * instructions, most first, with their share of the path; beside them the
 * disassembly of the selected line's instructions on the path. */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

/* A static instruction on the critical path. */
struct path_insn {
	const struct perpi_insn *insn;
	const char *file;
	unsigned line;
	uint64_t count;
	uint32_t first; /* its first dynamic instance on the path */
};

struct critical_view {
	const struct tui_line *lines;
	size_t n_lines;
	struct path_insn *insns;
	size_t n_insns;
	uint64_t path_length;
	int64_t selected, top;
};

static const struct tui_key_help keys[] = {
	{"Up/Down j/k", "select a source line"},
	{"PgUp/PgDn", "page"},
	{"Enter", "open the data-flow graph at the line's first instruction on the path"},
	{NULL, NULL},
};

static int same_line(const struct tui_line *l, const struct path_insn *p)
{
	if (!l->file || !p->file)
		return !l->file && !p->file && p->insn && p->insn->addr == l->addr;
	return l->line == p->line && !strcmp(l->file, p->file);
}

static int by_addr(const void *a, const void *b)
{
	const struct path_insn *x = a, *y = b;
	return x->insn->addr < y->insn->addr ? -1 : x->insn->addr > y->insn->addr;
}

/* The path's static instructions with their counts, found once. */
static void collect(struct tui *t, struct critical_view *c,
		    int (*line)(void *, uint64_t, const char **, unsigned *), void *ctx)
{
	const uint32_t *path;
	size_t n = tui_model_critical_path(t->model, &path);
	c->path_length = n;
	struct path_insn *by_id = NULL;
	size_t n_ids = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t id = tui_model_insn(t->model, path[k])->insn;
		if (id >= n_ids) {
			by_id = xrealloc(by_id, (id + 1) * sizeof(*by_id));
			memset(by_id + n_ids, 0, (id + 1 - n_ids) * sizeof(*by_id));
			n_ids = id + 1;
		}
		if (!by_id[id].count++) {
			by_id[id].insn = tui_model_static(t->model, id);
			by_id[id].first = path[k];
		}
	}
	c->insns = xcalloc(n_ids + 1, sizeof(*c->insns));
	for (size_t id = 0; id < n_ids; id++) {
		if (!by_id[id].count || !by_id[id].insn)
			continue;
		struct path_insn *p = &c->insns[c->n_insns++];
		*p = by_id[id];
		if (!line || line(ctx, p->insn->addr, &p->file, &p->line))
			p->file = NULL, p->line = 0;
	}
	free(by_id);
	qsort(c->insns, c->n_insns, sizeof(*c->insns), by_addr);
}

static void draw(struct tui *t, struct tui_view *v, int lines, int cols)
{
	struct critical_view *c = v->state;
	int left = 36, rows = lines - 3;
	tui_style(t, STYLE_TITLE, 1);
	mvhline(0, 0, ' ', cols);
	tui_print(0, 0, cols, " Critical path: %" PRIu64 " instructions (= C), on %zu source line%s",
		  c->path_length, c->n_lines, c->n_lines == 1 ? "" : "s");
	tui_style(t, STYLE_TITLE, 0);
	attron(A_BOLD);
	tui_print(1, 0, left, " %6s %8s  %s", "share", "insns", "source line");
	tui_print(1, left + 1, cols - left - 1, " where          on the path");
	attroff(A_BOLD);
	mvvline(1, left, ACS_VLINE, lines - 1);
	tui_scroll(c->selected, &c->top, rows);
	for (int r = 0; r < rows && c->top + r < (int64_t)c->n_lines; r++) {
		const struct tui_line *l = &c->lines[c->top + r];
		char where[128];
		if (l->file) { /* the file's name only: the path rarely fits */
			const char *base = strrchr(l->file, '/');
			snprintf(where, sizeof(where), "%s:%u", base ? base + 1 : l->file, l->line);
		}
		else
			snprintf(where, sizeof(where), "%s", tui_describe(t, l->addr));
		int sel = c->top + r == c->selected;
		if (sel)
			tui_style(t, STYLE_SELECTED, 1);
		tui_print(2 + r, 0, left, " %5.1f%% %8" PRIu64 "  %-*s", 100.0 * (double)l->count /
			  (double)(c->path_length ? c->path_length : 1), l->count, left, where);
		if (sel)
			tui_style(t, STYLE_SELECTED, 0);
	}
	if (!c->n_lines)
		tui_print(2, 1, left - 1, "no critical path (empty run)");
	if (c->selected >= (int64_t)c->n_lines)
		return;
	const struct tui_line *l = &c->lines[c->selected];
	int y = 2;
	for (size_t i = 0; i < c->n_insns && y < lines; i++) {
		const struct path_insn *p = &c->insns[i];
		if (!same_line(l, p))
			continue;
		tui_print(y++, left + 1, cols - left - 1, " %-14.14s %-*.*s %6" PRIu64,
			  tui_describe(t, p->insn->addr), cols - left - 25, cols - left - 25,
			  p->insn->text, p->count);
	}
}

static int key(struct tui *t, struct tui_view *v, int k)
{
	struct critical_view *c = v->state;
	if (tui_navigate(k, &c->selected, (int64_t)c->n_lines, LINES - 5))
		return TUI_HANDLED | TUI_REDRAW;
	if ((k == '\n' || k == KEY_ENTER) && c->selected < (int64_t)c->n_lines) {
		const struct tui_line *l = &c->lines[c->selected];
		uint32_t first = TUI_NONE;
		for (size_t i = 0; i < c->n_insns; i++)
			if (same_line(l, &c->insns[i]) && c->insns[i].first < first)
				first = c->insns[i].first;
		if (first != TUI_NONE)
			tui_open_graph(t, 0, 0, first);
		return TUI_HANDLED | TUI_REDRAW;
	}
	return 0;
}

static void done(struct tui_view *v)
{
	struct critical_view *c = v->state;
	free(c->insns);
	free(c);
}

static const struct tui_view_ops critical_ops = {"Critical", keys, draw, key, done};

void tui_open_critical(struct tui *t)
{
	struct critical_view *c = xcalloc(1, sizeof(*c));
	c->n_lines = tui_model_critical_lines(t->model, &c->lines);
	const struct tui_symbols *sym = tui_model_symbols(t->model);
	collect(t, c, sym->line, sym->ctx);
	tui_push(t, &critical_ops, c);
}
