/* The MEAS chunk of perpi.data (perpi.data(5)): the native figures of
 * perpi record --measure. Internal to the trace file (ilp/trace_file*). */
#ifndef PERPI_TRACE_MEASURED_H
#define PERPI_TRACE_MEASURED_H

#include <stdint.h>

struct measured;
struct strbuf;

/* Appends m's payload to sb. */
void trace_measured_encode(struct strbuf *sb, const struct measured *m);
/* The summary of the payload [p, end) (the caller's to free), or NULL
 * with *why set to what is wrong with it. */
struct measured *trace_measured_decode(const uint8_t *p, const uint8_t *end, const char **why);

#endif
