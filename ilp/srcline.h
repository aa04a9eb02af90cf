/* Source lines of a program's functions from its DWARF line table
 * (elfutils' libdw, when perpi was built with it: HAVE_LIBDW). Addresses
 * are given as function name + offset, so that no load bias is needed:
 * the trace writer gets them that way from the tracer's symbols. */
#ifndef PERPI_SRCLINE_H
#define PERPI_SRCLINE_H

#include <stdint.h>

struct srcline;

/* Reads path's symbols and line table. NULL with perpi_error() set when
 * the file has no line information or perpi was built without libdw. */
struct srcline *srcline_open(const char *path);
void srcline_close(struct srcline *s);

/* The source file and line of function+offset. -1 when unknown. file stays
 * valid until srcline_close. */
int srcline_lookup(struct srcline *s, const char *function, uint64_t offset, const char **file,
		   unsigned *line);

#endif
