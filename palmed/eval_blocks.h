/* The held-out kernels of `perpi palmed eval --from perpi.data`: the basic
 * blocks of recorded runs (ilp/blocks.h), dependencies stripped, each
 * weighted by the dynamic instructions it stands for.
 *
 * A block's kernel is the multiset of its instructions' forms
 * (lift_insn_form), each static instruction once, with these rules:
 * - control transfers (jmp, jcc, call, ret, syscall...: the block's last
 *   instruction) are left out: the benchmark loop has its own branch;
 * - an instruction no decoder names, or whose form the reference refuses
 *   to measure alone (eval_blocks_refuse), is left out and counted;
 * - a block with nothing left is skipped (counted);
 * - a block whose kernel is one the model was built from (model->meas) is
 *   not held out: skipped (counted).
 * Blocks with the same kernel are one kernel whose weight is the sum of
 * theirs; a block's weight is the run's dynamic instructions of the
 * instructions its kernel kept (occurrences x kernel size, but for blocks
 * a signal cut short). Every dynamic instruction of the runs falls in
 * exactly one of held_out, control, unrunnable, built. */
#ifndef PERPI_EVAL_BLOCKS_H
#define PERPI_EVAL_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "palmed/kernel.h"
#include "palmed/model.h"

struct eval_blocks_stats {
	size_t runs, blocks; /* recorded runs read, their blocks */
	uint64_t insns;	     /* counted dynamic instructions of the runs */
	uint64_t control;    /* of those, control transfers */
	uint64_t unrunnable; /* unnamed forms, or forms the reference refuses */
	uint64_t built;	     /* in blocks whose kernel the model was built from */
	uint64_t held_out;   /* in the held-out kernels */
	size_t empty_blocks; /* blocks with nothing left */
	size_t built_blocks; /* blocks whose kernel was a build measurement */
	size_t held_out_blocks;
};

struct eval_block_kernel {
	struct kernel kernel; /* owned */
	char *spec;	      /* canonical, owned */
	uint64_t weight;      /* dynamic instructions it stands for */
	size_t blocks;	      /* blocks of that kernel */
};

struct eval_blocks;

struct eval_blocks *eval_blocks_new(void);
void eval_blocks_delete(struct eval_blocks *eb);

/* Reads the blocks of the run recorded at path and adds them. Returns 0,
 * or -1 with perpi_error() (missing, corrupt or empty file). */
int eval_blocks_read(struct eval_blocks *eb, const char *path);

/* The distinct forms named so far (sorted; owned by eb). */
size_t eval_blocks_forms(const struct eval_blocks *eb, const char *const **forms);
/* The reference cannot measure form: leave it out of every kernel. */
void eval_blocks_refuse(struct eval_blocks *eb, const char *form);

/* The held-out kernels by the rules above, sorted by decreasing weight
 * (then spec); *out is the caller's (eval_block_kernels_free). */
size_t eval_blocks_kernels(const struct eval_blocks *eb, const struct model *exclude,
			   struct eval_block_kernel **out, struct eval_blocks_stats *stats);
void eval_block_kernels_free(struct eval_block_kernel *v, size_t n);

#endif
