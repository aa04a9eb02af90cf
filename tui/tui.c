/* The browser's frame: terminal setup and restore, the view stack, the
 * bottom bar of screen keys, the help screen and shared drawing helpers. */
#include "tui/tui.h"

#include <curses.h>
#include <inttypes.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/util.h"

#define MAX_VIEWS 32

static struct tui_view stack[MAX_VIEWS];
static int depth;
static volatile sig_atomic_t curses_on;

/* The screens reachable from anywhere, shown in the bottom bar. */
static const struct {
	int key;
	const char *label;
	void (*open)(struct tui *t);
} screens[] = {
	{'1', "Functions", tui_open_functions},
	{'2', "Histogram", NULL},
	{'3', "Graph", NULL},
	{'4', "Critical", tui_open_critical},
	{'5', "Blocks", tui_open_blocks},
};

static const struct tui_key_help global_keys[] = {
	{"1 .. 5", "Functions, Histogram, Graph, Critical path, Blocks"},
	{"?", "this help (any key closes it)"},
	{"Esc", "back to the previous screen"},
	{"q", "quit"},
	{NULL, NULL},
};

/* Fatal signals: give the terminal back, then die of the same signal. */
static void on_fatal_signal(int sig)
{
	if (curses_on)
		endwin();
	curses_on = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void restore_terminal(void)
{
	if (curses_on)
		endwin();
	curses_on = 0;
}

static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS,
				   SIGFPE, SIGABRT, SIGILL, SIGPIPE};
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], on_fatal_signal);
	atexit(restore_terminal); /* perpi_fatal and xmalloc's exit paths */
}

static const struct {
	short fg, bg;
	attr_t mono;
} styles[STYLE_COUNT] = {
	[STYLE_NORMAL] = {-1, -1, A_NORMAL},
	[STYLE_TITLE] = {COLOR_BLACK, COLOR_CYAN, A_REVERSE},
	[STYLE_BAR] = {COLOR_BLACK, COLOR_CYAN, A_REVERSE},
	[STYLE_BAR_KEY] = {COLOR_WHITE, COLOR_BLACK, A_NORMAL},
	[STYLE_SELECTED] = {COLOR_BLACK, COLOR_YELLOW, A_REVERSE},
	[STYLE_CRITICAL] = {COLOR_RED, -1, A_BOLD},
	[STYLE_LOW] = {COLOR_RED, -1, A_BOLD},
	[STYLE_DIM] = {COLOR_BLUE, -1, A_DIM},
	[STYLE_CLASS + CLASS_LOAD] = {COLOR_BLACK, COLOR_GREEN, A_NORMAL},
	[STYLE_CLASS + CLASS_STORE] = {COLOR_BLACK, COLOR_YELLOW, A_NORMAL},
	[STYLE_CLASS + CLASS_INT] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL},
	[STYLE_CLASS + CLASS_FP] = {COLOR_WHITE, COLOR_RED, A_NORMAL},
	[STYLE_CLASS + CLASS_VEC] = {COLOR_WHITE, COLOR_MAGENTA, A_NORMAL},
	[STYLE_CLASS + CLASS_MOVE] = {COLOR_WHITE, COLOR_BLUE, A_NORMAL},
	[STYLE_CLASS + CLASS_BRANCH] = {COLOR_BLACK, COLOR_WHITE, A_NORMAL},
	[STYLE_CLASS + CLASS_OTHER] = {-1, -1, A_NORMAL},
};

void tui_style(struct tui *t, enum tui_style style, int on)
{
	attr_t a = t->colours ? COLOR_PAIR(style + 1) : styles[style].mono;
	if (on)
		attron(a);
	else
		attroff(a);
}

static void init_styles(struct tui *t)
{
	const char *no_colour = getenv("NO_COLOR");
	t->colours = has_colors() && !(no_colour && *no_colour);
	if (!t->colours)
		return;
	start_color();
	use_default_colors();
	for (int s = 0; s < STYLE_COUNT; s++)
		init_pair(s + 1, styles[s].fg, styles[s].bg);
}

void tui_print(int y, int x, int width, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	if (width <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (width < (int)sizeof(line))
		line[width] = 0;
	mvaddstr(y, x, line);
}

void tui_message(struct tui *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->message, sizeof(t->message), fmt, ap);
	va_end(ap);
}

