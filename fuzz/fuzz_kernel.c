/* Kernel specs ("ADD_GPR64_GPR64^2 MULSD_XMM_XMM") and form names, as
 * perpi bench, palmed predict and forms check take them, and bench's
 * kernel files (-f FILE: one per line, '#' comments) and counts. A parsed
 * kernel printed back must parse to the same kernel (kernel.h: canonical). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/bench_cli.h"
#include "common/util.h"
#include "fuzz/fuzz_util.h"
#include "palmed/form.h"
#include "palmed/kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	struct kernel k, again;
	struct form f;
	if (form_parse(text, &f) == 0)
		form_unsupported_reason(&f);
	if (kernel_parse(text, &k) == 0) {
		char *s = kernel_to_string(&k);
		if (kernel_parse(s, &again) < 0)
			abort(); /* a canonical kernel printed back does not parse */
		char *s2 = kernel_to_string(&again);
		if (strcmp(s, s2))
			abort(); /* not canonical */
		for (size_t i = 0; i < k.n; i++)
			if (form_parse(k.terms[i].form, &f) == 0)
				form_unsupported_reason(&f);
		free(s);
		free(s2);
		kernel_done(&again);
		kernel_done(&k);
	}
	long count;
	bench_cli_count(text, &count, 1, 1000000);
	const char *path = fuzz_file(data, size);
	struct kernel *ks;
	size_t n;
	if (path && bench_cli_read_kernels(NULL, 0, path, size & 1, &ks, &n) == 0)
		bench_cli_free_kernels(ks, n);
	fuzz_file_done();
	free(text);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}
