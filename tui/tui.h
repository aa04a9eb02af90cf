/* The curses browser: a stack of views over one model. Each screen is one
 * file filling a struct tui_view_ops (tig's view ops); key handlers return
 * a mask of what to do next (htop's Action). Only tui/ includes curses. */
#ifndef PERPI_TUI_TUI_H
#define PERPI_TUI_TUI_H

#include <stdint.h>

#include "tui/tui_model.h"

#define TUI_MIN_COLS 80
#define TUI_MIN_LINES 24

/* What a key handler asks for. */
enum tui_action {
	TUI_HANDLED = 1 << 0, /* the key was for this view */
	TUI_REDRAW = 1 << 1,
	TUI_QUIT = 1 << 2,
	TUI_BACK = 1 << 3, /* pop this view */
};

/* Attributes, resolved to colours or to bold/reverse on monochrome terminals. */
enum tui_style {
	STYLE_NORMAL, STYLE_TITLE, STYLE_BAR, STYLE_BAR_KEY, STYLE_SELECTED, STYLE_CRITICAL,
	STYLE_LOW, STYLE_DIM, STYLE_CLASS, /* + enum perpi_class */
	STYLE_COUNT = STYLE_CLASS + CLASS_COUNT
};

struct tui_key_help {
	const char *key, *what;
};

struct tui;
struct tui_view;

struct tui_view_ops {
	const char *name;
	const struct tui_key_help *keys; /* NULL-terminated, for the help screen */
	/* Draw in rows [0, lines) of stdscr, cols wide. */
	void (*draw)(struct tui *t, struct tui_view *v, int lines, int cols);
	int (*key)(struct tui *t, struct tui_view *v, int key);
	void (*done)(struct tui_view *v); /* free v->state */
};

struct tui_view {
	const struct tui_view_ops *ops;
	void *state; /* owned by the view, freed by ops->done */
};

/* The basic blocks of the run (ilp/blocks.h), fed with the same events as
 * the model. Their ILP takes a second pass over the events: ilp_pass runs
 * it (replaying the recording) when the Blocks screen first needs it; NULL
 * when the events cannot be had again (a live trace). */
struct blocks;
struct lift_report;
struct lift_figures;
struct tui_blocks_source {
	struct blocks *blocks;
	int (*ilp_pass)(void *ctx, struct blocks *blocks); /* 0 or -1 with perpi_error() */
	void *ctx;
	int ilp_done;
	/* The Palmed model lifted to the run once at load (palmed/lift_report.h),
	 * NULL or lr->lift NULL without a model; then the figures of every
	 * function (indexed like tui_model_functions) and of every block
	 * (like blocks_list). note: what the bottom lines say about the model
	 * (its file, or how to build one). */
	const struct lift_report *lr;
	struct lift_figures *functions;
	struct lift_figures *block_figures;
	char note[160];
};

/* The application: the model and the stack of open views. */
struct tui {
	struct tui_model *model;
	struct tui_blocks_source *blocks; /* NULL: no Blocks screen figures */
	const char *title; /* what was loaded, for the title line */
	int colours;       /* 0 on monochrome terminals and with NO_COLOR */
	char message[160]; /* a one-shot status line message */
};

/* Run the browser on a finished model until the user quits. Returns 0, or
 * -1 with perpi_error() set (terminal too small, no terminal). The
 * terminal is restored in every case, also on fatal signals. */
int tui_run(struct tui_model *model, struct tui_blocks_source *blocks, const char *title);

/* Whether this terminal can show the browser (standard input and output
 * a terminal of at least 80x24), before loading anything: 0 or -1 with
 * perpi_error() set. tui_run checks again. */
int tui_check_terminal(void);

/* Open a view on top of the stack (the stack owns it). */
void tui_push(struct tui *t, const struct tui_view_ops *ops, void *state);

/* Opening views with arguments, used across screens. */
void tui_open_functions(struct tui *t);
void tui_open_histogram(struct tui *t, uint32_t function, uint32_t call);
/* The graph of steps [first_step, last_step] (select: an instruction to
 * select, or TUI_NONE; with steps 0, 0: the steps around it). */
void tui_open_graph(struct tui *t, uint64_t first_step, uint64_t last_step, uint32_t select);
void tui_open_critical(struct tui *t);
void tui_open_blocks(struct tui *t);

/* Drawing helpers shared by the screens (tui.c). */
void tui_style(struct tui *t, enum tui_style style, int on);
void tui_print(int y, int x, int width, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void tui_message(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Read a line of text on the bottom row (for `/`); returns 0 if entered. */
int tui_prompt(struct tui *t, const char *prompt, char *buf, int size);
/* Move a selection by a navigation key over n rows, page rows tall;
 * returns 1 if the key was a navigation key. */
int tui_navigate(int key, int64_t *selected, int64_t n, int page);
/* Keep a selection visible in a window of rows. */
void tui_scroll(int64_t selected, int64_t *top, int rows);
/* The code at addr as the symbols name it ("f+0x1c"), else "0x4011a0";
 * a static buffer. */
const char *tui_describe(struct tui *t, uint64_t addr);

#endif
