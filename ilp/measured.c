/* Native cycles as perpi measure found them (ilp/measured.h). */
#include "ilp/measured.h"

#include <stdlib.h>
#include <string.h>

void measured_free(struct measured *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_figures; i++)
		free(m->figures[i].name);
	free(m->figures);
	free(m);
}

const struct measured_figure *measured_find(const struct measured *m, const char *name)
{
	for (size_t i = 0; m && i < m->n_figures; i++)
		if (!strcmp(m->figures[i].name, name))
			return &m->figures[i];
	return NULL;
}

const struct measured_figure *measured_region(const struct measured *m)
{
	for (size_t i = 0; m && i < m->n_figures; i++)
		if (m->figures[i].is_region)
			return &m->figures[i];
	return NULL;
}

const char *measured_clock_name(int clock)
{
	return clock == MEASURED_CLOCK_CYCLES ? "cycles" : "tsc";
}

const char *measured_method_name(int method)
{
	return method == MEASURED_BREAKPOINT ? "breakpoint" : "jump";
}
