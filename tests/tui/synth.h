/* A hand-made run for the TUI's tests: fifteen instructions, a function f
 * called twice, memory and register dependencies. Its figures are derived
 * by hand in synth.c, next to the events. */
#ifndef PERPI_TESTS_TUI_SYNTH_H
#define PERPI_TESTS_TUI_SYNTH_H

#include "tracer/event.h"
#include "tui/tui_model.h"

/* Feed the fifteen events to fn; returns fn's first non-zero result or 0. */
int synth_replay(perpi_event_fn fn, void *ctx);

/* Feed `repeat` copies of a long loop (for benchmarks): 10 instructions each. */
int synth_replay_loop(perpi_event_fn fn, void *ctx, uint64_t repeat);

/* Function names and source lines of the hand-made run. */
extern const struct tui_symbols synth_symbols;

#endif
