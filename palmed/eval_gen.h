/* An evaluation generator independent of the training one (palmed/gen*):
 * its own reading of each form's semantics (perpi's x86 layer, the one
 * the tracer uses, on an instance it assembles itself), its own register
 * pools and rotations (each form rotates over the write pool from its own
 * offset, reads rotate too), its own memory patterns (base + index x scale
 * addressing, a stack frame, streams that advance by a cache line), its
 * own immediates, and kernels shaped like compiled loop bodies besides
 * uniform mixes. Its kernels are timed by the same harness (the one part
 * shared: the clock), so a model is checked on code its training
 * generator never produced. docs/MODEL.md, "Evaluation". */
#ifndef PERPI_EVAL_GEN_H
#define PERPI_EVAL_GEN_H

#include <signal.h>
#include <stddef.h>

#include "common/util.h"
#include "palmed/kernel.h"
#include "palmed/model.h"

struct eval_gen;

/* dir: a scratch directory (harness_make_dir), kept by the caller. */
struct eval_gen *eval_gen_new(const char *dir);
void eval_gen_delete(struct eval_gen *g);

/* Learns the semantics of forms (assembling one instance of each and
 * decoding it), and of the indexed twins of those with memory operands
 * (CMP_M8X_GPR8 beside CMP_M8_GPR8: eval_gen_draw addresses a third of its
 * kernels with an index); a form this generator cannot instantiate as
 * itself is refused: eval_gen_refused() then says why. Returns how many
 * it knows, twins included. */
size_t eval_gen_learn(struct eval_gen *g, const char *const *forms, size_t n);
const char *eval_gen_refused(const struct eval_gen *g, const char *form);

/* count kernels over the forms g knows, with seed: half uniform mixes (2-5
 * distinct forms, multiplicities 1-4), half loop-shaped (1-3 loads, 0-2
 * stores, 2-6 operations of one register file, a pointer increment and a
 * compare); none of them one of exclude's measurements. kernels must hold
 * count entries; shapes[i] is "uniform" or "loop". */
void eval_gen_draw(const struct eval_gen *g, unsigned seed, size_t count,
		   const struct model *exclude, struct kernel *kernels, const char **shapes);

/* The loop of kernel k as this generator instantiates it: a function
 * `symbol(turns, read, write)` appended to out (Intel syntax), its body
 * a whole number of copies of k (*copies); the choices (order, registers,
 * memory pattern) follow a seed drawn from k, so k is always the same
 * code. *fills_frame (unless NULL): whether the function fills a stack
 * frame before its loop, inside the timing of each call. Returns 0, or -1
 * with perpi_error() set (a form it does not know, a kernel it cannot keep
 * free of dependencies: flags read and written, implicit registers). */
int eval_gen_kernel(struct eval_gen *g, const struct kernel *k, const char *symbol,
		    struct strbuf *out, unsigned *copies, int *fills_frame);

/* How many passes eval_gen_measure makes over the kernels, the fastest
 * timing of each kept (2 unless set; 0 is taken as 1). */
void eval_gen_set_passes(struct eval_gen *g, unsigned passes);
/* The passes, how many kernels eval_gen_measure timed in more than one,
 * and of those how many ran more than 5% faster in the first pass or in
 * a later one. */
void eval_gen_passes(const struct eval_gen *g, unsigned *passes, size_t *timed,
		     size_t *faster_first, size_t *faster_later);
/* Measures kernels ks[0..n) as instantiated by eval_gen_kernel through the
 * benchmark harness, in passes (the fastest kept: eval_gen_run.c; stop: a
 * flag that ends the campaign between two slices, may be NULL). status[i]
 * 0 with cycles[i] (per iteration of the multiset) set, or -1 with
 * errors[i] malloc'd. */
void eval_gen_measure(struct eval_gen *g, const struct kernel *ks, size_t n, double *cycles,
		      int *status, char **errors, const volatile sig_atomic_t *stop);

/* The function of kernel k as eval_gen_kernel makes it, for llvm-mca
 * (eval_mca_ipc reads the loop of this text) and the cycle model
 * (eval_code_ipc); *copies (if not NULL) as eval_gen_kernel sets it;
 * caller frees. */
char *eval_gen_asm(struct eval_gen *g, const struct kernel *k, unsigned *copies);

#endif
