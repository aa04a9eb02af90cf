/* Pipedream's code generator: the semantics of each form (which operands
 * it reads and writes, learnt by assembling one instance and decoding it
 * with Zydis) and the loop that runs a kernel with no dependency between
 * its instructions (DESIGN.md, "Measuring a kernel"). */
#ifndef PERPI_GEN_H
#define PERPI_GEN_H

#include <stdint.h>

#include "common/util.h"
#include "palmed/form.h"
#include "palmed/kernel.h"

enum { GEN_READ = 1, GEN_WRITE = 2 };

/* Registers the generated function reserves: r13 counts loop turns, r14
 * points to the read half of the arena, r15 to the write half. */
#define GEN_ARENA_BYTES 32768 /* one L1D: half read, half written */
#define GEN_HALF_BYTES (GEN_ARENA_BYTES / 2)
#define GEN_ARENA_WORD 0x3ff1111111111111ull /* the arena's every 8 bytes */
/* An RMW chain rotating over fewer registers than this is flagged. */
#define GEN_MIN_CHAIN_REGS 8

struct gen_form_info {
	char name[FORM_NAME_MAX];
	struct form form;
	unsigned char access[FORM_MAX_OPERANDS]; /* GEN_READ | GEN_WRITE */
	uint32_t implicit_read, implicit_write;	 /* GPRs by number, rax = bit 0 */
	uint32_t implicit_vec_write;		 /* vector registers written without being named, by
						  * number (pcmpestrm: xmm0) */
	int flags_read, flags_written;
	int evex; /* only encodable with EVEX */
	int vex;  /* VEX, EVEX or XOP encoded, with vector registers */
	int sse;  /* legacy-encoded, with XMM registers (SSE) */
	int twin; /* sse, and its VEX twin assembles: "v" + mnemonic, a destination
		   * that is also read repeated as the first source (addsd x1, x2 ->
		   * vaddsd x1, x1, x2); GEN_TWIN_MERGE: repeated though the decoder
		   * has it written only (sqrtsd, cvtss2sd, roundsd: a scalar result
		   * merged into the register's upper bits, which the VEX form takes
		   * from its first source: sqrtsd x1, x2 -> vsqrtsd x1, x1, x2) */
};
#define GEN_TWIN_MERGE 2
/* The end of the flag of a kernel holding a legacy-SSE form without a
 * twin beside VEX code (gen_plan.c, eval_gen.c; infer_bench.c decides
 * such a remembered refusal again). */
#define GEN_NO_TWIN "beside VEX/EVEX forms, and no VEX form of it"

/* Assemble one instance of each form, decode it and fill infos[i]. A form
 * that does not parse or assemble, or that is unsupported, gets
 * status[i] = -1 and errors[i] a malloc'd message. dir: scratch directory.
 * Returns the number of forms understood. */
size_t gen_probe_forms(const char *const *names, size_t n, const char *dir,
		       struct gen_form_info *infos, int *status, char **errors);

/* The semantics as one line of text, for the database's cache, and back
 * (from_text: 0, or -1 if the text is not of this version's format). */
char *gen_form_info_to_text(const struct gen_form_info *info);
int gen_form_info_from_text(const char *name, const char *text, struct gen_form_info *out);

/* The text of one instance of f with every register and memory operand
 * chosen the simple way (for discovery and probing). */
/* An immediate operand's text, large enough that GNU as picks the encoding
 * the kind names (IMM8...IMM64; ONE is "1"); alone: the instruction's only
 * operand, where IMM16 needs "word ptr" (push). */
const char *gen_immediate_text(enum form_kind k, int alone);

void gen_sample_instance(const struct form *f, struct strbuf *out);

/* GPR names by size (0: 8 bits ... 3: 64 bits) and number, encoding order. */
extern const char *const gen_gpr_names[4][16];

/* A memory operand in the shape of its kind (form.h): index register x,
 * displacement d where the shape has one ([r14 + d] for plain memory). */
void gen_address(struct strbuf *out, enum form_kind k, const char *x, unsigned d);
/* The same with another base register than r14 (a latency chain through
 * LEA's base). */
void gen_address_base(struct strbuf *out, enum form_kind k, const char *base, const char *x,
		      unsigned d);

struct gen_params {
	unsigned unroll_size; /* at least this many instructions in the body */
	int latency;	      /* one chain through the written register instead */
	int avx, avx512;      /* what the CPU can run (register init, 32 vector regs) */
};

struct gen_info {
	unsigned body_insns; /* instructions in the loop body */
	unsigned copies;     /* copies of the multiset in the body */
	int flagged;	     /* a dependency remains, or SSE/AVX transitions (see reason) */
	char reason[96];
	/* Instructions the generator adds to each iteration of the kernel to
	 * break a dependency through an implicit register or the flags (a zero
	 * idiom, XOR_GPR32_SAME) or to give a division safe operands
	 * (MOV_GPR32_IMM32), as a kernel spec ("" if none): the loop times
	 * the kernel and these together. */
	char helpers[96];
	int twins; /* legacy-SSE forms emitted as their VEX twins (the kernel mixes them
		    * with VEX/EVEX forms) */
};

/* Append to out a function `symbol(uint64_t turns, void *read, void *write)`
 * that runs the kernel's unrolled body `turns` times. infos[i] describes
 * k->terms[i]. Returns 0, or -1 with perpi_error() set. */
int gen_kernel(const struct kernel *k, const struct gen_form_info *const *infos,
	       const struct gen_params *p, const char *symbol, struct strbuf *out,
	       struct gen_info *info);

/* The helpers gen_kernel would add to kernel k (gi->helpers; of the
 * flags, only the plan's), from the kernel's plan alone, without its text: what
 * a kernel found in the measurement database needs (a build from a full
 * database spent a tenth of its time writing kernels' text for this).
 * Returns 0, or -1 with perpi_error() set. */
int gen_kernel_helpers(const struct kernel *k, const struct gen_form_info *const *infos,
		       int latency, struct gen_info *gi);

#endif
