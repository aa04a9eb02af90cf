#include "palmed/predict.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

static unsigned term_count(const struct kernel *k, const char *form)
{
	for (size_t t = 0; t < k->n; t++)
		if (!strcmp(k->terms[t].form, form))
			return k->terms[t].count;
	return 0;
}

void predict_print(const struct model *m, const struct kernel *k, const struct prediction *p,
		   FILE *out)
{
	char *spec = kernel_to_string(k);
	fprintf(out, "kernel:      %s\n", spec);
	fprintf(out, "cycles/iter: %.3f\n", p->cycles);
	fprintf(out, "IPC:         %.3f (%u of %u instructions covered)\n", p->ipc, p->covered,
		p->total);
	for (size_t b = 0; b < p->nbottlenecks; b++) {
		size_t r = p->bottlenecks[b];
		fprintf(out, "%s %s:", b ? "            " : "bottleneck: ", m->res[r].name);
		for (size_t i = 0, shown = 0; i < m->nforms; i++) {
			unsigned c = term_count(k, m->forms[i]);
			if (c && model_rho(m, i, r) > 0)
				fprintf(out, "%s %s %u x %.3g", shown++ ? "," : "", m->forms[i], c,
					model_rho(m, i, r));
		}
		fprintf(out, "\n");
	}
	for (size_t u = 0; u < p->nuncovered; u++) {
		const char *why = model_unmapped_reason(m, p->uncovered[u]);
		fprintf(out, "%s %s x%u: %s\n", u ? "            " : "uncovered:  ", p->uncovered[u],
			term_count(k, p->uncovered[u]), why ? why : "not in the model");
	}
	free(spec);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: perpi palmed predict [-m MODEL] KERNEL-SPEC...\n"
		     "  KERNEL-SPEC: forms with multiplicities, e.g. 'ADD_GPR64_GPR64^2 "
		     "MULSD_XMM_XMM'\n"
		     "  -m MODEL   the model file (default: %s)\n",
		     "$XDG_DATA_HOME/perpi/model.json");
}

int palmed_predict_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"model", required_argument, NULL, 'm'}, {"help", no_argument, NULL, 'h'}, {0}};
	const char *model_path = NULL;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+m:h", longopts, NULL)) != -1) {
		if (c == 'm') {
			model_path = optarg;
		} else {
			usage(c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	struct strbuf spec;
	strbuf_init(&spec);
	for (int i = optind; i < argc; i++)
		strbuf_addf(&spec, "%s%s", i > optind ? " " : "", argv[i]);
	struct kernel k;
	struct model *m = NULL;
	struct prediction p;
	int rc = 1;
	if (kernel_parse(spec.buf ? spec.buf : "", &k) < 0) {
		fprintf(stderr, "perpi: palmed predict: %s\n", perpi_error());
	} else {
		if (model_load_for_use(model_path, &m) < 0 || model_predict(m, &k, &p) < 0) {
			fprintf(stderr, "perpi: palmed predict: %s\n", perpi_error());
		} else {
			predict_print(m, &k, &p, stdout);
			prediction_done(&p);
			rc = 0;
		}
		kernel_done(&k);
	}
	model_delete(m);
	strbuf_done(&spec);
	return rc;
}
