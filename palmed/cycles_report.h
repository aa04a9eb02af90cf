/* Predicted (and measured) cycles in perpi's reports: the "cycles"
 * columns of `perpi report`, of the live `perpi PROGRAM` and of the TUI's
 * Functions screen, and the "cycles" and "l1_miss_rate" members of
 * `perpi report --json` (perpi-report(1)). The lift report
 * (palmed/lift_report.h) owns one and feeds it the run's events; it
 * predicts with the lift report's Palmed model and the core file
 * (palmed/core.h). */
#ifndef PERPI_CYCLES_REPORT_H
#define PERPI_CYCLES_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ilp/measured.h"
#include "palmed/core.h"
#include "palmed/cycles.h"
#include "palmed/lift.h"

struct json_object;

/* Owns its core and its cycle model. */
struct cycles_report {
	char *core_path;       /* the core file, tried or loaded */
	struct core *core;     /* NULL: no core file (the hint says how to measure one) */
	struct cycles *cycles; /* with a model and a core */
	int finished;
	const struct measured *measured; /* perpi record --measure's figures, or NULL */
	const char *(*name)(void *ctx, uint64_t entry); /* a function's symbol */
	void *name_ctx;
};

/* core_path NULL: the default (core_default_path()), whose absence is no
 * error; m NULL: nothing is predicted. Returns 0, or -1 with perpi_error()
 * when a named core file is missing or corrupt. */
int cycles_report_new(const char *core_path, const struct model *m, struct cycles_report **out);
void cycles_report_delete(struct cycles_report *cr);

int cycles_report_event(struct cycles_report *cr, const struct perpi_event *ev);
void cycles_report_finish(struct cycles_report *cr);

/* The predicted figures of a function (entry) or of the whole run: 0, or
 * -1 when there is no prediction (no model, no core, or the function did
 * not run). */
int cycles_report_figures(const struct cycles_report *cr, uint64_t entry, int whole_run,
			  struct cycles_figures *out);
/* The native figures of the run (trace_reader_measured(), NULL: none),
 * and how to name a function's entry as they name it (its symbol); m must
 * outlive cr's use. */
void cycles_report_set_measured(struct cycles_report *cr, const struct measured *m,
				const char *(*name)(void *ctx, uint64_t entry), void *ctx);
/* Native cycles recorded with the run (`perpi record --measure`), the
 * same quantity as the predicted cycles: a function's total over its
 * calls (measured_figure.total), the whole run's m->whole. 0, or -1 when
 * the run has none (recorded without --measure, the function not timed
 * or never reached). */
int cycles_report_measured(const struct cycles_report *cr, uint64_t entry, int whole_run,
			   double *out);

/* "cycles [P] :: measured [M] :: " (each only when there is one; an L1
 * miss rate above 15% is said), or "" with neither. */
void cycles_report_columns(const struct cycles_report *cr, uint64_t entry, int whole_run, char *buf,
			   size_t size);
/* "; cycles: predicted by the core model with CORE (the core of CPU)". */
void cycles_report_header(FILE *out, const struct cycles_report *cr);
/* The line saying how to get predicted cycles, when there is a model but
 * no core file. */
void cycles_report_hint(FILE *out, const struct cycles_report *cr);

/* Adds "cycles": {"predicted", "resource_bound", "measured", ...} and
 * "l1_miss_rate" to j, the object of a function or of the whole run;
 * resource_bound < 0: null. */
void cycles_report_json(const struct cycles_report *cr, struct json_object *j, uint64_t entry,
			int whole_run, double resource_bound);

#endif
