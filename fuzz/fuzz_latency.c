/* --latency FILE (palmed/latency.h): a loaded table answers for a few
 * instructions (their forms worked out from their bytes). */
#include <stdint.h>
#include <string.h>

#include "common/util.h"
#include "fuzz/fuzz_util.h"
#include "palmed/latency.h"
#include "tracer/x86.h"

static struct x86_decoder *dec;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct latency_table *t = path ? latency_table_load(path) : NULL;
	if (t) {
		static const uint8_t code[][8] = {
		    {0x48, 0x01, 0xd8},	      /* add rax, rbx */
		    {0xf2, 0x0f, 0x58, 0xc1}, /* addsd xmm0, xmm1 */
		    {0x48, 0x8b, 0x07},	      /* mov rax, [rdi] */
		    {0x06},		      /* not an instruction */
		};
		for (size_t i = 0; i < sizeof(code) / sizeof(code[0]); i++) {
			struct perpi_insn insn;
			if (x86_decode(dec, 0x1000 + 16 * i, code[i], sizeof(code[i]), &insn) < 0)
				continue;
			insn.id = (uint32_t)i;
			latency_table_of(t, &insn);
		}
		latency_table_unlisted(t);
		latency_table_delete(t);
	}
	fuzz_file_done();
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	dec = x86_decoder_new();
	return 0;
}
