#include "palmed/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/form.h"
#include "palmed/lift.h"

int predict_is_control(const struct model *m, const char *form)
{
	return strstr(lift_uncovered_reason(m, form), "control flow") != NULL;
}

void predict_print(const struct model *m, const struct kernel *k, const struct prediction *p,
		   FILE *out)
{
	char *spec = kernel_to_string(k);
	unsigned control = 0;
	for (size_t u = 0; u < p->nuncovered; u++)
		if (predict_is_control(m, p->uncovered[u]))
			control += kernel_count(k, p->uncovered[u]);
	fprintf(out, "kernel:      %s\n", spec);
	fprintf(out, "cycles/iter: %.3f\n", p->cycles);
	fprintf(out,
		"IPC:         %.3f (%u of the %u instructions that are not control transfers "
		"covered; %u control transfer%s)\n",
		p->ipc, p->covered, p->total - control, control, control == 1 ? "" : "s");
	if (p->ncore_cycles > 1) {
		fprintf(out, "cores:       the mean of %zu cores' cycles:", p->ncore_cycles);
		for (size_t c = 0; c < p->ncore_cycles; c++)
			fprintf(out, "%s %.3f", c ? "," : "", p->core_cycles[c]);
		fprintf(out, " (the bottleneck below is the first's)\n");
	}
	if (p->store_turn)
		fprintf(out,
			"bottleneck:  stores to other cache lines in turn (%.2f cycles a store "
			"to another line than the store before, past its half cycle; %.2f a "
			"plain store beside read-modify-writes)\n",
			m->store_turn, fmax(m->store_turn, m->rmw_turn));
	for (size_t b = 0; b < p->nbottlenecks; b++) {
		size_t r = p->bottlenecks[b];
		fprintf(out, "%s %s:", b ? "            " : "bottleneck: ", m->res[r].name);
		/* by the kernel's forms (an indexed one the model lacks as
		 * the unindexed form it is predicted with: model_form_lookup) */
		for (size_t t = 0, shown = 0; t < k->n; t++) {
			long i = model_form_lookup(m, k->terms[t].form);
			if (i < 0 || model_rho(m, (size_t)i, r) <= 0)
				continue;
			fprintf(out, "%s %s", shown++ ? "," : "", k->terms[t].form);
			if (strcmp(k->terms[t].form, m->forms[i]))
				fprintf(out, " (as %s)", m->forms[i]);
			fprintf(out, " %u x %.3g", k->terms[t].count, model_rho(m, (size_t)i, r));
		}
		fprintf(out, "\n");
	}
	for (size_t u = 0; u < p->nuncovered; u++)
		fprintf(out, "%s %s x%u: %s\n",
			u ? "            " : "uncovered:  ", p->uncovered[u],
			kernel_count(k, p->uncovered[u]), lift_uncovered_reason(m, p->uncovered[u]));
	free(spec);
}
