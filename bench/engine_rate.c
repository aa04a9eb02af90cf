/* Engine throughput on a synthetic event stream shaped like ordinary code:
 * 1-3 source units and 1-2 destinations per instruction, 30% 8-byte loads
 * and 15% 8-byte stores (stack and a heap of a few MiB), a call or return
 * every ~12 instructions with the call depth wandering between 2 and 20,
 * each depth running a loop body of 48 static instructions.
 * The events are built in memory first (compact records), then expanded
 * into one event and fed to the engine, the way a trace replay feeds it;
 * the best of three runs is reported.
 * Usage: engine_rate [EVENTS] [--flat] [--random PCT] [--stack-engine] [--window W]
 *                    [--width N] [--deps]
 * (--random: the share of heap accesses at random places in 4 MiB, 30 by
 * default; the others walk it sequentially)
 * engine_rate --span BYTES [--frames]: memory instead of speed: 8-byte
 * stores over BYTES of address space (at main's level, or --frames: half of
 * them inside a call), then the engine's peak memory against the target of
 * 64 MiB + 8x the bytes touched.
 * (--flat: no calls at all, the whole-run figures alone) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

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

/* The thread's CPU time: the machine is shared, wall time is not ours. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long max_rss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Peak memory of the engine after stores over span bytes. */
static int memory_run(uint64_t span, int in_frame)
{
	static struct perpi_insn insn = {.addr = 0x400000, .klass = CLASS_STORE};
	static struct perpi_insn call = {.addr = 0x400004, .klass = CLASS_BRANCH,
					 .control = CTRL_CALL};
	static struct perpi_event ev;
	long before = max_rss_kib();
	struct engine *e = engine_new(NULL);
	uint64_t base = 0x100000000ull, sp = 0x7fff0000;
	double t0 = cpu_now();
	ev.insn = &insn;
	ev.sp = sp;
	ev.flags = EVENT_CALL_ENTRY;
	ev.n_src = 1;
	ev.src[0] = UNIT_RAX;
	ev.n_mem = 1;
	for (uint64_t a = 0; a < span; a += 8) {
		if (in_frame && a == span / 2) {
			/* a call: the second half is stored inside an instance */
			ev.insn = &call;
			ev.mem[0] = (struct perpi_mem_access){sp - 8, 8, 1};
			engine_event(e, &ev);
			ev.insn = &insn;
			ev.sp = sp - 8;
		}
		ev.mem[0] = (struct perpi_mem_access){base + a, 8, 1};
		engine_event(e, &ev);
		ev.flags = 0;
	}
	engine_finish(e);
	double t = cpu_now() - t0;
	long used = max_rss_kib() - before;
	double target = 64.0 * 1024 + 8.0 * span / 1024;
	printf("span %.0f MiB%s: %.1f s, engine peak %.0f MiB, target %.0f MiB (%s)\n",
	       span / 1048576.0, in_frame ? " (half in a call)" : "", t, used / 1024.0,
	       target / 1024, used <= target ? "within" : "OVER");
	engine_delete(e);
	return used <= target ? 0 : 1;
}

int main(int argc, char **argv)
{
	size_t n = 10000000;
	struct engine_options opt = {0};
	int deps = 0, max_depth = 20;
	unsigned random_pct = 30;
	uint64_t span = 0;
	int span_frames = 0;
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
		else if (!strcmp(argv[i], "--span") && i + 1 < argc)
			span = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--frames"))
			span_frames = 1;
		else if (!strcmp(argv[i], "--flat"))
			max_depth = 0;
		else
			n = strtoull(argv[i], NULL, 0);
	}
	if (span)
		return memory_run(span, span_frames);
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
	double depth_sum = 0;
	for (size_t i = 0; i < ring; i++) {
		struct rec *ev = &recs[i];
		uint64_t r = next_rand();
		depth_sum += depth + 1; /* main's instance too */
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
	/* Best of three runs, in CPU time: the machine is shared, the best is
	 * the least disturbed. */
	struct engine *e = NULL;
	double t = 1e300;
	for (int rep = 0; rep < 3; rep++) {
		engine_delete(e);
		e = engine_new(&opt);
		uint64_t sink = 0;
		if (deps)
			engine_add_observer(e, no_op, &sink, 1);
		static struct perpi_event ev;
		double t0 = cpu_now();
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
		if (cpu_now() - t0 < t)
			t = cpu_now() - t0;
	}
	struct engine_totals tot;
	engine_totals(e, &tot);
	const struct engine_function *f;
	size_t nf = engine_functions(e, &f);
	printf("events %zu  cpu seconds %.3f  Mevents/s %.1f  (I %llu, C %llu, functions %zu, "
	       "mean open instances %.1f)\n",
	       n, t, n / t / 1e6, (unsigned long long)tot.insns, (unsigned long long)tot.steps, nf,
	       depth_sum / ring);
	engine_delete(e);
	free(recs);
	free(insns);
	return 0;
}
