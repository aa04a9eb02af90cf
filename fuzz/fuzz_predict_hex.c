/* perpi palmed predict --hex: hex text to bytes to instruction forms. */
#include <stdint.h>
#include <stdlib.h>

#include "common/util.h"
#include "fuzz/fuzz_util.h"
#include "palmed/kernel.h"
#include "palmed/predict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	unsigned char *bytes;
	size_t len;
	if (predict_parse_hex(text, &bytes, &len) == 0) {
		struct kernel k;
		if (predict_decode(bytes, len, &k) == 0)
			kernel_done(&k);
		free(bytes);
	}
	free(text);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}
