/* Basic blocks of a real traced run: tests/lift/loop.S (its comment
 * derives the blocks by hand), traced from main by perpi's tracer. Then
 * traced again (the program is built without PIE, so the second run has
 * the same addresses) for the blocks' ILP, each occurrence in isolation:
 *   B0 mov $100, %ecx                  step 1                   -> ILP 1
 *   B1 add %rbx, %rax                  rax, rbx from before: 1
 *      addsd %xmm1, %xmm0              1
 *      addsd %xmm3, %xmm2              1
 *      dec %ecx                        rcx from before: 1
 *      jnz 1b                          ZF of dec: 2             -> 5 / 2 = 2.5
 *   B2 xor %eax, %eax                  zero idiom, no source: 1
 *      ret                             rsp, [rsp] from before: 1 -> 2 / 1 = 2
 * usage: test_traced PROGRAM */
#include <inttypes.h>
#include <stdio.h>

#include "common/util.h"
#include "ilp/blocks.h"
#include "tracer/trace.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_traced PROGRAM\n");
		return 2;
	}
	struct trace_options o;
	struct trace_result res;
	struct blocks *b = blocks_new();
	trace_options_init(&o);
	struct tracer *t = tracer_new(&o, blocks_event, b);
	if (tracer_start(t, argv + 1) < 0 || tracer_run(t, &res) < 0) {
		printf("SKIP: cannot trace %s: %s\n", argv[1], perpi_error());
		return 77;
	}
	blocks_finish(b);
	const struct block *blk;
	size_t n = blocks_list(b, &blk);
	int fail = 0;
	static const size_t want_n[] = {1, 5, 2};
	static const uint64_t want_occ[] = {1, 100, 1};
	static const uint64_t want_steps[] = {1, 200, 1};
	if (n != 3) {
		printf("FAIL: %zu blocks, want 3\n", n);
		fail = 1;
	}
	/* The second run, for the ILP. */
	struct tracer *t2 = tracer_new(&o, blocks_ilp_event, b);
	if (tracer_start(t2, argv + 1) < 0 || tracer_run(t2, &res) < 0) {
		printf("FAIL: tracing %s again: %s\n", argv[1], perpi_error());
		fail = 1;
	}
	blocks_ilp_finish(b);
	tracer_delete(t2);
	for (size_t i = 0; i < n && i < 3; i++) {
		printf("block 0x%" PRIx64 ": %zu instructions, %" PRIu64 " occurrences, %" PRIu64
		       " steps\n",
		       blk[i].addr, blk[i].n, blk[i].occurrences, blk[i].steps);
		if (blk[i].n != want_n[i] || blk[i].occurrences != want_occ[i] ||
		    blk[i].steps != want_steps[i]) {
			printf("FAIL: block %zu: want %zu instructions, %" PRIu64
			       " occurrences, %" PRIu64 " steps\n",
			       i, want_n[i], want_occ[i], want_steps[i]);
			fail = 1;
		}
	}
	if (blocks_insns(b) != 503) {
		printf("FAIL: I = %" PRIu64 ", want 503\n", blocks_insns(b));
		fail = 1;
	}
	tracer_delete(t);
	blocks_delete(b);
	trace_options_done(&o);
	if (!fail)
		printf("PASS: the loop's blocks, traced\n");
	return fail;
}
