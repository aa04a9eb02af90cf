/* The data-flow graph (DESIGN.md): a node per counted dynamic instruction
 * at its step, an edge from each source's last writer to the reader,
 * labelled with the register, flag or memory carried; Graphviz dot output
 * with one rank per step. */
#ifndef PERPI_GRAPH_H
#define PERPI_GRAPH_H

#include <stdint.h>
#include <stdio.h>

#include "ilp/engine.h"
#include "ilp/filter.h"

#define GRAPH_DEFAULT_MAX_NODES 5000
/* Longer edges are drawn as a stub naming the producer ("from #12, step 1"). */
#define GRAPH_LONG_EDGE 8

struct graph;

/* Keeps at most max_nodes nodes; counts all. */
struct graph *graph_new(uint64_t max_nodes);
void graph_delete(struct graph *graph);

/* An engine_observer_fn; wants dependencies. */
void graph_observe(void *graph, const struct engine_step_info *info);

uint64_t graph_nodes_seen(const struct graph *graph);

/* Writes the dot file. -1 with perpi_error() when more nodes were seen
 * than kept (the caller narrows the range or raises the limit). */
int graph_write_dot(const struct graph *graph, FILE *out, const struct insn_namer *namer,
		    const char *title);

/* "rax", "ymm3[128:255]", "k1", "R2", "CF", ...: static storage. */
const char *graph_unit_name(unsigned unit);
/* "rax" for a unit, "[0x7ffd10]:8" for memory: static buffer. */
const char *graph_dep_name(const struct engine_dep *dep);

#endif
