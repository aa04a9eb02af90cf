/* The model's basic blocks (model.h declares struct model_block). */
#ifndef PERPI_TUI_MODEL_BLOCKS_H
#define PERPI_TUI_MODEL_BLOCKS_H

#include "tui/model.h"

/* The blocks of a model whose instructions and producers are complete,
 * most executed instructions first; malloc'd, *n_blocks of them. */
struct model_block *model_blocks_compute(const struct model *model, size_t *n_blocks);

#endif
