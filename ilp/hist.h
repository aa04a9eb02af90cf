/* The ILP histogram (DESIGN.md): for each step, how many instructions ran
 * at it, split by class. Memory is bounded: past HIST_MAX_BINS steps, the
 * histogram keeps bins of 2^k steps, merging pairs, so every bin's sum
 * stays exact. Outputs: terminal bars, CSV, SVG. */
#ifndef PERPI_HIST_H
#define PERPI_HIST_H

#include <stdint.h>
#include <stdio.h>

#include "ilp/engine.h"

#define HIST_MAX_BINS 65536

struct hist;

struct hist *hist_new(void);
void hist_delete(struct hist *hist);

/* An engine_observer_fn (no dependencies needed). */
void hist_observe(void *hist, const struct engine_step_info *info);
/* Adds n instructions of class klass at step (>= 1): the same as observing them. */
void hist_add(struct hist *hist, uint64_t step, unsigned klass, uint64_t n);

uint64_t hist_max_step(const struct hist *hist);

/* A view of steps first..last in equal bins of width steps (the last one
 * may be shorter), each with exact per-class sums. Owned by the caller. */
struct hist_bins {
	uint64_t first, last, width;
	size_t n;
	uint64_t (*count)[CLASS_COUNT]; /* n rows */
	uint64_t total;			/* instructions in first..last */
};

/* At most max_bins bins (0: one bin per step where the histogram kept
 * them). The width is a multiple of the histogram's own bin width, so
 * fewer bins may come back. -1 with perpi_error() if first..last is empty. */
int hist_bin(const struct hist *hist, uint64_t first, uint64_t last, unsigned max_bins,
	     struct hist_bins *out);
void hist_bins_done(struct hist_bins *bins);

const char *hist_class_name(unsigned klass);   /* "load", "store", ... */
const char *hist_class_colour(unsigned klass); /* "#rrggbb" for SVG */

/* Bars of instructions per step, one row per bin, with a legend; colour
 * (ANSI) when colour is set, class letters otherwise. */
void hist_write_text(FILE *out, const struct hist_bins *bins, unsigned bar_width, int colour);
/* first_step,last_step,steps,load,...,other,total: one row per bin. */
void hist_write_csv(FILE *out, const struct hist_bins *bins);
/* A stacked bar chart with axes, ticks, legend and title. */
void hist_write_svg(FILE *out, const struct hist_bins *bins, const char *title);

#endif
