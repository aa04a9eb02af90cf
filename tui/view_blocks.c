/* Blocks: the run's basic blocks (ilp/blocks.h: static boundaries, exact
 * occurrence counts), with their ILP (each occurrence analysed in
 * isolation) and share of the run; beside them the selected block's
 * instructions. Resource-bound columns (Palmed) are not shown yet. */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/blocks.h"
#include "tui/tui.h"

struct blocks_view {
	const struct block *all;
	size_t *rows; /* indices into all, most instructions executed first */
	size_t n;
	uint64_t insns; /* the run's counted instructions */
	int ilp;        /* block.steps are known */
	int64_t selected, top;
};

static const struct tui_key_help keys[] = {
	{"Up/Down j/k", "select a block"},
	{"PgUp/PgDn", "page"},
	{"Enter", "open the data-flow graph at the block's first occurrence"},
	{NULL, NULL},
};

static const struct block *sorting;

static int by_executed(const void *a, const void *b)
{
	const struct block *x = &sorting[*(const size_t *)a], *y = &sorting[*(const size_t *)b];
	if (x->insns_executed != y->insns_executed)
		return x->insns_executed > y->insns_executed ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

static void draw_row(struct tui *t, const struct blocks_view *b, const struct block *k, int y,
		     int width)
{
	char ilp[16] = "-";
	if (b->ilp && k->steps)
		snprintf(ilp, sizeof(ilp), "%.2f", (double)k->insns_executed / (double)k->steps);
	tui_print(y, 0, width, " %-12.12s %5zu %12" PRIu64 " %7s %6.1f%%%*s", tui_describe(t, k->addr),
		  k->n, k->occurrences, ilp,
		  b->insns ? 100.0 * (double)k->insns_executed / (double)b->insns : 0.0, width, "");
}

static void draw(struct tui *t, struct tui_view *v, int lines, int cols)
{
	struct blocks_view *b = v->state;
	int left = 48, rows = lines - 3;
	tui_style(t, STYLE_TITLE, 1);
	mvhline(0, 0, ' ', cols);
	tui_print(0, 0, cols, " Blocks: %zu basic blocks, most instructions executed first", b->n);
	tui_style(t, STYLE_TITLE, 0);
	attron(A_BOLD);
	tui_print(1, 0, left, " %-12s %5s %12s %7s %7s", "block", "insns", "occurrences", "ILP",
		  "share");
	tui_print(1, left + 1, cols - left - 1, "instructions");
	attroff(A_BOLD);
	mvvline(1, left, ACS_VLINE, lines - 1);
	tui_scroll(b->selected, &b->top, rows);
	for (int r = 0; r < rows && b->top + r < (int64_t)b->n; r++) {
		int sel = b->top + r == b->selected;
		if (sel)
			tui_style(t, STYLE_SELECTED, 1);
		draw_row(t, b, &b->all[b->rows[b->top + r]], 2 + r, left);
		if (sel)
			tui_style(t, STYLE_SELECTED, 0);
	}
	if (!b->n) {
		tui_print(2, 1, left - 1, "no block");
	} else {
		const struct block *k = &b->all[b->rows[b->selected]];
		for (size_t i = 0; i < k->n && 2 + (int)i < lines; i++)
			tui_print(2 + (int)i, left + 1, cols - left - 1, " %-14.14s %s",
				  tui_describe(t, k->insns[i]->addr), k->insns[i]->text);
	}
	tui_print(lines - 1, 0, left, " %s", b->ilp ? "resource-bound columns: not yet"
						    : "block ILP needs a recording");
}

/* The first dynamic instruction at the block's address. */
static uint32_t first_occurrence(struct tui *t, uint64_t addr)
{
	size_t n = tui_model_insn_count(t->model);
	for (uint32_t i = 0; i < n; i++) {
		const struct perpi_insn *insn = tui_model_static(t->model, tui_model_insn(t->model, i)->insn);
		if (insn && insn->addr == addr)
			return i;
	}
	return TUI_NONE;
}

static int key(struct tui *t, struct tui_view *v, int k)
{
	struct blocks_view *b = v->state;
	if (tui_navigate(k, &b->selected, (int64_t)b->n, LINES - 5))
		return TUI_HANDLED | TUI_REDRAW;
	if ((k == '\n' || k == KEY_ENTER) && b->n) {
		uint32_t first = first_occurrence(t, b->all[b->rows[b->selected]].addr);
		if (first != TUI_NONE)
			tui_open_graph(t, 0, 0, first);
		return TUI_HANDLED | TUI_REDRAW;
	}
	return 0;
}

static void done(struct tui_view *v)
{
	struct blocks_view *b = v->state;
	free(b->rows);
	free(b);
}

static const struct tui_view_ops blocks_ops = {"Blocks", keys, draw, key, done};

void tui_open_blocks(struct tui *t)
{
	struct blocks_view *b = xcalloc(1, sizeof(*b));
	struct tui_blocks_source *src = t->blocks;
	if (src && src->blocks) {
		if (!src->ilp_done && src->ilp_pass) {
			if (src->ilp_pass(src->ctx, src->blocks) < 0)
				tui_message(t, "block ILP: %s", perpi_error());
			else
				src->ilp_done = 1;
		}
		b->ilp = src->ilp_done;
		b->n = blocks_list(src->blocks, &b->all);
		b->insns = blocks_insns(src->blocks);
	}
	b->rows = xcalloc(b->n + 1, sizeof(*b->rows));
	for (size_t i = 0; i < b->n; i++)
		b->rows[i] = i;
	sorting = b->all;
	qsort(b->rows, b->n, sizeof(*b->rows), by_executed);
	tui_push(t, &blocks_ops, b);
}
