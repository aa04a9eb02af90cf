/* The model loader (docs/MODEL.md): a loaded model must be usable: shown,
 * drawn, and predicting a kernel of its own forms. */
#include <stdint.h>
#include <stdio.h>

#include "common/util.h"
#include "fuzz/fuzz_util.h"
#include "palmed/model.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct model *m = NULL;
	if (path && model_load(path, &m) == 0) {
		model_show(m, devnull);
		model_write_dot(m, devnull);
		struct kernel k;
		kernel_init(&k);
		for (size_t i = 0; i < m->nforms && i < 8; i++)
			kernel_add(&k, m->forms[i], (unsigned)(i + 1));
		kernel_add(&k, "NOT_A_FORM_OF_IT", 1);
		struct prediction p;
		if (model_predict(m, &k, &p) == 0)
			prediction_done(&p);
		kernel_done(&k);
		model_check_cpu(m);
		model_delete(m);
	}
	fuzz_file_done();
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	devnull = fopen("/dev/null", "w");
	return 0;
}
