/* For the generated-code tests: assemble the loop body of a kernel's
 * generated function with GNU as and objcopy, outside perpi. */
#ifndef PERPI_TEST_BODY_UTIL_H
#define PERPI_TEST_BODY_UTIL_H

#include <stddef.h>

/* The machine code between the loop label and "dec r13"; malloc'd, NULL
 * if it does not assemble. dir: a scratch directory. */
unsigned char *pd_assemble_body(const char *text, const char *dir, size_t *len);

#endif
