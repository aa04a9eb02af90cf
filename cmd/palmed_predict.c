/* `perpi palmed predict`: a kernel spec, assembly text or hex bytes in,
 * the model's prediction out (palmed/predict.h prints it). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/palmed.h"
#include "common/util.h"
#include "palmed/predict.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: perpi palmed predict [-m MODEL] KERNEL-SPEC...\n"
	    "       perpi palmed predict [-m MODEL] --asm FILE [--intel]\n"
	    "       perpi palmed predict [-m MODEL] --hex BYTES\n"
	    "  KERNEL-SPEC   forms with multiplicities, e.g. 'ADD_GPR64_GPR64^2 MULSD_XMM_XMM'\n"
	    "  --asm FILE    a block in assembly ('-': stdin), AT&T syntax unless --intel\n"
	    "  --hex BYTES   a block of machine code, e.g. '48 01 d8 f2 0f 59 c1' ('-': stdin)\n"
	    "  -m MODEL      the model file (default: $XDG_DATA_HOME/perpi/model.json)\n");
}

static char *read_stream(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct strbuf sb;
	char buf[4096];
	size_t n;
	if (!f) {
		perpi_set_error("cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	strbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	if (f != stdin)
		fclose(f);
	return sb.buf ? sb.buf : xstrdup("");
}

struct predict_args {
	const char *model, *asm_file, *hex;
	int intel;
};

/* The block to predict, from whichever input was given. */
static int read_block(const struct predict_args *a, int argc, char **argv, struct kernel *k)
{
	unsigned char *bytes = NULL;
	size_t len = 0;
	int rc;
	if (a->asm_file || a->hex) {
		char *text = read_stream(a->asm_file ? a->asm_file : a->hex);
		if (a->hex && strcmp(a->hex, "-")) {
			free(text);
			text = xstrdup(a->hex);
		}
		if (!text)
			return -1;
		rc = a->asm_file ? predict_assemble(text, a->intel, &bytes, &len)
				 : predict_parse_hex(text, &bytes, &len);
		free(text);
		if (rc == 0)
			rc = predict_decode(bytes, len, k);
		free(bytes);
		return rc;
	}
	struct strbuf spec;
	strbuf_init(&spec);
	for (int i = optind; i < argc; i++)
		strbuf_addf(&spec, "%s%s", i > optind ? " " : "", argv[i]);
	rc = kernel_parse(spec.buf ? spec.buf : "", k);
	strbuf_done(&spec);
	return rc;
}

/* Edit distance, for suggesting a form the user may have meant. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row = xmalloc((lb + 1) * sizeof(size_t));
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			best = up + 1 < best ? up + 1 : best;
			best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
			diag = up;
			row[j] = best;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

/* A kernel spec naming a form the model has never heard of (neither
 * mapped nor unmapped) is a mistake: an error naming it, and the nearest
 * form the model maps. */
static int check_names(const struct model *m, const struct kernel *k)
{
	for (size_t t = 0; t < k->n; t++) {
		const char *f = k->terms[t].form;
		if (model_form_lookup(m, f) >= 0 || model_unmapped_reason(m, f))
			continue;
		size_t best = (size_t)-1, at = 0;
		for (size_t i = 0; i < m->nforms; i++) {
			size_t d = distance(f, m->forms[i]);
			if (d < best)
				best = d, at = i;
		}
		return perpi_set_error("unknown form '%s': the model neither maps it nor lists it "
				       "as unmapped%s%s%s",
				       f, best <= 3 ? " (did you mean " : "",
				       best <= 3 ? m->forms[at] : "", best <= 3 ? "?)" : "");
	}
	return 0;
}

int palmed_predict_main(int argc, char **argv)
{
	static const struct option longopts[] = {{"model", required_argument, NULL, 'm'},
						 {"asm", required_argument, NULL, 'a'},
						 {"intel", no_argument, NULL, 'i'},
						 {"att", no_argument, NULL, 't'},
						 {"hex", required_argument, NULL, 'x'},
						 {"help", no_argument, NULL, 'h'},
						 {0}};
	struct predict_args a = {0};
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+m:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			a.model = optarg;
			break;
		case 'a':
			a.asm_file = optarg;
			break;
		case 'i':
			a.intel = 1;
			break;
		case 't':
			a.intel = 0;
			break;
		case 'x':
			a.hex = optarg;
			break;
		default:
			usage(c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if ((a.asm_file || a.hex) && (optind < argc || (a.asm_file && a.hex))) {
		fprintf(stderr, "perpi: palmed predict: give one block: a kernel spec, --asm or "
				"--hex\n");
		return 2;
	}
	struct kernel k;
	struct model *m = NULL;
	struct prediction p;
	int rc = 1;
	if (read_block(&a, argc, argv, &k) < 0) {
		fprintf(stderr, "perpi: palmed predict: %s\n", perpi_error());
		return 1;
	}
	int spec = !a.asm_file && !a.hex;
	if (model_load_for_use(a.model, &m) < 0 || (spec && check_names(m, &k) < 0) ||
	    model_predict(m, &k, &p) < 0) {
		fprintf(stderr, "perpi: palmed predict: %s\n", perpi_error());
	} else {
		predict_print(m, &k, &p, stdout);
		prediction_done(&p);
		rc = 0;
	}
	kernel_done(&k);
	model_delete(m);
	return rc;
}
