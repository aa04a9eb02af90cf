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
	/* push/pop (rsp moved by the stack engine, no chain): the bytes an
	 * instance moves rsp by, negative for a push; 0 for other forms */
	int stack;
	int high_vectors; /* also assembles as itself with xmm16-31 */
	int learnt;	  /* its instance was assembled and decoded */
	char *refused;	  /* why it cannot be used, or NULL */
	/* Legacy SSE (XMM operands, no VEX): beside VEX or EVEX vector code it
	 * is written as its VEX twin ("v" + mnemonic), as a compiler targeting
	 * AVX writes it (mixed, Intel cores pay state transitions: 60 cycles
	 * an iteration on an Intel family 6 model 207). twin: 0 none assembles as such, else
	 * EG_TWIN_SAME (the same operands: pshufd -> vpshufd) or EG_TWIN_DEST
	 * (the destination repeated as the first source: addsd x1, x2 ->
	 * vaddsd x1, x1, x2, also where the decoder has it written only but
	 * the instruction keeps its upper lanes: cvtsi2sd, sqrtsd). */
	int sse, vex; /* vex: VEX, EVEX (or XOP) with vector registers */
	int twin, twin_learnt;
};
enum { EG_TWIN_SAME = 1, EG_TWIN_DEST = 2 };

/* An instance's text ("\tmnemonic op0, op1...\n") as its VEX twin
 * (mode: EG_TWIN_SAME or EG_TWIN_DEST), appended to out. */
void eg_twin_text(struct strbuf *out, const char *text, int mode);

struct eval_gen {
	char *dir; /* scratch, the caller's */
	unsigned stem;
	struct eg_form *f; /* sorted by name */
	size_t n;
	int avx, avx512;
	struct harness_worker *worker;
	/* The passes (eval_gen_run.c; 2 unless set): kernels measured in
	 * more than one, and of those the ones more than 5% faster in the
	 * first or in a later one. */
	unsigned passes;
	size_t timed, faster_first, faster_later;
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

/* The cycles of a kernel of insns instructions from its repetitions
 * (eval_gen_run.c): as the training measurements take them (the faster
 * mode of two), 0; -1 with the reason in *error (malloc'd): the run
 * failed, fewer than 3 clean repetitions, or the kept ones spread by more
 * than bench_max_spread (palmed/bench_stats.h). */
struct harness_output;
int eg_summarise(const struct harness_output *o, unsigned insns, double *cycles, char **error);

#endif
