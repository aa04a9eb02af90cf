/* perpi's cycle model as a predictor for `perpi palmed eval`: where the
 * "palmed" row is the model's throughput bound for a multiset of forms,
 * this one reads the code the native run times, as llvm-mca does. The
 * loop of the generated kernel is assembled, decoded by the tracer's x86
 * layer, resolved against the registers the function sets before its loop
 * (the read and write arenas, the stack frame, r8 = 8 or 1, the others 1)
 * and replayed turn after turn through palmed/cycles.h, with the Palmed
 * model's resources and the core's parameters (perpi core). So the
 * prediction sees what a bound over forms cannot: the registers a
 * read-modify-write chains through, stores to a new line each, loads that
 * repeat a store's address. The loop's registers do not change between
 * turns (the generator's loops do not advance a pointer), so neither do
 * its addresses. */
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "common/util.h"
#include "palmed/cycles.h"
#include "palmed/eval.h"
#include "palmed/harness.h"
#include "tracer/x86.h"

/* Turns replayed: the cycles of the last TURNS - WARM, the first WARM
 * filling the window and training the branch predictor. */
#define TURNS 30
#define WARM 10
#define ARENA_READ 0x10000000ull
#define ARENA_WRITE 0x20000000ull
#define FRAME 0x30000000ull

/* The loop: from its label to its closing branch, as a block that
 * branches back to its start. NULL if the text has no loop. */
static char *loop_text(const char *text)
{
	const char *start = strstr(text, "_loop:\n"), *end;
	if (!start)
		return NULL;
	start += strlen("_loop:\n");
	end = strstr(start, "\tjnz ");
	if (!end)
		return NULL;
	return xasprintf(".intel_syntax noprefix\n1:\n%.*s\tjnz 1b\n", (int)(end - start), start);
}

static int no_xstate(void *ctx, struct x86_xstate *out)
{
	(void)ctx;
	memset(out, 0, sizeof(*out));
	return 0;
}

/* The registers on entering the loop (eval_gen.c's prologue). */
static void loop_registers(const char *text, struct user_regs_struct *r)
{
	memset(r, 0, sizeof(*r));
	r->rax = r->rbx = r->rcx = r->rdx = r->rbp = 1;
	r->r9 = r->r10 = r->r11 = r->r13 = r->r14 = r->r15 = 1;
	r->r8 = strstr(text, "\tmov r8d, 8\n") ? 8 : 1;
	r->rsi = ARENA_READ;
	r->rdi = ARENA_WRITE;
	r->rsp = FRAME;
	r->r12 = 1u << 30; /* turns left: the loop goes on */
}

/* The end of the last instruction of `turns` turns of insns[0..n). */
static int replay(struct cycles *cy, const struct perpi_insn *insns, size_t n, const char *text,
		  unsigned turns)
{
	struct user_regs_struct regs;
	loop_registers(text, &regs);
	struct x86_state st = {&regs, no_xstate, NULL, 0};
	for (unsigned t = 0; t < turns; t++)
		for (size_t i = 0; i < n; i++) {
			struct perpi_event ev;
			memset(&ev, 0, sizeof(ev));
			regs.rip = insns[i].addr + insns[i].len;
			if (x86_resolve(&insns[i], &st, &ev) < 0)
				return perpi_set_error("cycle model: %s: %s", insns[i].text,
						       perpi_error());
			cycles_event(cy, &ev);
		}
	cycles_finish(cy);
	return 0;
}

/* insns[0..*n) of code, by dec (whose semantics they point to: it must
 * outlive them); the array is sized first (a pass that counts). */
static int decode(struct x86_decoder *dec, const uint8_t *code, size_t len,
		  struct perpi_insn **out, size_t *n)
{
	struct perpi_insn one, *insns = NULL;
	size_t k = 0;
	int rc = 0;
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		if (pass)
			insns = xcalloc(k ? k : 1, sizeof(*insns));
		k = 0;
		for (size_t off = 0; off < len;) {
			struct perpi_insn *in = pass ? &insns[k] : &one;
			memset(in, 0, sizeof(*in));
			if (x86_decode(dec, 0x400000 + off, code + off, len - off, in) < 0 ||
			    !in->len || in->decoder == DECODER_UNKNOWN) {
				rc = perpi_set_error("cycle model: cannot decode the loop at +%zu",
						     off);
				break;
			}
			in->id = (uint32_t)k; /* the cycle model's key for what it knows of it */
			off += in->len;
			k++;
		}
	}
	if (rc < 0) {
		free(insns);
		return -1;
	}
	*out = insns;
	*n = k;
	return 0;
}

int eval_code_ipc(const struct model *m, const struct core *c, const char *dir, const char *text,
		  unsigned copies, unsigned size, double *ipc)
{
	static unsigned stem_n;
	char *loop = loop_text(text), stem[32], *obj;
	uint8_t *code = NULL;
	size_t len = 0, n = 0;
	struct perpi_insn *insns = NULL;
	if (!loop)
		return perpi_set_error("cycle model: no loop in the generated kernel");
	snprintf(stem, sizeof(stem), "cyc%u", stem_n++);
	int rc = harness_assemble(dir, stem, loop, NULL);
	free(loop);
	if (rc == 0) {
		obj = xasprintf("%s/%s.o", dir, stem);
		rc = harness_text_bytes(obj, &code, &len);
		free(obj);
	}
	struct x86_decoder *dec = x86_decoder_new();
	if (rc == 0)
		rc = decode(dec, code, len, &insns, &n);
	double end[2] = {0, 0};
	static const unsigned turns[2] = {WARM, TURNS};
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		struct cycles *cy = cycles_new(m, c);
		struct cycles_figures f;
		rc = replay(cy, insns, n, text, turns[pass]);
		cycles_total(cy, &f);
		end[pass] = f.cycles;
		cycles_delete(cy);
	}
	free(insns);
	x86_decoder_delete(dec);
	free(code);
	if (rc < 0)
		return -1;
	double per_copy = (end[1] - end[0]) / (TURNS - WARM) / (copies ? copies : 1);
	if (!(per_copy > 0))
		return perpi_set_error("cycle model: no cycles for the loop");
	*ipc = size / per_copy;
	return 0;
}
