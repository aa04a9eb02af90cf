/* Native timing of a program's region or functions (perpi measure): the
 * unmodified binary runs at full speed, with no ptrace stop inside a
 * timed window. At its first instruction perpi maps a code page near the
 * program and a data area it shares with it, writes timing stubs there
 * (tracer/measure_stub.S) and takes over each timed function's entry with
 * a jump to its stub (or, where no jump fits, a breakpoint whose stop
 * falls before the timed window). The stubs read the clock at each entry
 * and return and append every finished call to the shared buffer. The
 * stubs' own cost is measured in each run and subtracted. See
 * perpi-measure(1) for the method and what it assumes. */
#ifndef PERPI_TRACER_MEASURE_H
#define PERPI_TRACER_MEASURE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* How a function's entry is taken over. */
enum measure_method {
	MEASURE_AUTO,	   /* a jump, else a breakpoint */
	MEASURE_JUMP,	   /* a jump; a function where none fits is an error */
	MEASURE_BREAKPOINT /* a breakpoint stop before every call */
};

/* The clock the stubs read. */
enum measure_clock {
	MEASURE_CLOCK_TSC,   /* rdtsc: ticks, converted to cycles by the caller's calibration */
	MEASURE_CLOCK_CYCLES /* the core cycle counter (PAPI_TOT_CYC's event), by rdpmc */
};

struct measure_options {
	char **functions; /* --function SYM (the program's functions), repeatable */
	size_t n_functions;
	const char *start, *stop; /* --start SYM --stop SYM: a region between two calls */
	int method;		  /* enum measure_method */
	int counter;		  /* try the cycle counter first (where counters work) */
	int cpu;		  /* pin perpi and the program; -1: the current CPU */
};

/* Set by measure's SIGINT/SIGTERM handler: the run in progress stops, what
 * it timed so far is kept. */
extern volatile sig_atomic_t measure_stop_signal;

/* One run's figures, in the clock's units (TSC ticks or cycles). */
struct measure_series {
	double *v; /* each timed call, overhead subtracted; owned */
	size_t n, cap;
	uint64_t unfinished;
};

struct measure_run {
	struct measure_series *series; /* one per figure (measure_figures) */
	size_t n_series;
	double whole;
	int clock;
	double overhead, region_overhead, nested_overhead; /* clock units */
	int method;
	uint64_t lost;	    /* calls not timed: too deep (shadow stack full) */
	uint64_t abandoned; /* calls left by longjmp or an exception */
	/* how the run ended */
	int exited, exit_code, term_signal, interrupted, execed;
	char problem[256]; /* why it stopped early, when it did */
};

void measure_run_done(struct measure_run *r);

struct measure_session;

struct measure_session *measure_new(const struct measure_options *opt);
void measure_delete(struct measure_session *s);

/* Check PROGRAM (argv[0]) and the functions to time. 0; -1 with
 * perpi_error() set when the program cannot be run ("./x: not an ELF
 * file"); -2 when what to time is wrong ("--function f: no function of
 * that name in ./x"). */
int measure_prepare(struct measure_session *s, char *const argv[]);

/* The figures' names and kinds (one per run series: the functions in the
 * order given, then the region), valid after measure_prepare. */
size_t measure_figures(const struct measure_session *s, const char *const **names,
		       const int **is_region);

/* One native run of the program (argv as for measure_prepare). The stubs'
 * cost is timed around a chain of known cycles: ticks_per_cycle is the
 * TSC's, as calibrated so far. 0 when it ran (to its end, or cut short: r
 * says how), -1 with perpi_error() when it could not be measured at all.
 * r is filled either way (free it with measure_run_done). */
int measure_run_once(struct measure_session *s, char *const argv[], double ticks_per_cycle,
		     struct measure_run *r);

#endif
