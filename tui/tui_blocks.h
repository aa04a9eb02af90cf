/* The model's basic blocks (model.h declares struct tui_block). */
#ifndef PERPI_TUI_BLOCKS_H
#define PERPI_TUI_BLOCKS_H

#include "tui/tui_model.h"

/* The blocks of a model whose instructions and producers are complete,
 * most executed instructions first; malloc'd, *n_blocks of them. */
struct tui_block *tui_model_blocks_compute(const struct tui_model *model, size_t *n_blocks);

#endif
