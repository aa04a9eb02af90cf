/* The Palmed resource bound in perpi's reports: the columns of `perpi
 * report` and of the live `perpi PROGRAM`, the `perpi report --blocks`
 * table and the "palmed" members of `perpi report --json`
 * (perpi-report(1)). */
#ifndef PERPI_LIFT_REPORT_H
#define PERPI_LIFT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ilp/blocks.h"
#include "ilp/engine.h"
#include "ilp/filter.h"
#include "palmed/cycles_report.h"
#include "palmed/lift.h"

struct json_object;

/* Owns its model, blocks and lift. */
struct lift_report {
	char *model_path;    /* the model's file, tried or loaded */
	struct model *model; /* NULL: no model (the hint says how to build one) */
	struct blocks *blocks;
	struct lift *lift;	      /* after lift_report_finish, with a model */
	struct cycles_report *cycles; /* predicted cycles (palmed/cycles_report.h) */
};

/* model_path NULL: the default model (model_default_path()); its absence
 * is no error and a corrupt one only a warning: lr->model stays NULL. A
 * model of another CPU is loaded with a warning. Returns 0, or -1 with
 * perpi_error() (the named model is missing or corrupt). */
int lift_report_new(const char *model_path, struct lift_report **out);
void lift_report_delete(struct lift_report *lr);
/* Predict cycles with the core file at path instead of the default one;
 * before the first event. 0, or -1 with perpi_error(). */
int lift_report_set_core(struct lift_report *lr, const char *path);

/* The run's native figures (perpi record --measure: trace_reader_measured,
 * NULL: none) and how to name a function's entry, for the "measured"
 * columns and members; m must outlive lr's use. */
void lift_report_set_measured(struct lift_report *lr, const struct measured *m,
			      const char *(*name)(void *ctx, uint64_t entry), void *ctx);
/* Whether lift_report_columns has figures to show: a model's, or native
 * cycles alone ("measured [M]"). */
int lift_report_has_columns(const struct lift_report *lr);

/* Feed the run: as a sink (perpi_event_fn) or as an engine observer. */
int lift_report_event(void *lr, const struct perpi_event *ev);
void lift_report_observe(void *lr, const struct engine_step_info *info);
void lift_report_finish(struct lift_report *lr);

/* The blocks' ILP (blocks_ilp_event), from a second replay of the recorded
 * run at path; 0, or -1 with perpi_error(). */
int lift_report_block_ilp(struct lift_report *lr, const char *path);

/* The one line saying how to build a model, for when there is none, or how
 * to measure the core file when there is a model but no core file;
 * nothing when both are there. */
void lift_report_hint(FILE *out, const struct lift_report *lr);
/* "# Palmed model: PATH (N resources, M forms)": the header line. */
void lift_report_header(FILE *out, const struct lift_report *lr);
/* "cycles [x] :: measured [x] :: bound [x] :: IPC [x] :: bottleneck [R] ::
 * covered [x%]" (predicted and native cycles when known, then the
 * resource bound and what it is made of); without a model "measured [x]"
 * or "-"; for a struct report_extra (ilp/report.h); ctx is the
 * lift_report. */
void lift_report_columns(void *lr, uint64_t entry, int whole_run, char *buf, size_t size);

/* The top blocks by resource-bound cycles (by dynamic instructions
 * without a model). */
void lift_report_blocks(FILE *out, const struct lift_report *lr, const struct insn_namer *namer,
			size_t top);

/* The "palmed" member of a function (entry) or of the whole run
 * (whole_run), and the document's root "palmed" object. */
struct json_object *lift_report_json_figures(const struct lift_report *lr, uint64_t entry,
					     int whole_run);
struct json_object *lift_report_json_root(const struct lift_report *lr,
					  const struct insn_namer *namer, size_t top);
/* The "cycles" and "l1_miss_rate" members of a function or of the whole
 * run (palmed/cycles_report.h), for json_report_extra's add_members. */
void lift_report_json_members(void *lr, struct json_object *j, uint64_t entry, int whole_run);

#endif
