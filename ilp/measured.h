/* Native cycles of a program's functions or region, as perpi measure
 * found them (perpi-measure(1)) and perpi.data keeps them (perpi record
 * --measure, perpi.data(5)): the data a report puts beside its predicted
 * cycles. Plain data; whoever makes one owns it (measured_free). */
#ifndef PERPI_MEASURED_H
#define PERPI_MEASURED_H

#include <stddef.h>
#include <stdint.h>

/* The clock the timing stubs read. */
enum { MEASURED_CLOCK_TSC, MEASURED_CLOCK_CYCLES /* the core cycle counter, by rdpmc */ };
/* How the functions' entries were taken over. */
enum { MEASURED_JUMP = 1, MEASURED_BREAKPOINT = 2 /* a stop before each call, somewhere */ };

/* One function's or the region's figures over the runs, in core cycles,
 * the timing overhead subtracted. */
struct measured_figure {
	char *name;	     /* "Sum"; the region: "main", "perpi_start..perpi_stop", "A..B" */
	int is_region;	     /* the region of interest rather than a --function */
	uint64_t calls;	     /* calls (regions) timed, in the run whose total is the smallest */
	uint64_t unfinished; /* calls entered that never returned, regions never ended (that run) */
	double min, median;  /* per call: the smallest over the runs of each run's min, median */
	double total;	     /* all calls of a run: the smallest over the runs */
};

struct measured {
	struct measured_figure *figures; /* the --functions in the order given, then the region */
	size_t n_figures;
	double whole;  /* cycles of the whole timed part of a run (smallest over the
			* runs): the region's total, or the outermost calls' total */
	unsigned runs; /* runs whose figures are in (the last may be cut short) */
	unsigned runs_asked;
	int clock;		/* MEASURED_CLOCK_* */
	double ticks_per_cycle; /* TSC ticks per core cycle (1 with the cycle counter) */
	double overhead;	/* cycles subtracted from each timed call */
	double region_overhead; /* ... from each region */
	double nested_overhead; /* ... per timed call nested in a timed call */
	int method;		/* MEASURED_JUMP or MEASURED_BREAKPOINT */
};

void measured_free(struct measured *m);
/* The figure named name (a function, or the region's name), or NULL. */
const struct measured_figure *measured_find(const struct measured *m, const char *name);
/* The region's figure, or NULL when functions were timed. */
const struct measured_figure *measured_region(const struct measured *m);
const char *measured_clock_name(int clock);   /* "tsc", "cycles" */
const char *measured_method_name(int method); /* "jump", "breakpoint" */

#endif
