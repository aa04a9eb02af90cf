/* Functions: PerPI's table (I, C, ILP, calls per function; with a Palmed
 * model also the predicted cycles (with a core file, palmed/cycles.h), the
 * native cycles of a run recorded with --measure, the resource bound and
 * its IPC, computed once at load), sortable by any column and filtered by
 * name; Enter opens the function's histogram. */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/lift_report.h"
#include "tui/tui.h"

enum column {
	COL_NAME,
	COL_I,
	COL_C,
	COL_ILP,
	COL_CALLS,
	COL_PREDICTED,
	COL_BOUND,
	COL_IPC,
	COL_MEASURED, /* last: only when the run has native cycles; drawn beside cycles */
	COL_COUNT
};
static const char *const column_names[COL_COUNT] = {"function", "I",	 "C",	"ILP",	   "calls",
						    "cycles",	"bound", "IPC", "measured"};

struct functions_view {
	const struct tui_function *all;
	const struct lift_figures *lift; /* per function, NULL without a model */
	double *predicted;		 /* per function, -1 when not predicted */
	double *measured;		 /* per function, -1 when not measured */
	int has_measured;		 /* the run was recorded with --measure */
	const char *note;		 /* about the model, for the bottom line */
	int n_cols;			 /* with a model COL_COUNT (COL_MEASURED without native
					  * cycles), else up to calls */
	size_t n_all;
	uint32_t *rows; /* indices into all, filtered and sorted */
	size_t n_rows;
	int64_t selected, top;
	enum column sort;
	int ascending;
	char filter[64];
};

static const struct tui_key_help keys[] = {
    {"Up/Down j/k", "select a function"},
    {"PgUp/PgDn", "page"},
    {"Home/End", "first, last"},
    {"< >", "sort by the column left/right of the current one"},
    {"n i c l a", "sort by name, I, C, ILP, calls (again: reverse)"},
    {"p y r", "with a Palmed model: sort by predicted cycles, resource bound, its IPC"},
    {"m", "with native cycles (perpi record --measure): sort by them"},
    {"/", "filter: a part of the name, ^ and $ anchor it (empty: all)"},
    {"Enter", "open the function's histogram (all its calls)"},
    {NULL, NULL},
};

static const struct functions_view *sorting; /* qsort has no context argument */

/* Resource-bound IPC: covered instructions per cycle, as perpi report;
 * -1 when nothing was covered. */
static double lift_ipc(const struct lift_figures *f)
{
	return f->cycles > 0 ? (double)f->covered / f->cycles : -1;
}

static int compare_rows(const void *a, const void *b)
{
	const struct tui_function *x = &sorting->all[*(const uint32_t *)a];
	const struct tui_function *y = &sorting->all[*(const uint32_t *)b];
	int c = 0;
	switch (sorting->sort) {
	case COL_NAME:
		c = strcmp(x->name, y->name);
		break;
	case COL_I:
		c = (x->insns > y->insns) - (x->insns < y->insns);
		break;
	case COL_C:
		c = (x->steps > y->steps) - (x->steps < y->steps);
		break;
	case COL_ILP:
		c = (x->ilp > y->ilp) - (x->ilp < y->ilp);
		break;
	case COL_CALLS:
		c = (x->calls > y->calls) - (x->calls < y->calls);
		break;
	case COL_PREDICTED:
	case COL_MEASURED: {
		const double *v =
		    sorting->sort == COL_PREDICTED ? sorting->predicted : sorting->measured;
		double a = v[x - sorting->all], b = v[y - sorting->all];
		c = (a > b) - (a < b);
		break;
	}
	case COL_BOUND:
	case COL_IPC: {
		const struct lift_figures *fx = &sorting->lift[x - sorting->all];
		const struct lift_figures *fy = &sorting->lift[y - sorting->all];
		double a = sorting->sort == COL_IPC ? lift_ipc(fx) : fx->cycles;
		double b = sorting->sort == COL_IPC ? lift_ipc(fy) : fy->cycles;
		c = (a > b) - (a < b);
		break;
	}
	default:
		break;
	}
	if (!c) /* a stable, reproducible order: by name */
		return strcmp(x->name, y->name);
	return sorting->ascending ? c : -c;
}

