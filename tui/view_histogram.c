/* Histogram: instructions per step, stacked by class, over the whole run,
 * a function (its calls analysed in isolation) or one call. Columns are
 * bins of steps; a bin's height is its mean instructions per step (its
 * ILP), so zooming changes the resolution, never the scale's meaning. */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

#define Y_LABEL 8 /* "  123.4|" */

struct histogram_view {
	uint32_t function, call; /* TUI_NONE, TUI_NONE: the whole run */
	const struct tui_histogram *shown_h;
	uint64_t steps;          /* C of what is shown */
	uint64_t insns;
	uint64_t width;          /* steps per bin (zoom) */
	int64_t first, cursor;   /* bins: leftmost shown, selected */
	int64_t mark;            /* start of a selection, -1 if none */
	int plot_width;
	int column; /* screen columns per bin: >1 when the whole range is narrow */
};

static const struct tui_key_help keys[] = {
	{"Left/Right h/l", "move the cursor one bin (pans at the edges)"},
	{"PgUp/PgDn", "pan one screen"},
	{"Home/End", "first, last bin"},
	{"+ / -", "zoom in (fewer steps per bin) / out"},
	{"0", "zoom to fit the whole range"},
	{"[ ]", "previous / next low-ILP bin (marked ! under the axis)"},
	{"m or Space", "mark the start of a step range (again: clear)"},
	{"Enter", "the data-flow graph of the range (or the cursor's bin); for a"},
	{"", "function: of the steps its call spans in the whole run"},
	{"n / p / a", "function view: next / previous call, all calls"},
	{NULL, NULL},
};

static int64_t bin_count(const struct histogram_view *h)
{
	return h->steps ? (int64_t)((h->steps + h->width - 1) / h->width) : 0;
}

/* Sum of bin b: steps [1 + b*width, (b+1)*width] clipped to steps. */
static void bin_sum(struct tui *t, const struct histogram_view *h, int64_t b, struct tui_bin *out)
{
	uint64_t from = 1 + (uint64_t)b * h->width, to = from + h->width - 1;
	tui_histogram_bin(h->shown_h, from, to > h->steps ? h->steps : to, out);
}

static double bin_ilp(const struct tui_bin *b)
{
	uint64_t n = b->last_step >= b->first_step ? b->last_step - b->first_step + 1 : 1;
	return (double)b->total / (double)n;
}

static void fit(struct histogram_view *h)
{
	uint64_t w = h->plot_width > 0 ? (uint64_t)h->plot_width : 72;
	h->width = h->steps > w ? (h->steps + w - 1) / w : 1;
	h->first = h->cursor = 0;
	h->mark = -1;
}

/* The letter drawn for a class: also the legend's (and perpi hist's), so
 * monochrome works. */
static chtype class_char(int k)
{
	static const char letters[CLASS_COUNT] = {'l', 's', 'i', 'f', 'v', 'm', 'b', 'o'};
	return (chtype)letters[k];
}

static void draw_legend(struct tui *t, int y, int cols)
{
	int x = 1;
	mvaddstr(y, 0, " ");
	for (int k = 0; k < CLASS_COUNT && x < cols - 10; k++) {
		const char *name = tui_model_class_name(k);
		tui_style(t, STYLE_CLASS + k, 1);
		mvaddch(y, x, class_char(k));
		tui_style(t, STYLE_CLASS + k, 0);
		mvprintw(y, x + 1, " %s ", name);
		x += (int)strlen(name) + 3;
	}
}

static void draw_column(struct tui *t, int x, int top, int height, const struct tui_bin *b,
			double max)
{
	uint64_t n = b->last_step - b->first_step + 1;
	double cum = 0;
	int filled = 0;
	for (int k = 0; k < CLASS_COUNT; k++) {
		cum += (double)b->count[k] / (double)n;
		int upto = (int)(cum / max * height + 0.5);
		if (b->count[k] && upto == filled && filled < height && cum / max * height > 0)
			upto = filled + 1; /* a non-empty class gets at least one cell */
		tui_style(t, STYLE_CLASS + k, 1);
		for (; filled < upto && filled < height; filled++)
			mvaddch(top + height - 1 - filled, x, class_char(k));
		tui_style(t, STYLE_CLASS + k, 0);
	}
}

