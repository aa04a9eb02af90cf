/* Helpers shared by the x86 semantics tests: unit names, a default register
 * state, and set comparison of resolved events against hand-written text. */
#ifndef PERPI_X86_TEST_UTIL_H
#define PERPI_X86_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "tracer/x86.h"

/* "rax", "v3.1" (vector 3, part 1), "k2", "fp5" (x87 physical R5), "cf"... */
const char *x86t_unit_name(int unit);
/* Print src/dst/mem of ev on one line each. */
void x86t_print_event(FILE *f, const struct perpi_event *ev);
/* Canonical sorted text of a unit list / memory list, for comparisons. */
void x86t_units_text(const uint8_t *units, int n, char *out, size_t size);
void x86t_mem_text(const struct perpi_event *ev, char *out, size_t size);
/* Canonicalise a hand-written list ("rcx rax" -> "rax rcx"). */
void x86t_canon(const char *in, char *out, size_t size);

#endif
