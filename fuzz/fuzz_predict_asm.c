/* perpi palmed predict --asm: assembly text (Intel syntax if the first byte
 * is even, AT&T if odd) through GNU as, then to instruction forms. Slow:
 * each input runs the assembler. */
#include <stdint.h>
#include <stdlib.h>

#include "common/util.h"
#include "fuzz/fuzz_util.h"
#include "palmed/kernel.h"
#include "palmed/predict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = fuzz_string(data + 1, size - 1);
	unsigned char *bytes;
	size_t len;
	if (predict_assemble(text, !(data[0] & 1), &bytes, &len) == 0) {
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