static void draw_title(struct tui *t, struct histogram_view *h, int cols)
{
	const struct tui_function *fn;
	size_t nf = tui_model_functions(t->model, &fn);
	char what[128];
	if (h->function == TUI_NONE || h->function >= nf)
		snprintf(what, sizeof(what), "whole run");
	else if (h->call == TUI_NONE)
		snprintf(what, sizeof(what), "%s, %" PRIu64 " call%s", fn[h->function].name,
			 fn[h->function].calls, fn[h->function].calls == 1 ? "" : "s");
	else {
		unsigned nth = 1;
		for (uint32_t c = fn[h->function].first_call; c != h->call && c != TUI_NONE;
		     c = tui_model_call(t->model, c)->next)
			nth++;
		snprintf(what, sizeof(what), "%s, call %u of %" PRIu64, fn[h->function].name, nth,
			 fn[h->function].calls);
	}
	tui_style(t, STYLE_TITLE, 1);
	mvhline(0, 0, ' ', cols);
	/* A function's calls are overlaid step by step; its figures are the
	 * engine's sums over them (C_f adds up the calls' C). */
	uint64_t insns = h->insns, steps = h->steps;
	if (h->function < nf && h->call == TUI_NONE)
		insns = fn[h->function].insns, steps = fn[h->function].steps;
	tui_print(0, 0, cols, " Histogram: %s :: I [%" PRIu64 "] :: C [%" PRIu64 "] :: ILP [%.2f]"
		  "  %" PRIu64 " step%s/bin", what, insns, steps,
		  steps ? (double)insns / (double)steps : 0.0, h->width, h->width == 1 ? "" : "s");
	tui_style(t, STYLE_TITLE, 0);
}

static void draw_y_axis(int height, int width, double max)
{
	for (int r = 0; r < height; r++) {
		if (r == 0 || r == height / 2)
			tui_print(2 + r, 0, Y_LABEL, "%7.1f", max * (height - r) / height);
		mvaddch(2 + r, Y_LABEL - 1, '|');
	}
	tui_print(2 + height, 0, Y_LABEL, "%7d", 0);
	mvhline(2 + height, Y_LABEL - 1, '+', 1);
	mvhline(2 + height, Y_LABEL, '-', width);
}

/* The selected bins: the cursor's, or from the mark to the cursor. */
static void selection(const struct histogram_view *h, int64_t *lo, int64_t *hi)
{
	*lo = h->mark < 0 || h->mark > h->cursor ? h->cursor : h->mark;
	*hi = h->mark > h->cursor ? h->mark : h->cursor;
}

/* The bins' columns, a ! under low-ILP ones, the selection under the axis. */
static void draw_bins(struct tui *t, const struct histogram_view *h, const struct tui_bin *bins,
		      int shown, int height, double max)
{
	double mean = h->steps ? (double)h->insns / (double)h->steps : 0;
	int64_t lo, hi;
	selection(h, &lo, &hi);
	for (int c = 0; c < shown; c++) {
		int64_t b = h->first + c;
		int x = Y_LABEL + c * h->column;
		for (int w = 0; w < h->column - (h->column > 2); w++)
			draw_column(t, x + w, 2, height, &bins[c], max);
		if (bin_ilp(&bins[c]) < mean / 2) {
			tui_style(t, STYLE_LOW, 1);
			mvhline(2 + height, x, '!', h->column);
			tui_style(t, STYLE_LOW, 0);
		}
		if (b >= lo && b <= hi) {
			tui_style(t, STYLE_SELECTED, 1);
			mvhline(3 + height, x, b == h->cursor ? '^' : '=', h->column);
			tui_style(t, STYLE_SELECTED, 0);
		}
	}
}

/* The exact sums of the selection, on the bottom line. */
static void draw_detail(struct tui *t, const struct histogram_view *h, int y, int cols)
{
	int64_t lo, hi;
	selection(h, &lo, &hi);
	uint64_t total = 0, cls[CLASS_COUNT] = {0}, first = 0, last = 0;
	for (int64_t b = lo; b <= hi; b++) {
		struct tui_bin x;
		bin_sum(t, h, b, &x);
		if (b == lo)
			first = x.first_step;
		last = x.last_step;
		total += x.total;
		for (int k = 0; k < CLASS_COUNT; k++)
			cls[k] += x.count[k];
	}
	char detail[256];
	int head = snprintf(detail, sizeof(detail), " steps %" PRIu64 "-%" PRIu64 ": %" PRIu64
			    " insns, ILP %.2f |", first, last, total,
			    (double)total / (double)(last - first + 1));
	int len = head;
	for (int k = 0; k < CLASS_COUNT; k++)
		if (cls[k])
			len += snprintf(detail + len, sizeof(detail) - len, " %s %" PRIu64,
					tui_model_class_name(k), cls[k]);
	if (len > cols) /* too long: the legend's letters instead of the names */
		for (int k = 0, n = head; k < CLASS_COUNT; k++)
			if (cls[k])
				n += snprintf(detail + n, sizeof(detail) - n, " %c %" PRIu64,
					      (char)class_char(k), cls[k]);
	tui_print(y, 0, cols, "%s", detail);
}