/* A substring of the name; ^ anchors it at the start, $ at the end. */
static int matches(const char *name, const char *filter)
{
	size_t n = strlen(filter), len = strlen(name);
	int start = n && filter[0] == '^', end = n > (size_t)start && filter[n - 1] == '$';
	const char *want = filter + start;
	size_t w = n - start - end;
	if (start && end)
		return len == w && !strncmp(name, want, w);
	if (start)
		return !strncmp(name, want, w);
	if (end)
		return len >= w && !strncmp(name + len - w, want, w);
	return strstr(name, filter) != NULL;
}

static void refilter(struct functions_view *f)
{
	f->n_rows = 0;
	for (size_t i = 0; i < f->n_all; i++)
		if (!f->filter[0] || matches(f->all[i].name, f->filter))
			f->rows[f->n_rows++] = (uint32_t)i;
	sorting = f;
	qsort(f->rows, f->n_rows, sizeof(*f->rows), compare_rows);
	f->selected = f->top = 0;
}

/* Function i's row at line y. */
static void draw_row(const struct functions_view *f, uint32_t i, int y, int name_w, int cols)
{
	const struct tui_function *fn = &f->all[i];
	if (!f->lift) {
		tui_print(y, 0, cols, " %-*.*s %12" PRIu64 " %12" PRIu64 " %12.2f %12" PRIu64 "%*s",
			  name_w, name_w, fn->name, fn->insns, fn->steps, fn->ilp, fn->calls, cols,
			  "");
		return;
	}
	const struct lift_figures *lf = &f->lift[i];
	char ipc[16] = "-", cyc[24] = "-", meas[24] = "-";
	if (lift_ipc(lf) >= 0)
		snprintf(ipc, sizeof(ipc), "%.2f", lift_ipc(lf));
	if (f->predicted[i] >= 0)
		snprintf(cyc, sizeof(cyc), "%.1f", f->predicted[i]);
	if (f->measured[i] >= 0)
		snprintf(meas, sizeof(meas), "%.1f", f->measured[i]);
	tui_print(y, 0, cols,
		  " %-*.*s %10" PRIu64 " %9" PRIu64 " %6.2f %6" PRIu64 " %10s%s%*s %10.1f %5s%*s",
		  name_w, name_w, fn->name, fn->insns, fn->steps, fn->ilp, fn->calls, cyc,
		  f->has_measured ? " " : "", f->has_measured ? 10 : 0, f->has_measured ? meas : "",
		  lf->cycles, ipc, cols, "");
}

static void draw(struct tui *t, struct tui_view *v, int lines, int cols)
{
	struct functions_view *f = v->state;
	struct engine_totals tot;
	tui_model_totals(t->model, &tot);
	tui_style(t, STYLE_TITLE, 1);
	mvhline(0, 0, ' ', cols);
	tui_print(0, 0, cols,
		  " Functions: %s  whole run :: I [%" PRIu64 "] :: C [%" PRIu64 "] :: ILP [%.2f]",
		  t->title, tot.insns, tot.steps,
		  tot.steps ? (double)tot.insns / (double)tot.steps : 0.0);
	tui_style(t, STYLE_TITLE, 0);
	/* With a model, narrower columns: cycles, bound and IPC fit in 80
	 * columns (the measured cycles take 11 more). */
	int name_w = f->lift ? cols - 65 - (f->has_measured ? 11 : 0) : cols - 4 * 13 - 2;
	name_w = name_w < 4 ? 4 : name_w;
	char head[COL_COUNT][24];
	for (int c = 0; c < COL_COUNT; c++)
		snprintf(head[c], sizeof(head[c]), "%s%s", column_names[c],
			 c == (int)f->sort ? (f->ascending ? "^" : "v") : "");
	attron(A_BOLD);
	if (f->lift)
		tui_print(1, 0, cols, " %-*.*s %10s %9s %6s %6s %10s%s%*s %10s %5s", name_w, name_w,
			  head[0], head[1], head[2], head[3], head[4], head[5],
			  f->has_measured ? " " : "", f->has_measured ? 10 : 0,
			  f->has_measured ? head[COL_MEASURED] : "", head[6], head[7]);
	else
		tui_print(1, 0, cols, " %-*s %12s %12s %12s %12s", name_w, head[0], head[1],
			  head[2], head[3], head[4]);
	attroff(A_BOLD);
	int rows = lines - 3;
	tui_scroll(f->selected, &f->top, rows);
	for (int r = 0; r < rows && f->top + r < (int64_t)f->n_rows; r++) {
		int sel = f->top + r == f->selected;
		if (sel)
			tui_style(t, STYLE_SELECTED, 1);
		draw_row(f, f->rows[f->top + r], 2 + r, name_w, cols);
		if (sel)
			tui_style(t, STYLE_SELECTED, 0);
	}
	if (!f->n_all)
		tui_print(2, 1, cols - 1, "no function was called in the traced region");
	else if (!f->n_rows)
		tui_print(2, 1, cols - 1, "no function matches '%s'", f->filter);
	tui_print(lines - 1, 0, cols, " %zu of %zu functions%s%s%s%s%s", f->n_rows, f->n_all,
		  f->filter[0] ? ", filter '" : "", f->filter, f->filter[0] ? "'" : "",
		  f->note[0] ? "; " : "", f->note);
}

