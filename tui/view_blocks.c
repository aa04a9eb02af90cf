/* Blocks: the run's basic blocks (ilp/blocks.h: static boundaries, exact
 * occurrence counts), with their ILP (each occurrence analysed in
 * isolation) and share of the run or, with a Palmed model, their
 * resource-bound cycles and bottleneck (palmed/lift.h, lifted once at
 * load); beside them the selected block's instructions. */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/blocks.h"
#include "palmed/lift_report.h"
#include "tui/tui.h"

struct blocks_view {
	const struct block *all;
	size_t *rows; /* indices into all, most instructions executed first */
	size_t n;
	uint64_t insns; /* the run's counted instructions */
	int ilp;        /* block.steps are known */
	const struct lift_report *lr;	 /* with a model (lr->lift), else NULL */
	const struct lift_figures *lift; /* per block, with a model */
	const char *note;		 /* how to build a model, without one */
	int64_t selected, top;
};

static const struct tui_key_help keys[] = {
	{"Up/Down j/k", "select a block"},
	{"PgUp/PgDn", "page"},
	{"Enter", "open the data-flow graph at the block's first occurrence"},
	{NULL, NULL},
};

static const struct block *sorting;
static const struct lift_figures *sorting_lift;

/* With a model, perpi report --blocks's order: most resource-bound cycles
 * first, then by address. */
static int by_cycles(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double cx = sorting_lift[x].cycles, cy = sorting_lift[y].cycles;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return (x > y) - (x < y);
}

/* "R0+R3": every resource at the block's maximum (lift_block). */
static void bottlenecks(const struct blocks_view *b, size_t block, char *buf, size_t size)
{
	const struct lift_block *lb = lift_block(b->lr->lift, block);
	size_t used = 0;
	snprintf(buf, size, "-");
	for (size_t k = 0; lb && k < lb->nbottlenecks && used < size; k++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? "+" : "",
					 b->lr->model->res[lb->bottlenecks[k]].name);
}

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
	if (b->lift) {
		char bn[64];
		size_t i = (size_t)(k - b->all);
		bottlenecks(b, i, bn, sizeof(bn));
		tui_print(y, 0, width, " %-12.12s %5zu %8" PRIu64 " %6s %9.1f %-10.10s%*s",
			  tui_describe(t, k->addr), k->n, k->occurrences, ilp, b->lift[i].cycles, bn,
			  width, "");
		return;
	}
	tui_print(y, 0, width, " %-12.12s %5zu %12" PRIu64 " %7s %6.1f%%%*s", tui_describe(t, k->addr),
		  k->n, k->occurrences, ilp,
		  b->insns ? 100.0 * (double)k->insns_executed / (double)b->insns : 0.0, width, "");
}

static void draw(struct tui *t, struct tui_view *v, int lines, int cols)
{
	struct blocks_view *b = v->state;
	int left = b->lift ? 56 : 48, rows = lines - 3;
	tui_style(t, STYLE_TITLE, 1);
	mvhline(0, 0, ' ', cols);
	tui_print(0, 0, cols, " Blocks: %zu basic blocks, most %s first", b->n,
		  b->lift ? "resource-bound cycles" : "instructions executed");
	tui_style(t, STYLE_TITLE, 0);
	attron(A_BOLD);
	if (b->lift)
		tui_print(1, 0, left, " %-12s %5s %8s %6s %9s %-10s", "block", "insns", "occurs",
			  "ILP", "cycles", "bottleneck");
	else
		tui_print(1, 0, left, " %-12s %5s %12s %7s %7s", "block", "insns", "occurrences",
			  "ILP", "share");
	tui_print(1, left + 1, cols - left - 1, "instructions");
	attroff(A_BOLD);
	mvvline(1, left, ACS_VLINE, b->note && b->ilp ? lines - 2 : lines - 1);
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
		int narrow = b->lift && cols - left - 1 < 40; /* offsets in the block, not names */
		for (size_t i = 0; i < k->n && 2 + (int)i < lines - 1 - (b->lift != NULL); i++)
			if (narrow)
				tui_print(2 + (int)i, left + 1, cols - left - 1, " +0x%-4" PRIx64 " %s",
					  k->insns[i]->addr - k->addr, k->insns[i]->text);
			else
				tui_print(2 + (int)i, left + 1, cols - left - 1, " %-14.14s %s",
					  tui_describe(t, k->insns[i]->addr), k->insns[i]->text);
	}
	if (b->lift && b->n) {
		size_t i = b->rows[b->selected];
		const struct lift_figures *f = &b->lift[i];
		tui_print(lines - 1, 0, left, " %.2f cycles x %" PRIu64 " occurrences, covered %.1f%%",
			  lift_block(b->lr->lift, i)->cycles, b->all[i].occurrences,
			  100 * lift_coverage(f));
		char bn[128];
		bottlenecks(b, i, bn, sizeof(bn)); /* in full: the column may cut it */
		tui_print(lines - 1, left + 1, cols - left - 1, " bound by %s", bn);
	} else {
		if (!b->ilp)
			tui_print(lines - 1, 0, left, " block ILP needs a recording");
		else if (b->note) /* how to build a model: the whole width */
			tui_print(lines - 1, 0, cols, " %s", b->note);
	}
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
		tui_blocks_wait(t); /* the pass started in the background at load */
		b->ilp = src->ilp_done;
		b->n = blocks_list(src->blocks, &b->all);
		b->insns = blocks_insns(src->blocks);
	}
	if (src && src->block_figures) {
		b->lr = src->lr;
		b->lift = src->block_figures;
	} else if (src) {
		b->note = src->note;
	}
	b->rows = xcalloc(b->n + 1, sizeof(*b->rows));
	for (size_t i = 0; i < b->n; i++)
		b->rows[i] = i;
	sorting = b->all;
	sorting_lift = b->lift;
	qsort(b->rows, b->n, sizeof(*b->rows), b->lift ? by_cycles : by_executed);
	tui_push(t, &blocks_ops, b);
}
