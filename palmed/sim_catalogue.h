/* A simulated machine the size of a CPU's catalogue: a Zen-like port
 * layout, a core of hand-written forms that spans most of its ports, and
 * hundreds of generated forms (load-op, multi-µop, 256-bit, microcoded
 * variants, a few on a port no core form saturates alone) for the mapping
 * stage of the inference (palmed/infer_map.h) to be developed and tested
 * against exact answers. */
#ifndef PERPI_SIM_CATALOGUE_H
#define PERPI_SIM_CATALOGUE_H

#include "palmed/sim.h"

/* The machine "catalogue", built on first use (a fixed seed: always the
 * same forms). */
const struct sim_machine *sim_catalogue(void);

#endif