static void sort_by(struct functions_view *f, enum column c)
{
	if (f->sort == c)
		f->ascending = !f->ascending;
	else
		f->sort = c, f->ascending = c == COL_NAME;
	uint32_t keep = f->n_rows ? f->rows[f->selected] : 0;
	sorting = f;
	qsort(f->rows, f->n_rows, sizeof(*f->rows), compare_rows);
	for (size_t i = 0; i < f->n_rows; i++)
		if (f->rows[i] == keep)
			f->selected = (int64_t)i;
}

static int key(struct tui *t, struct tui_view *v, int k)
{
	struct functions_view *f = v->state;
	if (tui_navigate(k, &f->selected, (int64_t)f->n_rows, LINES - 5))
		return TUI_HANDLED | TUI_REDRAW;
	const char *sort_keys = f->lift ? (f->has_measured ? "niclapyrm" : "niclapyr") : "nicla";
	const char *s = k > 0 && k < 256 ? strchr(sort_keys, k) : NULL;
	if (s && *s) {
		sort_by(f, (enum column)(s - sort_keys));
		return TUI_HANDLED | TUI_REDRAW;
	}
	switch (k) {
	case '<':
		sort_by(f, (enum column)((f->sort + f->n_cols - 1) % f->n_cols));
		return TUI_HANDLED | TUI_REDRAW;
	case '>':
		sort_by(f, (enum column)((f->sort + 1) % f->n_cols));
		return TUI_HANDLED | TUI_REDRAW;
	case '/':
		tui_prompt(t, "filter: ", f->filter, sizeof(f->filter));
		refilter(f);
		return TUI_HANDLED | TUI_REDRAW;
	case '\n':
	case KEY_ENTER:
		if (f->n_rows)
			tui_open_histogram(t, f->rows[f->selected], TUI_NONE);
		return TUI_HANDLED | TUI_REDRAW;
	}
	return 0;
}

static void done(struct tui_view *v)
{
	struct functions_view *f = v->state;
	free(f->rows);
	free(f->predicted);
	free(f->measured);
	free(f);
}

static const struct tui_view_ops functions_ops = {"Functions", keys, draw, key, done};

void tui_open_functions(struct tui *t)
{
	struct functions_view *f = xcalloc(1, sizeof(*f));
	f->n_all = tui_model_functions(t->model, &f->all);
	f->lift = t->blocks ? t->blocks->functions : NULL;
	f->note = t->blocks ? t->blocks->note : "";
	const struct lift_report *lr = t->blocks ? t->blocks->lr : NULL;
	f->has_measured = lr && lr->cycles->measured;
	f->n_cols = !f->lift ? COL_PREDICTED : f->has_measured ? COL_COUNT : COL_MEASURED;
	f->predicted = xcalloc(f->n_all + 1, sizeof(*f->predicted));
	f->measured = xcalloc(f->n_all + 1, sizeof(*f->measured));
	for (size_t i = 0; i < f->n_all; i++) {
		struct cycles_figures cf;
		uint64_t entry = f->all[i].entry;
		f->predicted[i] =
		    lr && cycles_report_figures(lr->cycles, entry, 0, &cf) == 0 ? cf.cycles : -1;
		if (!lr || cycles_report_measured(lr->cycles, entry, 0, &f->measured[i]) < 0)
			f->measured[i] = -1;
	}
	f->rows = xcalloc(f->n_all + 1, sizeof(*f->rows));
	f->sort = COL_I; /* PerPI's order: by I, largest first */
	refilter(f);
	tui_push(t, &functions_ops, f);
}
