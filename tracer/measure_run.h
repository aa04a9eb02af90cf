/* One run under perpi measure, as measure_run.c (start, injection,
 * calibration) and measure_loop.c (the run, its stops, its records)
 * share it. Not for other modules. */
#ifndef PERPI_TRACER_MEASURE_RUN_H
#define PERPI_TRACER_MEASURE_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tracer/inject.h"
#include "tracer/measure_code.h"
#include "tracer/measure_internal.h"

/* A process the program started: what perpi knows of it so far. */
struct run_child {
	pid_t pid;
	char kind;    /* 'f' forked (its copy of the stubs is disarmed), 'v' shares our memory */
	char stopped; /* its first stop was seen */
};

/* A call redirected to a stub: its rel32 field and what it held. */
struct run_site {
	uint64_t at;
	uint8_t orig[4];
};

struct run {
	struct measure_session *s;
	struct measure_run *r;
	pid_t pid;
	int memfd;
	uint8_t *data; /* perpi's mapping of the data area */
	size_t data_size;
	uint64_t records, records_at; /* the buffer's capacity and offset in the area */
	uint64_t shadow;	      /* the shadow stack's capacity */
	uint64_t data_addr, code_addr;
	size_t code_size;
	uint64_t bias, gadget;
	struct inject_layout layout; /* the program's mappings */
	uint64_t clock_mask;	     /* the counter's width */
	double ticks_per_cycle;
	struct code_page code;
	struct code_patch *patches; /* per probe */
	uint64_t *entries;	    /* per probe: run-time entry */
	struct run_site *sites;	    /* calls redirected (ENTRY_CALL_SITES) */
	size_t n_sites;
	int pending_signal; /* to deliver at the next resume */
	/* calibration: the smallest durations seen (clock units) */
	uint64_t cal_func, cal_region, cal_outer, cal_plain;
	uint64_t cal_start;
	int cal_have_start;
	struct region_event *events;
	size_t n_events, cap_events;
	struct run_child *children;
	size_t n_children;
	pid_t *threads;
	size_t n_threads;
};

uint64_t *run_field(struct run *u, unsigned off);

/* Empty the buffer of finished calls into the run's figures (or, while
 * calibrating, into the calibration minima). */
void run_take_records(struct run *u, int calibrating);
/* The overheads from the calibration minima. 0 or -1 with perpi_error(). */
int run_calibration_done(struct run *u);
/* Run to the end; 0, or -1 with perpi_error(). u->r says how it ended. */
int run_loop(struct run *u);
/* Kill the program and reap it. */
void run_kill(struct run *u);
/* After the end: the last records, calls still in flight, the regions. */
void run_collect(struct run *u);

#endif