const char *tui_describe(struct tui *t, uint64_t addr)
{
	static char buf[128];
	const struct tui_symbols *sym = tui_model_symbols(t->model);
	const char *name = sym->function ? sym->function(sym->ctx, addr) : NULL;
	if (name)
		snprintf(buf, sizeof(buf), "%s", name);
	else
		snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
	return buf;
}

int tui_navigate(int key, int64_t *selected, int64_t n, int page)
{
	int64_t s = *selected;
	switch (key) {
	case KEY_UP: case 'k': s--; break;
	case KEY_DOWN: case 'j': s++; break;
	case KEY_PPAGE: s -= page; break;
	case KEY_NPAGE: case ' ': s += page; break;
	case KEY_HOME: case 'g': s = 0; break;
	case KEY_END: case 'G': s = n - 1; break;
	default: return 0;
	}
	if (s >= n)
		s = n - 1;
	if (s < 0)
		s = 0;
	*selected = s;
	return 1;
}

void tui_scroll(int64_t selected, int64_t *top, int rows)
{
	if (rows < 1)
		rows = 1;
	if (selected < *top)
		*top = selected;
	if (selected >= *top + rows)
		*top = selected - rows + 1;
	if (*top < 0)
		*top = 0;
}

void tui_push(struct tui *t, const struct tui_view_ops *ops, void *state)
{
	if (depth == MAX_VIEWS) { /* drop the oldest: Esc history is bounded */
		if (stack[0].ops->done)
			stack[0].ops->done(&stack[0]);
		memmove(stack, stack + 1, (MAX_VIEWS - 1) * sizeof(*stack));
		depth--;
	}
	stack[depth++] = (struct tui_view){ops, state};
}

static void pop(void)
{
	struct tui_view *v = &stack[--depth];
	if (v->ops->done)
		v->ops->done(v);
}

static void draw_bar(struct tui *t, int y, int cols)
{
	tui_style(t, STYLE_BAR, 1);
	mvhline(y, 0, ' ', cols);
	int x = 0;
	if (t->message[0]) {
		tui_print(y, 0, cols, " %s", t->message);
		tui_style(t, STYLE_BAR, 0);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(screens); i++) {
		int current = !strcmp(stack[depth - 1].ops->name, screens[i].label);
		tui_style(t, STYLE_BAR_KEY, 1);
		mvprintw(y, x, "%c ", screens[i].key);
		tui_style(t, STYLE_BAR_KEY, 0);
		tui_style(t, current ? STYLE_SELECTED : STYLE_BAR, 1);
		mvprintw(y, x + 2, "%-9s", screens[i].label);
		tui_style(t, current ? STYLE_SELECTED : STYLE_BAR, 0);
		tui_style(t, STYLE_BAR, 1);
		x += 12;
	}
	tui_print(y, x, cols - x, "? Help  q Quit");
	tui_style(t, STYLE_BAR, 0);
}

static void draw_help(struct tui *t, int lines, int cols)
{
	const struct tui_view *v = &stack[depth - 1];
	int y = 0;
	erase();
	tui_style(t, STYLE_TITLE, 1);
	mvhline(0, 0, ' ', cols);
	tui_print(y++, 0, cols, " perpi tui: keys of the %s screen", v->ops->name);
	tui_style(t, STYLE_TITLE, 0);
	y++;
	for (const struct tui_key_help *k = v->ops->keys; k && k->key && y < lines - 1; k++)
		tui_print(y++, 2, cols - 2, "%-14s %s", k->key, k->what);
	y++;
	for (const struct tui_key_help *k = global_keys; k->key && y < lines - 1; k++)
		tui_print(y++, 2, cols - 2, "%-14s %s", k->key, k->what);
	tui_print(lines - 1, 0, cols, "Press any key to return.");
	refresh();
}

static void draw(struct tui *t)
{
	erase();
	if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_LINES) {
		tui_print(0, 0, COLS, "perpi tui needs %dx%d; this terminal is %dx%d.", TUI_MIN_COLS,
			  TUI_MIN_LINES, COLS, LINES);
		tui_print(1, 0, COLS, "Enlarge it, or press q to quit.");
	} else {
		struct tui_view *v = &stack[depth - 1];
		v->ops->draw(t, v, LINES - 1, COLS);
		draw_bar(t, LINES - 1, COLS);
	}
	refresh();
}

