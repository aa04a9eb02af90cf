/* The PerPI text report: one line per called function, sorted by I,
 *     NAME :: I [n] :: C [n] :: ILP [x.xx] (N calls)
 * then the whole run, the per-class instruction counts, the syscalls and a
 * warning when instructions could not be decoded. */
#ifndef PERPI_REPORT_H
#define PERPI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "ilp/engine.h"

/* The name of the function entered at addr (e.g. "main", "strlen@libc.so.6"),
 * or NULL when unknown (the report prints 0xADDR). The string need only stay
 * valid until the next call. */
typedef const char *(*report_name_fn)(void *ctx, uint64_t addr);

/* Print engine's figures to out; name may be NULL. Call engine_finish first
 * so that open instances are counted. Returns 0, or -1 with perpi_error()
 * set when writing fails. */
int report_text(FILE *out, const struct engine *engine, report_name_fn name, void *ctx);

/* Extra columns appended to each line (the Palmed resource bound,
 * palmed/lift_report.h): writes them into buf for the function entered at
 * entry, or for the whole run when whole_run is set. */
struct report_extra {
	void (*columns)(void *ctx, uint64_t entry, int whole_run, char *buf, size_t size);
	void *ctx;
};
/* report_text with extra columns; extra may be NULL. */
int report_text_extra(FILE *out, const struct engine *engine, report_name_fn name, void *ctx,
		      const struct report_extra *extra);

/* The class names of the histogram, "load" ... "other", by enum perpi_class. */
const char *report_class_name(unsigned klass);

#endif
