/* What measure.c, measure_run.c and measure_stats.c share; not for other
 * modules. */
#ifndef PERPI_TRACER_MEASURE_INTERNAL_H
#define PERPI_TRACER_MEASURE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tracer/measure.h"

/* What a probe's calls mean. */
enum probe_role {
	ROLE_CALLS, /* each call is timed: a --function, or main as the region */
	ROLE_START, /* a region starts at its entry (perpi_start, --start SYM) */
	ROLE_STOP   /* a region ends at its entry (perpi_stop, --stop SYM) */
};

/* A function whose entry is taken over. Its probe number in the stubs is
 * CAL_PROBES + its index. */
struct probe {
	const char *name; /* owned by the session's ELF image */
	int role;	  /* enum probe_role */
	int figure;	  /* ROLE_CALLS: the figure its calls go to */
	uint64_t link;	  /* link-time address and size of its symbol */
	uint64_t size;
	/* where no jump fits at a region's start or end: the direct calls of
	 * it in the program (link-time addresses where they end), found once */
	uint64_t *sites;
	size_t n_sites;
	int sites_known;
};

struct measure_session {
	struct measure_options opt;
	char *path;
	struct elf_image *prog;
	struct x86_decoder *dec;
	struct probe *probes;
	size_t n_probes;
	const char **names; /* figures: the functions, then the region */
	int *is_region;
	size_t n_figures;
	int region_figure; /* the region's figure, or -1 */
	char *region_name; /* "A..B", owned */
	int cpu;
	int warned; /* a breakpoint entry was said (once) */
};

/* Where the region starts and ends. */
struct region_event {
	uint64_t clock;
	int stop;
};

void measure_series_add(struct measure_series *s, double v);

/* The region's durations from its start and stop events (sorted here),
 * overhead subtracted, into series; a start never stopped is unfinished. */
void measure_pair_regions(struct region_event *ev, size_t n, double overhead,
			  struct measure_series *series);

#endif