int tui_prompt(struct tui *t, const char *prompt, char *buf, int size)
{
	int len = (int)strlen(buf);
	curs_set(1);
	for (;;) {
		tui_style(t, STYLE_BAR, 1);
		mvhline(LINES - 1, 0, ' ', COLS);
		tui_print(LINES - 1, 0, COLS, "%s%s", prompt, buf);
		tui_style(t, STYLE_BAR, 0);
		refresh();
		int c = getch();
		if (c == '\n' || c == KEY_ENTER || c == 27 || c == ERR) {
			curs_set(0);
			return c == '\n' || c == KEY_ENTER ? 0 : -1;
		} else if (c == 21) { /* C-u: clear, as in a shell */
			buf[len = 0] = 0;
		} else if (c == KEY_BACKSPACE || c == 127 || c == 8) {
			if (len)
				buf[--len] = 0;
		} else if (c >= 32 && c < 127 && len < size - 1) {
			buf[len++] = (char)c;
			buf[len] = 0;
		}
	}
}

/* One key: the view first, then the frame's own keys. */
static int handle_key(struct tui *t, int key)
{
	if (key == KEY_RESIZE)
		return 0;
	if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_LINES)
		return key == 'q' ? TUI_QUIT : 0;
	struct tui_view *v = &stack[depth - 1];
	int r = v->ops->key(t, v, key);
	if (r & (TUI_QUIT | TUI_BACK) || r & TUI_HANDLED)
		return r;
	if (key == 'q')
		return TUI_QUIT;
	if (key == 27)
		return TUI_BACK;
	if (key == '?') {
		draw_help(t, LINES, COLS);
		while (getch() == KEY_RESIZE)
			draw_help(t, LINES, COLS);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(screens); i++)
		if (key == screens[i].key) {
			if (screens[i].open)
				screens[i].open(t);
			else if (key == '2')
				tui_open_histogram(t, TUI_NONE, TUI_NONE);
			else
				tui_open_graph(t, 1, 32, TUI_NONE);
		}
	return 0;
}

int tui_check_terminal(void)
{
	struct winsize ws;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return perpi_set_error("standard input and output must be a terminal");
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col && ws.ws_row &&
	    (ws.ws_col < TUI_MIN_COLS || ws.ws_row < TUI_MIN_LINES))
		return perpi_set_error("terminal too small: %dx%d, perpi tui needs at least %dx%d",
				       ws.ws_col, ws.ws_row, TUI_MIN_COLS, TUI_MIN_LINES);
	return 0;
}

static int start_curses(void)
{
	if (tui_check_terminal() < 0)
		return -1;
	setlocale(LC_ALL, "");
	if (!newterm(NULL, stdout, stdin))
		return perpi_set_error("cannot use terminal '%s'",
				       getenv("TERM") ? getenv("TERM") : "(TERM unset)");
	curses_on = 1;
	if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_LINES) {
		int cols = COLS, lines = LINES;
		restore_terminal();
		return perpi_set_error("terminal too small: %dx%d, perpi tui needs at "
				       "least %dx%d", cols, lines, TUI_MIN_COLS, TUI_MIN_LINES);
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(100); /* long enough for a loaded machine's escape sequences */
	curs_set(0);
	return 0;
}

int tui_run(struct tui_model *model, struct tui_blocks_source *blocks, const char *title)
{
	struct tui t = {.model = model, .blocks = blocks, .title = title};
	catch_signals();
	if (start_curses() < 0)
		return -1;
	init_styles(&t);
	/* PERPI_TUI_TIMING=FILE: how long each key took to handle and draw
	 * (bench/tui-bench.sh reads it). */
	const char *timing_path = getenv("PERPI_TUI_TIMING");
	FILE *timing = timing_path && *timing_path ? fopen(timing_path, "a") : NULL;
	tui_open_functions(&t);
	draw(&t);
	for (;;) {
		int key = getch();
		if (key == ERR) /* blocking input failed: the terminal is gone */
			break;
		double start = perpi_now();
		t.message[0] = 0;
		int r = handle_key(&t, key);
		if (r & TUI_QUIT)
			break;
		if (r & TUI_BACK) {
			if (depth > 1)
				pop();
			else
				tui_message(&t, "first screen: q quits");
		}
		if (!(r & TUI_HANDLED) || (r & (TUI_REDRAW | TUI_BACK)) || t.message[0])
			draw(&t);
		if (timing) {
			fprintf(timing, "%s %.3f\n", keyname(key), 1000 * (perpi_now() - start));
			fflush(timing);
		}
	}
	if (timing)
		fclose(timing);
	while (depth)
		pop();
	restore_terminal();
	return 0;
}
