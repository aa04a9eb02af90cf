/* Helpers shared by the fuzz targets (fuzz/README.md). */
#ifndef PERPI_FUZZ_UTIL_H
#define PERPI_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The input as a file the parser can open by name: "/proc/self/fd/N" of an
 * in-memory file (memfd), valid until fuzz_file_done. NULL if it fails. */
const char *fuzz_file(const uint8_t *data, size_t size);
void fuzz_file_done(void);

/* The input as a NUL-terminated string (owned by the caller: free()). */
char *fuzz_string(const uint8_t *data, size_t size);

/* Silences perpi_warn for the whole run (warnings are not findings). */
void fuzz_quiet(void);

#endif