static void draw_step_labels(const struct histogram_view *h, const struct tui_bin *bins,
			     int shown, int y)
{
	tui_print(y, 0, Y_LABEL + 12, "step %" PRIu64, bins[0].first_step);
	char label[32];
	int len = snprintf(label, sizeof(label), "%" PRIu64, bins[shown - 1].last_step);
	int right = Y_LABEL + shown * h->column;
	if (right - len > Y_LABEL + 12)
		tui_print(y, right - len, len, "%s", label);
}

static void draw(struct tui *t, struct tui_view *v, int lines, int cols)
{
	struct histogram_view *h = v->state;
	int width = cols - Y_LABEL - 1, height = lines - 6;
	if (width != h->plot_width) {
		h->plot_width = width;
		if (!h->width)
			fit(h);
	}
	int64_t n = bin_count(h);
	h->column = n && n * 2 <= width ? (int)(width / n > 8 ? 8 : width / n) : 1;
	width /= h->column;
	tui_scroll(h->cursor, &h->first, width);
	draw_title(t, h, cols);
	draw_legend(t, 1, cols);
	struct tui_bin *bins = xcalloc((size_t)width + 1, sizeof(*bins));
	double max = 0;
	int shown = 0;
	for (; shown < width && h->first + shown < n; shown++) {
		bin_sum(t, h, h->first + shown, &bins[shown]);
		if (bin_ilp(&bins[shown]) > max)
			max = bin_ilp(&bins[shown]);
	}
	draw_y_axis(height, width * h->column, max > 0 ? max : 1);
	draw_bins(t, h, bins, shown, height, max > 0 ? max : 1);
	if (shown) {
		draw_detail(t, h, lines - 1, cols);
		draw_step_labels(h, bins, shown, lines - 2);
	} else {
		tui_print(lines - 1, 0, cols, " no instruction here");
	}
	free(bins);
}

static void zoom(struct histogram_view *h, int in)
{
	uint64_t step = 1 + (uint64_t)h->cursor * h->width;
	uint64_t max_width = h->steps > 1 ? h->steps : 1;
	if (in)
		h->width = h->width > 1 ? (h->width + 1) / 2 : 1;
	else
		h->width = h->width * 2 < max_width ? h->width * 2 : max_width;
	h->mark = -1; /* a range is in bins: zooming clears it */
	h->cursor = (int64_t)((step - 1) / h->width);
	h->first = h->cursor - h->plot_width / 2;
	if (h->first < 0)
		h->first = 0;
}

static int next_low(struct tui *t, struct histogram_view *h, int dir)
{
	double mean = h->steps ? (double)h->insns / (double)h->steps : 0;
	int64_t n = bin_count(h);
	for (int64_t b = h->cursor + dir; b >= 0 && b < n; b += dir) {
		struct tui_bin x;
		bin_sum(t, h, b, &x);
		if (bin_ilp(&x) < mean / 2) {
			h->cursor = b;
			return 1;
		}
	}
	tui_message(t, "no low-ILP bin %s", dir > 0 ? "after the cursor" : "before the cursor");
	return 0;
}

static void open_call(struct tui *t, struct histogram_view *h, uint32_t call);

/* The graph shows whole-run steps: for a function, open it on the steps
 * the shown call (or the first) spans in the run, at its first instruction. */
static void open_call_graph(struct tui *t, struct histogram_view *h)
{
	const struct tui_function *fn;
	tui_model_functions(t->model, &fn);
	const struct tui_call *c =
		tui_model_call(t->model, h->call != TUI_NONE ? h->call : fn[h->function].first_call);
	if (!c)
		return;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (uint32_t i = c->first; i <= c->last; i++) {
		const struct tui_insn *mi = tui_model_insn(t->model, i);
		if (mi && mi->step && mi->step < lo)
			lo = mi->step;
		if (mi && mi->step > hi)
			hi = mi->step;
	}
	if (hi)
		tui_open_graph(t, lo, hi, c->first);
}

