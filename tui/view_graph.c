/* Graph: the data-flow graph of a range of steps, one row per step, the
 * instructions of a step side by side; move along edges to producers and
 * consumers; the critical path's instructions are marked '*'. */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/graph.h"
#include "tui/tui.h"

#define MAX_NODES 20000    /* a range is trimmed to this many instructions */
#define CELL 19            /* columns per node */
#define CONSUMER_REACH 1000 /* steps past the range searched for consumers */
#define HISTORY 64

struct graph_view {
	uint64_t first, last; /* steps shown */
	int64_t row, col;     /* selection: row = step - first */
	int64_t top, left;    /* scrolling: first row, first node shown */
	uint32_t jump[64];    /* the producers or consumers last jumped along */
	int n_jump, at_jump;
	uint32_t history[HISTORY];
	int n_history;
};

static const struct tui_key_help keys[] = {
	{"Up/Down j/k", "previous / next step"},
	{"Left/Right h/l", "previous / next instruction of the step"},
	{"PgUp/PgDn", "page"},
	{"p", "go to the selected instruction's producer of highest step"},
	{"c", "go to its first consumer"},
	{"Tab", "after p or c: the next producer / consumer in turn"},
	{"b or Backspace", "back along the producers/consumers visited"},
	{"*", "go to the critical-path instruction of this step"},
	{NULL, NULL},
};

static size_t row_nodes(struct tui *t, const struct graph_view *g, int64_t row, const uint32_t **out)
{
	if (row < 0 || g->first + (uint64_t)row > g->last)
		return 0;
	return tui_model_at_step(t->model, g->first + (uint64_t)row, out);
}

static uint32_t selected(struct tui *t, const struct graph_view *g)
{
	const uint32_t *nodes;
	size_t n = row_nodes(t, g, g->row, &nodes);
	return g->col < (int64_t)n ? nodes[g->col] : TUI_NONE;
}

static int on_critical_path(struct tui *t, uint32_t index)
{
	const uint32_t *path;
	size_t n = tui_model_critical_path(t->model, &path);
	const struct tui_insn *mi = tui_model_insn(t->model, index);
	return mi && mi->step && mi->step <= n && path[mi->step - 1] == index;
}

/* Trim [first, last] to at most MAX_NODES instructions from first. */
static void set_range(struct tui *t, struct graph_view *g, uint64_t first, uint64_t last)
{
	struct engine_totals tot;
	tui_model_totals(t->model, &tot);
	if (first < 1)
		first = 1;
	if (last > tot.steps)
		last = tot.steps;
	if (last < first)
		last = first;
	uint64_t nodes = 0, s = first;
	for (; s <= last; s++) {
		const uint32_t *at;
		nodes += tui_model_at_step(t->model, s, &at);
		if (nodes > MAX_NODES && s > first)
			break;
	}
	if (s <= last) {
		tui_message(t, "range trimmed to steps %" PRIu64 "-%" PRIu64 " (%d instructions at most)",
			    first, s - 1, MAX_NODES);
		last = s - 1;
	}
	g->first = first;
	g->last = last;
}

/* Select a dynamic instruction, moving the range if it lies outside. */
static void select_insn(struct tui *t, struct graph_view *g, uint32_t index)
{
	const struct tui_insn *mi = tui_model_insn(t->model, index);
	if (!mi || !mi->step)
		return;
	if (mi->step < g->first || mi->step > g->last) {
		uint64_t span = g->last - g->first;
		uint64_t first = mi->step < g->first ? mi->step : mi->step - span;
		set_range(t, g, first, first + span);
	}
	g->row = (int64_t)(mi->step - g->first);
	const uint32_t *nodes;
	size_t n = row_nodes(t, g, g->row, &nodes);
	for (size_t i = 0; i < n; i++)
		if (nodes[i] == index)
			g->col = (int64_t)i;
}

/* What the edge from producer to consumer carries: "rax", "CF", "mem". */
static const char *edge_label(struct tui *t, uint32_t consumer, uint32_t producer)
{
	const uint32_t *p;
	size_t n = tui_model_producers(t->model, consumer, &p);
	for (size_t k = 0; k < n; k++)
		if (p[k] == producer) {
			unsigned u = tui_model_producer_unit(t->model, consumer, k);
			return u == TUI_DEP_MEMORY ? "mem" : graph_unit_name(u);
		}
	return "?";
}

