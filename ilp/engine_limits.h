/* The constrained machine's limits (DESIGN.md, "Constrained machines"),
 * private to the engine: an instruction window of W instructions (one cannot
 * run before the one W earlier has run) and an issue width of N per step.
 * One state for the whole run and one per open call instance, since each
 * instance is scheduled in isolation. */
#ifndef PERPI_ENGINE_LIMITS_H
#define PERPI_ENGINE_LIMITS_H

#include <stdint.h>

struct limits {
	unsigned window;   /* W, 0 = unlimited */
	uint32_t *ring;    /* steps the last W placed instructions are done at */
	uint64_t placed;   /* instructions placed so far */
	unsigned width;    /* N, 0 = unlimited */
	uint32_t *count;   /* instructions issued at each step */
	uint32_t *next;    /* union-find: the first step >= s that is not full */
	uint64_t cap;      /* steps covered by count and next */
	uint64_t high;     /* steps [0, high) may be dirty */
};

/* Zeroed state for window W and width N (either may be 0); the caller owns
 * *l and releases it with limits_done. */
void limits_init(struct limits *l, unsigned window, unsigned width);
void limits_done(struct limits *l);

/* Back to the state of limits_init, keeping the memory. */
void limits_reset(struct limits *l);

/* The step of an instruction whose operands allow it to issue at step
 * ready (>= 1) and whose results take latency (>= 1) steps: it issues at
 * the first step >= ready after the one W earlier is done, with room in
 * the step; returns the step its results are ready at, and records both.
 * Returns 0 when the step would not fit in 32 bits. */
uint32_t limits_place(struct limits *l, uint64_t ready, unsigned latency);

#endif
