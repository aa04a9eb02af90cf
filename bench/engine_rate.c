/* Engine throughput on a synthetic event stream shaped like ordinary code:
 * 1-3 source units and 1-2 destinations per instruction, 30% 8-byte loads
 * and 15% 8-byte stores (stack and a heap of a few MiB), a call or return
 * every ~12 instructions with the call depth wandering between 2 and 20,
 * each depth running a loop body of 48 static instructions.
 * The events are built in memory first, then fed to the engine and timed,
 * the way a trace replay feeds it.
 * Usage: engine_rate [EVENTS] [--flat] [--random PCT] [--stack-engine] [--window W]
 *                    [--width N] [--deps]
 * (--random: the share of heap accesses at random places in 4 MiB, 30 by
 * default; the others walk it sequentially)
 * (--flat: no calls at all, the whole-run figures alone) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/engine.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void no_op(void *ctx, const struct engine_step_info *info)
{
	(*(uint64_t *)ctx) += info->n_deps;
}

int main(int argc, char **argv)
{
	size_t n = 10000000;
	struct engine_options opt = {0};
	int deps = 0, max_depth = 20;
	unsigned random_pct = 30;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stack-engine"))
			opt.stack_engine = 1;
		else if (!strcmp(argv[i], "--window") && i + 1 < argc)
			opt.window = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--width") && i + 1 < argc)
			opt.width = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--deps"))
			deps = 1;
		else if (!strcmp(argv[i], "--random") && i + 1 < argc)
			random_pct = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--flat"))
			max_depth = 0;
		else
			n = strtoull(argv[i], NULL, 0);
	}
	/* A small static program: 4096 instructions at distinct addresses. */
	struct perpi_insn *insns = xcalloc(4096, sizeof(*insns));
	for (int i = 0; i < 4096; i++) {
		insns[i].addr = 0x400000 + 4 * i;
		insns[i].klass = CLASS_INT;
		strcpy(insns[i].text, "add");
	}
	insns[1].control = CTRL_CALL;
	insns[2].control = CTRL_RET;
	/* The stream: a ring of 2^20 compact records, expanded one by one into
	 * a single event as a trace reader would (the expansion is timed too). */
	struct rec {
		uint64_t sp, addr;
		uint16_t insn;
		uint8_t n_src, n_dst, n_mem, write, src[3], dst[2];
	};
	size_t ring = (size_t)1 << 20;
	struct rec *recs = xcalloc(ring, sizeof(*recs));
	uint64_t sp = 0x7fff0000, heap = 0x10000000, walk = 0;
	int depth = 0;
	uint64_t entry = 0;
	for (size_t i = 0; i < ring; i++) {
		struct rec *ev = &recs[i];
		uint64_t r = next_rand();
		/* code locality: a 48-instruction loop body per call depth */
		ev->insn = (uint16_t)(4 + (depth * 331 + i % 48) % 4000);
		ev->sp = entry ? entry : sp;
		entry = 0;
		ev->n_src = 1 + (r >> 8) % 3;
		ev->n_dst = 1 + (r >> 10) % 2;
		for (int k = 0; k < ev->n_src; k++)
			ev->src[k] = (uint8_t)((r >> (12 + 4 * k)) % 16 == 4 ? 0 : (r >> (12 + 4 * k)) % 16);
		ev->dst[0] = (uint8_t)((r >> 24) % 16 == 4 ? 3 : (r >> 24) % 16);
		ev->dst[1] = UNIT_CF + (r >> 28) % 6;
		unsigned m = (r >> 32) % 100;
		int call = depth < max_depth && (r >> 40) % 24 == 0 && i + 400 < ring;
		int ret = !call && depth > (max_depth ? 2 : 0) && (r >> 40) % 24 == 1;
		if (i + 400 >= ring && depth > 0)
			ret = 1;
		if (call) {
			/* the call writes the return address; the callee's first
			 * event is at that key, its body 64 bytes lower */
			ev->insn = 1;
			ev->n_src = ev->n_dst = ev->n_mem = ev->write = 1;
			ev->src[0] = ev->dst[0] = UNIT_RSP;
			ev->addr = ev->sp - 8;
			entry = ev->sp - 8;
			sp = entry - 64;
			depth++;
			continue;
		}
		if (ret && depth > 0) {
			ev->sp = sp + 64;
			ev->insn = 2;
			ev->n_src = ev->n_dst = ev->n_mem = 1;
			ev->write = 0;
			ev->src[0] = ev->dst[0] = UNIT_RSP;
			ev->addr = ev->sp;
			sp += 64 + 8;
			depth--;
			continue;
		}
		/* stack slots, or the heap: mostly a sequential walk, some random */
		uint64_t addr = (r >> 48) % 2         ? sp + 8 * ((r >> 50) % 8)
				: (r >> 52) % 100 >= random_pct ? heap + (walk = (walk + 8) % (1 << 22))
						       : heap + 8 * ((r >> 20) % (1 << 19));
		if (m < 45) {
			ev->n_mem = 1;
			ev->write = m >= 30;
			ev->addr = addr;
		}
	}
	/* Best of three runs: the machine is shared, the best is the least
	 * disturbed. */
	struct engine *e = NULL;
	double t = 1e300;
	for (int rep = 0; rep < 3; rep++) {
		engine_delete(e);
		e = engine_new(&opt);
		uint64_t sink = 0;
		if (deps)
			engine_add_observer(e, no_op, &sink, 1);
		static struct perpi_event ev;
		double t0 = perpi_now();
		for (size_t i = 0; i < n; i++) {
			const struct rec *r = &recs[i & (ring - 1)];
			ev.insn = &insns[r->insn];
			ev.sp = r->sp;
			ev.flags = i ? 0 : EVENT_CALL_ENTRY; /* the first event enters main */
			ev.n_src = r->n_src;
			ev.n_dst = r->n_dst;
			ev.n_mem = r->n_mem;
			memcpy(ev.src, r->src, 3);
			memcpy(ev.dst, r->dst, 2);
			ev.mem[0] = (struct perpi_mem_access){r->addr, 8, r->write};
			engine_event(e, &ev);
		}
		engine_finish(e);
		if (perpi_now() - t0 < t)
			t = perpi_now() - t0;
	}
	struct engine_totals tot;
	engine_totals(e, &tot);
	const struct engine_function *f;
	size_t nf = engine_functions(e, &f);
	uint64_t calls = 0;
	for (size_t i = 0; i < nf; i++)
		calls += f[i].calls;
	printf("instances %llu\n", (unsigned long long)calls);
	printf("events %zu  seconds %.3f  Mevents/s %.1f  (I %llu, C %llu, functions %zu)\n", n, t,
	       n / t / 1e6, (unsigned long long)tot.insns, (unsigned long long)tot.steps, nf);
	engine_delete(e);
	free(recs);
	free(insns);
	return 0;
}