/* n / p: the next or previous call of the function (from "all": the first
 * or the last). */
static void step_call(struct tui *t, struct histogram_view *h, int dir)
{
	const struct tui_function *fn;
	tui_model_functions(t->model, &fn);
	uint32_t prev = TUI_NONE, c = fn[h->function].first_call;
	while (c != TUI_NONE && c != h->call) {
		prev = c;
		c = tui_model_call(t->model, c)->next;
	}
	/* c == h->call; from "all" (TUI_NONE), prev is the last call */
	uint32_t to = dir > 0 ? (h->call == TUI_NONE ? fn[h->function].first_call
						       : tui_model_call(t->model, c)->next)
			      : prev;
	if (to == TUI_NONE)
		tui_message(t, "no %s call", dir > 0 ? "next" : "previous");
	else
		open_call(t, h, to);
}

static int key(struct tui *t, struct tui_view *v, int k)
{
	struct histogram_view *h = v->state;
	int64_t n = bin_count(h);
	switch (k) {
	case KEY_LEFT: case 'h': if (h->cursor > 0) h->cursor--; break;
	case KEY_RIGHT: case 'l': if (h->cursor + 1 < n) h->cursor++; break;
	case KEY_PPAGE: h->cursor -= h->plot_width; h->first -= h->plot_width; break;
	case KEY_NPAGE: h->cursor += h->plot_width; h->first += h->plot_width; break;
	case KEY_HOME: case 'g': h->cursor = 0; break;
	case KEY_END: case 'G': h->cursor = n - 1; break;
	case '+': case '=': zoom(h, 1); break;
	case '-': zoom(h, 0); break;
	case '0': fit(h); break;
	case '[': next_low(t, h, -1); break;
	case ']': next_low(t, h, 1); break;
	case 'm': case ' ': h->mark = h->mark < 0 ? h->cursor : -1; break;
	case 'n': case 'p': case 'a':
		if (h->function == TUI_NONE)
			return 0;
		if (k == 'a')
			open_call(t, h, TUI_NONE);
		else
			step_call(t, h, k == 'n' ? 1 : -1);
		break;
	case '\n': case KEY_ENTER: {
		if (h->function != TUI_NONE) {
			open_call_graph(t, h);
			break;
		}
		int64_t lo = h->mark < 0 || h->mark > h->cursor ? h->cursor : h->mark;
		int64_t hi = h->mark > h->cursor ? h->mark : h->cursor;
		uint64_t last = (uint64_t)(hi + 1) * h->width;
		tui_open_graph(t, 1 + (uint64_t)lo * h->width, last > h->steps ? h->steps : last,
			       TUI_NONE);
		break;
	}
	default:
		return 0;
	}
	if (h->cursor >= n)
		h->cursor = n - 1;
	if (h->cursor < 0)
		h->cursor = 0;
	if (h->first < 0)
		h->first = 0;
	return TUI_HANDLED | TUI_REDRAW;
}

/* Show a function's calls (call == TUI_NONE: all) or the whole run. */
static void open_call(struct tui *t, struct histogram_view *h, uint32_t call)
{
	h->call = call;
	if (h->function == TUI_NONE) {
		struct engine_totals tot;
		tui_model_totals(t->model, &tot);
		h->shown_h = tui_model_histogram(t->model);
		h->steps = tot.steps;
		h->insns = tot.insns;
	} else {
		/* the model's, kept: a function opened again costs no pass */
		h->shown_h = tui_model_cached_histogram(t->model, h->function, call);
		h->steps = h->shown_h->steps;
		h->insns = h->shown_h->insns;
	}
	h->width = 0;
	if (h->plot_width)
		fit(h);
}

static void done(struct tui_view *v)
{
	struct histogram_view *h = v->state;
	free(h);
}

static const struct tui_view_ops histogram_ops = {"Histogram", keys, draw, key, done};

void tui_open_histogram(struct tui *t, uint32_t function, uint32_t call)
{
	struct histogram_view *h = xcalloc(1, sizeof(*h));
	h->function = function;
	h->mark = -1;
	open_call(t, h, call);
	tui_push(t, &histogram_ops, h);
}
