/* x86-64 semantics: decoding (Capstone, Zydis where Capstone cannot), the
 * per-mnemonic fix table, and the resolution of one dynamic instruction
 * into the units and memory bytes it reads and writes (DESIGN.md). All of
 * perpi's x86 knowledge lives behind this header. */
#ifndef PERPI_X86_H
#define PERPI_X86_H

#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#include "tracer/event.h"

struct x86_decoder;

struct x86_decoder *x86_decoder_new(void);
void x86_decoder_delete(struct x86_decoder *dec);

/* Decode the instruction at addr from bytes[0..avail) into out (static
 * fields, text, class, control, and out->sem, owned by the decoder and freed
 * with it). An instruction neither decoder knows still fills out, with
 * decoder = DECODER_UNKNOWN and len = 1 if nothing better is known.
 * Returns 0, or -1 with perpi_error() set if avail is too short. */
int x86_decode(struct x86_decoder *dec, uint64_t addr, const uint8_t *bytes, size_t avail,
	       struct perpi_insn *out);

/* Extended state an instruction may need at run time, parsed from the
 * XSAVE area (layout by CPUID leaf 0xD). */
struct x86_xstate {
	uint16_t fsw;          /* x87 status word: TOP in bits 11-13 */
	uint16_t ftw;          /* abridged tag word */
	uint64_t k[8];         /* AVX-512 mask registers */
	uint8_t zmm[32][64];   /* vector registers, all 512 bits */
};
int x86_xstate_parse(const uint8_t *xsave, size_t len, struct x86_xstate *out);

/* What x86_resolve may read of the stopped thread. regs is required; the
 * extended state is fetched only for instructions that need it (x87 TOP,
 * masks, gather indices) through fetch_xstate, which returns 0 or -1. */
struct x86_state {
	const struct user_regs_struct *regs;
	int (*fetch_xstate)(void *ctx, struct x86_xstate *out);
	void *ctx;
	uint64_t xcr0; /* XCR0 as the program sees it (xsave's components); 0: this CPU's */
};

/* What x86_resolve reads of the thread's state for insn, so that a backend
 * that cannot stop the program (Valgrind) hands over exactly these values. */
struct x86_inputs {
	uint16_t gpr;	    /* bit n: GPR n, encoding order; RSP always (event sp) */
	uint16_t vec;	    /* bit n: vector register n, bits 0-255 (gather indices, masks) */
	uint8_t mask_k;	    /* bit n: mask register kn */
	uint8_t fs_base, gs_base;
	uint8_t fpu_top;    /* x87 TOP, from the status word */
	uint8_t rep_string; /* REP string instruction: RCX (ECX if rcx_32) counts iterations */
	uint8_t rcx_32;
};
void x86_inputs(const struct perpi_insn *insn, struct x86_inputs *out);

/* Whether resolving this instruction needs the extended state. */
int x86_needs_xstate(const struct perpi_insn *insn);

/* Fill ev (insn, sp, flags, src, dst, mem) for insn about to execute in
 * state st. Returns 0, or -1 with perpi_error() set. */
int x86_resolve(const struct perpi_insn *insn, const struct x86_state *st,
		struct perpi_event *ev);

/* Where GPR n (encoding order: rax, rcx, rdx, rbx, rsp...) lies in
 * struct user_regs_struct. */
extern const uint16_t x86_gpr_offset[16];

#endif
