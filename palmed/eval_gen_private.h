/* What the parts of the independent generator share (eval_gen_sem.c: the
 * semantics of forms; eval_gen.c: drawing and instantiating kernels;
 * eval_gen_run.c: timing them). Not for use outside palmed/eval_gen*.c. */
#ifndef PERPI_EVAL_GEN_PRIVATE_H
#define PERPI_EVAL_GEN_PRIVATE_H

#include <stdint.h>

#include "palmed/eval_gen.h"
#include "palmed/form.h"

enum { EG_READ = 1, EG_WRITE = 2 };

/* What this generator learnt of a form from an instance it assembled and
 * perpi's x86 layer decoded. */
struct eg_form {
	char *name;
	struct form form;
	unsigned char access[FORM_MAX_OPERANDS]; /* EG_READ | EG_WRITE per operand */
	uint32_t implicit_read, implicit_write;	 /* GPRs by number, rax = bit 0 */
	int flags_read, flags_written;
	int high_vectors; /* also assembles as itself with xmm16-31 */
	int learnt;	  /* its instance was assembled and decoded */
	char *refused;	  /* why it cannot be used, or NULL */
};

struct eval_gen {
	char *dir; /* scratch, the caller's */
	unsigned stem;
	struct eg_form *f; /* sorted by name */
	size_t n;
	int avx, avx512;
	struct harness_worker *worker;
};

/* The form's entry, or NULL. */
const struct eg_form *eg_find(const struct eval_gen *g, const char *name);

/* An operand's text in an instance: register numbers are encodings
 * (rax = 0; xmm n = n). */
void eg_register(struct strbuf *out, enum form_kind k, int reg);
const char *eg_immediate(enum form_kind k);
/* An address of LEA's shape k (form.h) from base and index registers and
 * a displacement (not 0), into out; 0 for another kind (nothing added). */
int eg_address(struct strbuf *out, enum form_kind k, const char *base, const char *index,
	       unsigned disp);
const char *eg_memory_keyword(enum form_kind k);
int eg_class(enum form_kind k); /* 0 GPR, 1 vector, 2 mask, -1 other */

#endif
