/* `perpi palmed predict`: a kernel spec, assembly text or hex bytes in,
 * cycles per iteration, IPC, bottleneck resources and uncovered
 * instructions out. */
#ifndef PERPI_PREDICT_H
#define PERPI_PREDICT_H

#include <stdio.h>

#include "palmed/model.h"

/* Whether form is a control transfer (which no benchmark can time). */
int predict_is_control(const struct model *m, const char *form);

/* Prints a prediction the way `perpi palmed predict` shows it. */
void predict_print(const struct model *m, const struct kernel *k, const struct prediction *p,
		   FILE *out);

/* Machine code from hex text ("48 01 d8", "4801d8", "\x48\x01", "0x48,
 * 0x01"); *bytes is malloc'd. Returns 0, or -1 with perpi_error() set. */
int predict_parse_hex(const char *text, unsigned char **bytes, size_t *len);
/* Assembles text (AT&T, or Intel when intel is non-zero) with GNU as. */
int predict_assemble(const char *text, int intel, unsigned char **bytes, size_t *len);
/* The kernel of the forms of the instructions in bytes (every instruction
 * once per occurrence). Returns 0, or -1 when some bytes do not decode. */
int predict_decode(const unsigned char *bytes, size_t len, struct kernel *out);

#endif
