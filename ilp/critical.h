/* The critical path (DESIGN.md): a longest dependency chain, followed back
 * from an instruction at the last step through, at each step c, a producer
 * at step c-1, shown instruction by instruction with function and source
 * line, and summed up per source line. Keeps 32 bytes per dynamic
 * instruction: the chain can only be known once the run is over. */
#ifndef PERPI_CRITICAL_H
#define PERPI_CRITICAL_H

#include <stdint.h>
#include <stdio.h>

#include "ilp/engine.h"
#include "ilp/filter.h"

struct critical;

struct critical *critical_new(void);
void critical_delete(struct critical *crit);

/* An engine_observer_fn; wants dependencies. */
void critical_observe(void *crit, const struct engine_step_info *info);

/* One instruction of the chain, first step first. */
struct critical_link {
	uint64_t index, step;
	const struct perpi_insn *insn;
	int has_dep;	       /* carried by a data dependency from the previous link */
	struct engine_dep dep; /* what it carried */
};

/* The chain ending at the latest step observed; *out owned by the caller
 * (free()). 0 links when nothing was observed. */
size_t critical_path(const struct critical *crit, struct critical_link **out);

/* The chain as a table, then the per-source-line summary. */
void critical_write_text(FILE *out, const struct critical_link *links, size_t n,
			 const struct insn_namer *namer);

#endif
