/* Latencies per instruction form for the constrained machine (--latency
 * FILE, DESIGN.md "Constrained machines"): a text file of lines
 *     FORM STEPS        e.g. "ADDSD_XMM_XMM 4"
 * with forms named as Palmed names them (palmed/form.h), steps from 1 to
 * 1000, '#' starting a comment. Forms not listed take 1 step, as on the
 * ideal machine. A table plugs into the engine as its latency callback:
 *     opt.latency = latency_table_of; opt.latency_ctx = table;
 * It lives in palmed/ because it knows forms: the engine (ilp/) only
 * calls a per-instruction latency callback. */
#ifndef PERPI_LATENCY_H
#define PERPI_LATENCY_H

#include <stddef.h>

#include "tracer/event.h"

struct latency_table;

/* Read path; NULL with perpi_error() set ("FILE:LINE: why") on failure. The
 * caller frees the table with latency_table_delete, after the engine. */
struct latency_table *latency_table_load(const char *path);
void latency_table_delete(struct latency_table *t);

/* The latency of insn's form (an engine_options.latency callback); the
 * form is worked out once per static instruction (insn->id). */
unsigned latency_table_of(void *table, const struct perpi_insn *insn);

/* Static instructions seen so far whose form is not in the table (or that
 * could not be decoded): they took 1 step. */
size_t latency_table_unlisted(const struct latency_table *t);

#endif
