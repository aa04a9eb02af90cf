/* REP string instructions timed at two lengths: the runner times a lone
 * REP form with as many iterations a loop turn as its body would hold
 * instructions (STRINGS_SHORT), and the model's cycles alone for it are
 * an iteration's there, the start spread over them. One execution of n
 * iterations takes start + n x iteration: a second length gives both. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/form.h"
#include "palmed/infer_map_private.h"

/* The runner's body (256 instructions, gen.h): a lone REP form runs that
 * many iterations a loop turn, and a kernel of at least that many
 * iterations runs them all in one execution. */
#define STRINGS_SHORT 256
/* The longer length, in bytes at most (the runner's string arena holds
 * 4 KiB a side: gen_plan.c) and in iterations. */
#define STRINGS_BYTES 4096
#define STRINGS_LONG 1024

int map_strings(struct mapping *mp)
{
	size_t n = 0, *forms = xmalloc((mp->nt + 1) * sizeof(size_t));
	for (size_t t = 0; t < mp->nt; t++) {
		long i = model_form_index(mp->m, mp->t[t].name);
		if (i >= 0 && !strncmp(mp->t[t].name, "REP", 3) && !mp->t[t].helpers)
			forms[n++] = (size_t)i;
	}
	struct batch b;
	map_batch_init(&b, 2 * n);
	unsigned *longer = xmalloc((n + 1) * sizeof(unsigned));
	for (size_t k = 0; k < n; k++) {
		const char *name = mp->m->forms[forms[k]];
		struct form f;
		unsigned bytes = form_parse(name, &f) == 0 ? form_string_bytes(&f) : 0,
			 fit = STRINGS_BYTES / (bytes ? bytes : 1);
		longer[k] = fit < STRINGS_LONG ? fit : STRINGS_LONG;
		kernel_add(&b.ks[2 * k], name, STRINGS_SHORT);
		kernel_add(&b.ks[2 * k + 1], name, longer[k]);
	}
	int rc = 0;
	if (n) {
		infer_meter_label(mp->mt, "mapping: %zu REP forms at two lengths", n);
		rc = map_measure(mp, b.ks, b.n, b.cycles, b.status, b.errors);
	}
	for (size_t k = 0; k < n && rc == 0; k++) {
		if (b.status[2 * k] || b.status[2 * k + 1])
			continue;
		double per = (b.cycles[2 * k + 1] - b.cycles[2 * k]) / (longer[k] - STRINGS_SHORT),
		       start = b.cycles[2 * k] - STRINGS_SHORT * per;
		if (per > 0 && start > 0) {
			model_set_string(mp->m, mp->m->forms[forms[k]], start, per);
			mp->stats->strings++;
		}
	}
	mp->stats->string_pairs += (unsigned)n;
	map_batch_done(&b);
	free(longer);
	free(forms);
	return rc;
}
