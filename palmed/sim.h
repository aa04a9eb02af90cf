/* Simulated machines: a known port mapping (each form is a list of µops,
 * each µop may run on a set of ports) standing in for the hardware, so the
 * inference can be tested exactly, without timing. */
#ifndef PERPI_SIM_H
#define PERPI_SIM_H

#include <stddef.h>

#include "palmed/kernel.h"
#include "palmed/measure.h"

#define SIM_MAX_UOPS 6

/* A µop's port mask with this bit: it takes no dispatch slot (a NOP that a
 * Zen 4 fuses to the instruction before): the machine's width does not
 * count it. */
#define SIM_FUSED 0x80000000u

struct sim_form {
	const char *name;
	unsigned nuops;
	unsigned ports[SIM_MAX_UOPS]; /* bit p: the µop may issue on port p */
	const char *unsupported;      /* non-NULL: the runner refuses it, why */
};

struct sim_machine {
	const char *name;
	const char *cpu; /* identity written into models: "simulated: NAME" */
	const char *summary;
	unsigned nports;
	const char *const *port_names;
	unsigned width; /* µops dispatched per cycle, 0 for no limit */
	const struct sim_form *forms;
	size_t nforms;
	/* The forms a build infers first, then maps the others against
	 * (palmed/infer_map.h); NULL: every form is inferred together. */
	const char *const *core;
	size_t ncore;
};

/* The built-in machines ("overlap", "intel", "zen", "catalogue"); NULL if
 * none. */
const struct sim_machine *sim_find(const char *name);
/* The i-th built-in machine, NULL past the end. */
const struct sim_machine *sim_machine_at(size_t i);
const struct sim_form *sim_find_form(const struct sim_machine *m, const char *form);

/* Exact cycles per iteration: the optimal fractional schedule of the
 * kernel's µops over the ports, max over port sets S of (µops that can only
 * run in S) / |S| (Hall's theorem), and total µops / width.
 * Returns 0, or -1 with perpi_error() set (unknown or unsupported form). */
int sim_cycles(const struct sim_machine *m, const struct kernel *k, double *cycles);
/* The same quantity by a second method: the minimum-makespan linear
 * program over µop-to-port assignments, solved by GLPK. */
int sim_cycles_lp(const struct sim_machine *m, const struct kernel *k, double *cycles);

/* A measurement interface answering with sim_cycles. */
void sim_measure(const struct sim_machine *m, struct measure *out);

/* The same with measurement noise: each kernel's cycles are multiplied by
 * a factor in [1 - noise, 1 + noise] drawn from a hash of its spec (the
 * same kernel always gets the same factor, like a measurement database).
 * noisy must outlive out. */
struct sim_noisy {
	const struct sim_machine *machine;
	double noise;
};
void sim_measure_noisy(struct sim_noisy *noisy, struct measure *out);

#endif