/* "#12 s4 add rax, rbx (rax)": index, step, text, what the edge carries. */
static void describe(struct tui *t, uint32_t index, const char *carried, char *buf, size_t size)
{
	const struct tui_insn *mi = tui_model_insn(t->model, index);
	const struct perpi_insn *insn = mi ? tui_model_static(t->model, mi->insn) : NULL;
	snprintf(buf, size, "#%u s%u %s (%s)", index, mi ? mi->step : 0, insn ? insn->text : "?",
		 carried);
}

/* The producers (producers != 0) or the consumers of sel, on one line. */
static void draw_list(struct tui *t, int y, int cols, uint32_t sel, int producers,
		      const uint32_t *list, size_t n, const char *none)
{
	char line[512];
	int len = snprintf(line, sizeof(line), " %s", producers ? "producers: " : "consumers: ");
	for (size_t i = 0; i < n && len < (int)sizeof(line) - 64; i++) {
		char d[160];
		describe(t, list[i], producers ? edge_label(t, sel, list[i]) : edge_label(t, list[i], sel),
			 d, sizeof(d));
		len += snprintf(line + len, sizeof(line) - len, "%s%s", i ? "; " : "", d);
	}
	if (!n)
		snprintf(line + len, sizeof(line) - len, "%s", none);
	tui_print(y, 0, cols, "%s", line);
}

static void draw_detail(struct tui *t, struct graph_view *g, int y, int cols)
{
	uint32_t sel = selected(t, g);
	if (sel == TUI_NONE)
		return;
	const struct tui_insn *mi = tui_model_insn(t->model, sel);
	const struct perpi_insn *insn = tui_model_static(t->model, mi->insn);
	mvhline(y, 0, ACS_HLINE, cols);
	tui_print(y + 1, 0, cols, " #%u  step %u  0x%" PRIx64 "  %-30s %s%s", sel, mi->step,
		  insn ? insn->addr : 0, insn ? insn->text : "?",
		  insn ? tui_model_class_name(insn->klass) : "",
		  on_critical_path(t, sel) ? "  * critical path" : "");
	const uint32_t *p;
	size_t np = tui_model_producers(t->model, sel, &p);
	draw_list(t, y + 2, cols, sel, 1, p, np, "none (inputs ready at step 0)");
	uint32_t *c;
	size_t nc = tui_model_consumers(t->model, sel, g->last + CONSUMER_REACH, &c);
	char none[64];
	snprintf(none, sizeof(none), "none up to step %" PRIu64, g->last + CONSUMER_REACH);
	draw_list(t, y + 3, cols, sel, 0, c, nc, none);
	free(c);
}

static void draw(struct tui *t, struct tui_view *v, int lines, int cols)
{
	struct graph_view *g = v->state;
	int rows = lines - 6, per_row = (cols - 8) / CELL;
	uint64_t count = 0;
	for (uint64_t s = g->first; s <= g->last; s++) {
		const uint32_t *at;
		count += tui_model_at_step(t->model, s, &at);
	}
	tui_style(t, STYLE_TITLE, 1);
	mvhline(0, 0, ' ', cols);
	tui_print(0, 0, cols, " Graph: steps %" PRIu64 "-%" PRIu64 ", %" PRIu64
		  " instructions, one row per step; * critical path", g->first, g->last, count);
	tui_style(t, STYLE_TITLE, 0);
	tui_scroll(g->row, &g->top, rows);
	tui_scroll(g->col, &g->left, per_row);
	for (int r = 0; r < rows && g->top + r <= (int64_t)(g->last - g->first); r++) {
		const uint32_t *nodes;
		int64_t row = g->top + r;
		size_t n = row_nodes(t, g, row, &nodes);
		tui_print(1 + r, 0, 8, "%6" PRIu64 " ", g->first + (uint64_t)row);
		mvaddch(1 + r, 7, row == g->row ? '>' : '|');
		for (int k = 0; k < per_row && g->left + k < (int64_t)n; k++) {
			uint32_t idx = nodes[g->left + k];
			const struct perpi_insn *insn =
				tui_model_static(t->model, tui_model_insn(t->model, idx)->insn);
			int crit = on_critical_path(t, idx);
			int sel = row == g->row && g->left + k == g->col;
			if (sel)
				tui_style(t, STYLE_SELECTED, 1);
			else if (crit)
				tui_style(t, STYLE_CRITICAL, 1);
			tui_print(1 + r, 8 + k * CELL, CELL - 1, "%c%-*.*s", crit ? '*' : ' ', CELL - 2,
				  CELL - 2, insn ? insn->text : "?");
			if (sel)
				tui_style(t, STYLE_SELECTED, 0);
			else if (crit)
				tui_style(t, STYLE_CRITICAL, 0);
		}
		if (g->left > 0)
			mvaddch(1 + r, 7, '<');
		if ((int64_t)n > g->left + per_row)
			tui_print(1 + r, cols - 4, 4, "+%-3d", (int)(n - g->left - per_row));
	}
	draw_detail(t, g, lines - 5, cols);
}

