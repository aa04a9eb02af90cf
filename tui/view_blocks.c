/* Blocks: the basic blocks as executed, with occurrences, size and ILP
 * (each occurrence analysed in isolation); beside them the selected
 * block's instructions. Resource-bound columns (Palmed) are not shown:
 * perpi has no CPU model to bound them with yet. */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

struct blocks_view {
	const struct tui_block *blocks;
	size_t n;
	int64_t selected, top;
};

static const struct tui_key_help keys[] = {
	{"Up/Down j/k", "select a block"},
	{"PgUp/PgDn", "page"},
	{"Enter", "open the data-flow graph at the block's first occurrence"},
	{NULL, NULL},
};

static void draw_block_insns(struct tui *t, const struct tui_block *b, int y, int x, int lines,
			     int cols)
{
	for (uint32_t i = 0; i < b->insns && y < lines; i++) {
		const struct tui_insn *mi = tui_model_insn(t->model, b->first + i);
		const struct perpi_insn *insn = mi ? tui_model_static(t->model, mi->insn) : NULL;
		if (insn)
			tui_print(y++, x, cols - x, " %-14.14s %s", tui_describe(t, insn->addr),
				  insn->text);
	}
}

static void draw(struct tui *t, struct tui_view *v, int lines, int cols)
{
	struct blocks_view *b = v->state;
	int left = 48, rows = lines - 3;
	tui_style(t, STYLE_TITLE, 1);
	mvhline(0, 0, ' ', cols);
	tui_print(0, 0, cols, " Blocks: %zu basic blocks as executed, most instructions first", b->n);
	tui_style(t, STYLE_TITLE, 0);
	attron(A_BOLD);
	tui_print(1, 0, left, " %-12s %5s %12s %7s %7s", "block", "insns", "occurrences", "ILP",
		  "share");
	tui_print(1, left + 1, cols - left - 1, "instructions");
	attroff(A_BOLD);
	mvvline(1, left, ACS_VLINE, lines - 1);
	struct engine_totals tot;
	tui_model_totals(t->model, &tot);
	tui_scroll(b->selected, &b->top, rows);
	for (int r = 0; r < rows && b->top + r < (int64_t)b->n; r++) {
		const struct tui_block *k = &b->blocks[b->top + r];
		int sel = b->top + r == b->selected;
		if (sel)
			tui_style(t, STYLE_SELECTED, 1);
		tui_print(2 + r, 0, left, " %-12.12s %5u %12" PRIu64 " %7.2f %6.1f%%",
			  tui_describe(t, k->addr),
			  k->insns, k->occurrences, k->ilp,
			  tot.insns ? 100.0 * (double)(k->occurrences * k->insns) / (double)tot.insns
				    : 0.0);
		if (sel)
			tui_style(t, STYLE_SELECTED, 0);
	}
	if (!b->n)
		tui_print(2, 1, left - 1, "no block (empty run)");
	else
		draw_block_insns(t, &b->blocks[b->selected], 2, left + 1, lines, cols);
	tui_print(lines - 1, 0, left, " resource-bound columns: need a Palmed model");
}

static int key(struct tui *t, struct tui_view *v, int k)
{
	struct blocks_view *b = v->state;
	if (tui_navigate(k, &b->selected, (int64_t)b->n, LINES - 5))
		return TUI_HANDLED | TUI_REDRAW;
	if ((k == '\n' || k == KEY_ENTER) && b->n) {
		tui_open_graph(t, 0, 0, b->blocks[b->selected].first);
		return TUI_HANDLED | TUI_REDRAW;
	}
	return 0;
}

static void done(struct tui_view *v)
{
	free(v->state);
}

static const struct tui_view_ops blocks_ops = {"Blocks", keys, draw, key, done};

void tui_open_blocks(struct tui *t)
{
	struct blocks_view *b = xcalloc(1, sizeof(*b));
	b->n = tui_model_blocks(t->model, &b->blocks);
	tui_push(t, &blocks_ops, b);
}
