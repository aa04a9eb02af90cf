/* perpi report --json: the report as a JSON document written with json-c.
 * The schema is documented in perpi-report(1). */
#ifndef PERPI_JSON_REPORT_H
#define PERPI_JSON_REPORT_H

#include <stdio.h>

#include "ilp/filter.h"
#include "ilp/report.h"

#define JSON_REPORT_SCHEMA 1

/* Writes the document for res (obtained with options o) to out; the
 * functions named by name (NULL or a NULL name: "0xADDR"). o->input NULL
 * (a live run): "file" is null. 0, or -1 with perpi_error(). */
int json_report_write(FILE *out, const struct filter_options *o, const struct filter_result *res,
		      report_name_fn name, void *name_ctx);

/* Members added by other analyses (the Palmed bound and the predicted
 * cycles, palmed/lift_report.h): function() gives the "palmed" member of
 * the function entered at entry, or of "totals" when whole_run is set;
 * root() the document's "palmed" member. Either may return NULL (no
 * member). add_members(), if not NULL, adds members of its own to the
 * same objects ("cycles", "l1_miss_rate"). */
struct json_object;
struct json_report_extra {
	struct json_object *(*function)(void *ctx, uint64_t entry, int whole_run);
	struct json_object *(*root)(void *ctx);
	void *ctx;
	void (*add_members)(void *ctx, struct json_object *j, uint64_t entry, int whole_run);
	void *members_ctx;
};
int json_report_write_extra(FILE *out, const struct filter_options *o,
			    const struct filter_result *res, report_name_fn name, void *name_ctx,
			    const struct json_report_extra *extra);

#endif
