/* A kernel: a multiset of instruction forms, written "ADDSD_XMM_XMM^2
 * IMUL_GPR64_GPR64 MOV_GPR64_M64^3". Shared by the benchmark runner
 * (Pipedream) and the model (Palmed). */
#ifndef PERPI_KERNEL_H
#define PERPI_KERNEL_H

#include <stddef.h>

struct kernel_term {
	char *form;      /* owned; an instruction form name such as ADD_GPR64_IMM8 */
	unsigned count;  /* multiplicity, >= 1 */
};

/* Canonical: terms sorted by form name, each form once. */
struct kernel {
	size_t n;
	struct kernel_term *terms; /* owned */
};

/* Parse a kernel spec; forms may repeat ("A A" is "A^2"). The result is
 * canonical. Returns 0, or -1 with perpi_error() set. */
int kernel_parse(const char *spec, struct kernel *out);

/* Add count instances of form (copied), keeping the kernel canonical. */
void kernel_add(struct kernel *k, const char *form, unsigned count);

/* out (initialised here) becomes k with the forms of spec added (spec
 * NULL or not a kernel: k alone): a kernel as it ran beside helpers. */
void kernel_with(const struct kernel *k, const char *spec, struct kernel *out);

/* The canonical spec, "A^2 B C^3"; the caller frees it. */
char *kernel_to_string(const struct kernel *k);

/* How many instances of form k holds (0: none). */
unsigned kernel_count(const struct kernel *k, const char *form);

/* Total number of instructions, sum of counts. */
unsigned kernel_size(const struct kernel *k);
/* form_stores_in_turn over the kernel's forms (palmed/form.h). */
int kernel_stores_in_turn(const struct kernel *k);

void kernel_init(struct kernel *k);
void kernel_done(struct kernel *k);

#endif
