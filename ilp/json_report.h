/* perpi report --json: the report as a JSON document written with json-c.
 * The schema is documented in perpi-report(1). */
#ifndef PERPI_JSON_REPORT_H
#define PERPI_JSON_REPORT_H

#include <stdio.h>

#include "ilp/filter.h"

#define JSON_REPORT_SCHEMA 1

/* Writes the document for res (obtained with options o) to out; names
 * through namer and reader. 0, or -1 with perpi_error(). */
int json_report_write(FILE *out, const struct filter_options *o, const struct filter_result *res,
		      struct trace_reader *reader);

#endif
