/* Shared by the kernel generator's files (gen_kernel.c, gen_plan.c) only. */
#ifndef PERPI_GEN_PRIVATE_H
#define PERPI_GEN_PRIVATE_H

#include <stdint.h>

#include "palmed/gen.h"

enum { C_GPR, C_VEC, C_K, C_COUNT };

/* Operands of one instance, chosen so that no instruction reads what
 * another wrote (DESIGN.md, "Measuring a kernel"). */
struct pools {
	int read[C_COUNT][32], write[C_COUNT][32];
	unsigned n_read[C_COUNT], n_write[C_COUNT], next_write[C_COUNT];
	unsigned cursor[3]; /* next displacement: reads, stores, non-temporal stores */
	unsigned lap[3];    /* read-modify-writes: times round the half */
	int nt_apart;	    /* non-temporal stores beside plain ones: each their lines */
	int chain[C_COUNT]; /* latency mode: the one register of the chain, or -1 */
	unsigned max_vec;
	int use_zmm, used_k;
};

/* How a term of the kernel is emitted. */
enum term_kind {
	TERM_PLAIN,
	TERM_STACK,  /* push, pop: on a private stack, rebalanced once per body */
	TERM_STRING, /* movs, stos, lods, scas, cmps: rsi/rdi set once per body */
	TERM_REP,    /* the same with a REP prefix: one instruction per body, rcx
		      * iterations, each counted as one instruction (as traces do) */
	TERM_DIVIDE, /* div, idiv: rdx:rax set before each, the divisor is 7 */
};

struct term_plan {
	enum term_kind kind;
	uint32_t zero_before; /* GPRs zeroed (xor r32, r32) before each instance */
	int flag_break;	      /* the flag breaker before each instance */
	int twin;	      /* emitted as its VEX twin */
	unsigned width;	      /* TERM_DIVIDE: operand bytes; TERM_STRING, TERM_REP: element */
};

struct plan {
	struct term_plan *terms; /* per kernel term; owned */
	int breaker;		 /* GPR whose zero idiom breaks flag chains, or -1 */
	int stack, string, divide;
	int pushes, pops; /* bytes pushed and popped per copy of the multiset */
	int legacy_only;  /* the vector forms are all legacy SSE */
	int any_vec;
	uint32_t reserved; /* GPRs no pool may use */
};

/* The plan of kernel k (infos[i] describes k->terms[i]); gi's flags,
 * helpers and twins are filled. Returns 0, or -1 with perpi_error() set.
 * latency: one chain through the form, no helper. */
int gen_plan_make(const struct kernel *k, const struct gen_form_info *const *infos, int latency,
		  struct plan *pl, struct gen_info *gi);
void gen_plan_done(struct plan *pl);

/* Text emitted around the loop for the plan's needs. */
void gen_plan_prologue(const struct plan *pl, const struct pools *po, const char *symbol,
		       struct strbuf *out);
void gen_plan_body_start(const struct kernel *k, const struct plan *pl, unsigned copies,
			 struct strbuf *out);
/* -1 with perpi_error() set if the REP instructions' memory does not fit. */
int gen_plan_check_size(const struct kernel *k, const struct plan *pl, unsigned copies);
void gen_plan_body_end(const struct plan *pl, unsigned copies, struct strbuf *out);
void gen_plan_epilogue(const struct plan *pl, const struct pools *po, const char *symbol,
		       struct strbuf *out);
/* The helpers before one instance of term t. */
void gen_plan_before(const struct plan *pl, size_t t, struct strbuf *out);

extern const char *const gen_gpr64[16];
extern const char *const gen_gpr32[16];

#endif
