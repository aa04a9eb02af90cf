/* The instruction forms a recorded run executed, with their dynamic
 * counts: what a model must cover for that run (`perpi forms trace`). */
#ifndef PERPI_FORM_TRACE_H
#define PERPI_FORM_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct form_use {
	char *form;	    /* owned; "(undecoded)" for bytes no decoder names */
	uint64_t count;	    /* dynamic instructions */
	int control;	    /* a control transfer (jmp, jcc, call, ret, syscall) */
	const char *reason; /* why the runner cannot measure it (static), or NULL */
};

struct form_uses {
	struct form_use *v; /* owned, most executed first after form_uses_sort */
	size_t n, cap;
	uint64_t total; /* dynamic instructions counted (syscalls are not) */
};

/* Add the counts of the run recorded in path. Returns 0, or -1 with
 * perpi_error() set (unreadable or corrupt trace). */
int form_uses_add_trace(struct form_uses *u, const char *path);
void form_uses_sort(struct form_uses *u);
void form_uses_done(struct form_uses *u);

#endif
