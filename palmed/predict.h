/* `perpi palmed predict`: a kernel spec, assembly text or hex bytes in,
 * cycles per iteration, IPC, bottleneck resources and uncovered
 * instructions out. */
#ifndef PERPI_PREDICT_H
#define PERPI_PREDICT_H

#include <stdio.h>

#include "palmed/model.h"

/* Prints a prediction the way `perpi palmed predict` shows it. */
void predict_print(const struct model *m, const struct kernel *k, const struct prediction *p,
		   FILE *out);

int palmed_predict_main(int argc, char **argv);
int palmed_eval_main(int argc, char **argv);

#endif
