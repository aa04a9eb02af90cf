/* Lifting a Palmed model to a traced run (DESIGN.md, "Using a model"):
 * each basic block of the run (ilp/blocks.h) becomes the kernel of its
 * instructions' forms, dependencies stripped, as Palmed predicts
 * throughput; the model gives its cycles per occurrence. A function or the
 * whole run is then bounded by
 *     resource-bound cycles = sum over its blocks of occurrences x cycles(block)
 * with IPC = covered instructions / those cycles, and coverage = the share
 * of its dynamic instructions whose form the model maps (the others are
 * left out of the prediction and counted). */
#ifndef PERPI_LIFT_H
#define PERPI_LIFT_H

#include <stddef.h>
#include <stdint.h>

#include "ilp/blocks.h"
#include "palmed/model.h"

struct lift;

/* The figures of one block, function or the whole run. */
struct lift_figures {
	uint64_t insns;	  /* counted dynamic instructions */
	uint64_t control; /* of those, control transfers: no benchmark can time them */
	uint64_t covered; /* of those, whose form the model maps */
	double cycles;	  /* resource-bound cycles */
	long bottleneck;  /* resource bounding the most of the cycles, or -1 */
};

/* The coverage perpi shows: covered / (insns - control), the share of the
 * instructions that could be covered; 1 when there are none. */
double lift_coverage(const struct lift_figures *f);

/* An uncovered form, how many dynamic instructions had it, and why. */
struct lift_uncovered {
	const char *form;   /* NULL: an instruction no decoder names */
	const char *reason; /* static or owned by the model */
	uint64_t count;
};

enum lift_scope { LIFT_RUN, LIFT_FUNCTION, LIFT_BLOCK };
/* The non-control-flow instructions of the run, of the function entered
 * at id, or of block id that the model does not cover, by form, most
 * frequent first; *out is the caller's to free (the strings are not). */
size_t lift_uncovered_forms(const struct lift *l, enum lift_scope scope, uint64_t id,
			    struct lift_uncovered **out);
/* Why the model does not cover form (NULL: undecodable). */
const char *lift_uncovered_reason(const struct model *m, const char *form);

/* A block's prediction, per occurrence. */
struct lift_block {
	double cycles;	       /* max over resources of the block's load; 0: nothing covered */
	size_t nbottlenecks;   /* resources at the maximum (within 0.1%) */
	size_t *bottlenecks;   /* owned */
	char **forms;	       /* per static instruction; NULL: undecodable */
	unsigned char *mapped; /* per static instruction: the model maps its form */
};

/* Predicts every block of b (finished) with m; both must outlive the
 * result. Never fails: what the model does not cover is counted. */
struct lift *lift_new(const struct model *m, const struct blocks *b);
void lift_delete(struct lift *l);

const struct lift_block *lift_block(const struct lift *l, size_t block);
/* The whole run, or the function entered at entry (zeros if unknown). */
void lift_total(const struct lift *l, struct lift_figures *out);
void lift_function(const struct lift *l, uint64_t entry, struct lift_figures *out);
/* One block over the run. */
void lift_block_figures(const struct lift *l, size_t block, struct lift_figures *out);

/* The form of an instruction from its bytes (Capstone, else Zydis), as
 * form_print writes it, into buf (FORM_NAME_MAX bytes); -1 with
 * perpi_error() if neither decoder can. */
int lift_insn_form(const uint8_t *bytes, size_t len, uint64_t addr, char *buf, size_t size);

/* The distinct forms of the instructions a recorded run executed, sorted;
 * for `perpi palmed build --from perpi.data`. *forms and each string are
 * the caller's to free. Returns 0, or -1 with perpi_error(). *undecoded
 * counts static instructions neither decoder could name. */
int lift_trace_forms(const char *path, char ***forms, size_t *n, size_t *undecoded);

#endif
