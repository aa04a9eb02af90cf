/* The bytes of a traced program (tracer/x86.h): any 15 bytes decode to an
 * instruction (or "unknown") and resolve, in the register state and
 * extended state given by the rest of the input, without a crash. */
#include <stdint.h>
#include <string.h>

#include "common/util.h"
#include "fuzz/fuzz_util.h"
#include "tracer/x86.h"

static struct x86_decoder *dec;
static struct x86_xstate xs;

static int fetch(void *ctx, struct x86_xstate *out)
{
	*out = xs;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned long n;
	if (size < 1 || size > 15 + sizeof(struct user_regs_struct) + sizeof(xs))
		return 0;
	size_t len = size < 15 ? size : 15;
	struct user_regs_struct regs;
	memset(&regs, 0, sizeof(regs));
	memset(&xs, 0, sizeof(xs));
	size_t rest = size - len;
	memcpy(&regs, data + len, rest < sizeof(regs) ? rest : sizeof(regs));
	if (rest > sizeof(regs))
		memcpy(&xs, data + len + sizeof(regs), rest - sizeof(regs));
	regs.rip = 0x401000;
	if (++n % 50000 == 0) { /* the decoder keeps every instruction's semantics */
		x86_decoder_delete(dec);
		dec = x86_decoder_new();
	}
	struct perpi_insn insn;
	static struct perpi_event ev;
	if (x86_decode(dec, regs.rip, data, len, &insn) == 0) {
		struct x86_state st = {&regs, fetch, NULL};
		x86_resolve(&insn, &st, &ev);
	}
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	dec = x86_decoder_new();
	return 0;
}