static void jump(struct tui *t, struct graph_view *g, uint32_t to)
{
	uint32_t from = selected(t, g);
	if (from != TUI_NONE && g->n_history < HISTORY)
		g->history[g->n_history++] = from;
	select_insn(t, g, to);
}

/* 'p': to the selected instruction's producers (the critical one first);
 * 'c': to its consumers. Tab cycles through them. */
static void jump_producers(struct tui *t, struct graph_view *g, uint32_t sel)
{
	const struct tui_insn *mi = tui_model_insn(t->model, sel);
	const uint32_t *p;
	size_t np = tui_model_producers(t->model, sel, &p);
	if (!np) {
		tui_message(t, "no producer: its inputs were ready at step 0");
		return;
	}
	g->n_jump = (int)(np < 64 ? np : 64);
	memcpy(g->jump, p, g->n_jump * sizeof(*p));
	g->at_jump = 0;
	for (int i = 0; i < g->n_jump; i++)
		if (g->jump[i] == mi->critical)
			g->at_jump = i;
	jump(t, g, g->jump[g->at_jump]);
}

static void jump_consumers(struct tui *t, struct graph_view *g, uint32_t sel)
{
	uint32_t *c;
	size_t nc = tui_model_consumers(t->model, sel, g->last + CONSUMER_REACH, &c);
	if (!nc) {
		tui_message(t, "no consumer up to step %" PRIu64, g->last + CONSUMER_REACH);
		free(c);
		return;
	}
	g->n_jump = (int)(nc < 64 ? nc : 64);
	memcpy(g->jump, c, g->n_jump * sizeof(*c));
	g->at_jump = 0;
	free(c);
	jump(t, g, g->jump[0]);
}

static int key(struct tui *t, struct tui_view *v, int k)
{
	struct graph_view *g = v->state;
	int64_t n_rows = (int64_t)(g->last - g->first) + 1;
	uint32_t sel = selected(t, g);
	const uint32_t *nodes;
	switch (k) {
	case KEY_LEFT: case 'h': if (g->col > 0) g->col--; break;
	case KEY_RIGHT: case 'l':
		if (g->col + 1 < (int64_t)row_nodes(t, g, g->row, &nodes))
			g->col++;
		break;
	case 'p': jump_producers(t, g, sel); break;
	case 'c': jump_consumers(t, g, sel); break;
	case '\t':
		if (g->n_jump > 1) {
			g->at_jump = (g->at_jump + 1) % g->n_jump;
			select_insn(t, g, g->jump[g->at_jump]);
		}
		break;
	case 'b': case KEY_BACKSPACE: case 127:
		if (g->n_history)
			select_insn(t, g, g->history[--g->n_history]);
		break;
	case '*': {
		const uint32_t *path;
		size_t n = tui_model_critical_path(t->model, &path);
		uint64_t step = g->first + (uint64_t)g->row;
		if (step >= 1 && step <= n)
			select_insn(t, g, path[step - 1]);
		break;
	}
	default: {
		int64_t row = g->row;
		if (!tui_navigate(k, &row, n_rows, LINES - 7))
			return 0;
		g->row = row;
		size_t n = row_nodes(t, g, g->row, &nodes);
		if (g->col >= (int64_t)n)
			g->col = n ? (int64_t)n - 1 : 0;
	}
	}
	return TUI_HANDLED | TUI_REDRAW;
}

static void done(struct tui_view *v)
{
	free(v->state);
}

static const struct tui_view_ops graph_ops = {"Graph", keys, draw, key, done};

void tui_open_graph(struct tui *t, uint64_t first_step, uint64_t last_step, uint32_t select)
{
	struct graph_view *g = xcalloc(1, sizeof(*g));
	if (select != TUI_NONE && !first_step && !last_step) {
		const struct tui_insn *mi = tui_model_insn(t->model, select);
		uint64_t s = mi ? mi->step : 1;
		first_step = s > 8 ? s - 8 : 1;
		last_step = s + 24;
	}
	set_range(t, g, first_step, last_step);
	if (select != TUI_NONE)
		select_insn(t, g, select);
	tui_push(t, &graph_ops, g);
}
