/* Histogram, data-flow graph and critical path on a hand-built run.
 *
 * The run (dynamic index: class, text, step, producers), steps derived by
 * hand with c = 1 + max(step of producers):
 *   #0 load   mov rax, [rdi]     step 1
 *   #1 move   mov ecx, 1         step 1
 *   #2 fp     cvtsi2sd xmm0, rax step 2   <- #0 (rax)
 *   #3 int    add rcx, 2         step 2   <- #1 (rcx)
 *   #4 fp     addsd xmm0, xmm1   step 3   <- #2 (xmm0), #3 (rcx)
 *   #5 store  mov [rsi], rcx     step 3   <- #3 (rcx)
 *   #6 branch ja 0x401000        step 4   <- #4 (CF)
 *   #7 int    xor eax, eax       step 5   (no producer: next call instance)
 * I = 8, C = 5. Per step: 1: load+move, 2: fp+int, 3: fp+store, 4: branch,
 * 5: int. The longest chain: #0 -> #2 -> #4 -> #6 -> #7 (5 = C links). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "ilp/critical.h"
#include "ilp/graph.h"
#include "ilp/hist.h"

static int failures;
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

struct spec {
	unsigned klass;
	const char *text;
	uint64_t step;
	int n_deps;
	struct engine_dep deps[2];
};

#define U(p, unit)                                                                                 \
	{                                                                                          \
		p, unit, DEP_UNIT, 0                                                               \
	}
static const struct spec run[] = {
    {CLASS_LOAD, "mov rax, qword ptr [rdi]", 1, 0, {{0}}},
    {CLASS_MOVE, "mov ecx, 1", 1, 0, {{0}}},
    {CLASS_FP, "cvtsi2sd xmm0, rax", 2, 1, {U(0, UNIT_RAX)}},
    {CLASS_INT, "add rcx, 2", 2, 1, {U(1, UNIT_RCX)}},
    {CLASS_FP, "addsd xmm0, xmm1", 3, 2, {U(2, UNIT_VEC_PART(0, 0)), U(3, UNIT_RCX)}},
    {CLASS_STORE, "mov qword ptr [rsi], rcx", 3, 1, {U(3, UNIT_RCX)}},
    {CLASS_BRANCH, "ja 0x401000", 4, 1, {U(4, UNIT_CF)}},
    {CLASS_INT, "xor eax, eax", 5, 0, {{0}}},
};
#define N_RUN 8

static struct perpi_insn insns[N_RUN];

static void feed(engine_observer_fn fn, void *ctx)
{
	for (unsigned i = 0; i < N_RUN; i++) {
		struct perpi_event ev = {.insn = &insns[i]};
		insns[i] =
		    (struct perpi_insn){.addr = 0x401000 + 4 * i, .id = i, .klass = run[i].klass};
		snprintf(insns[i].text, sizeof(insns[i].text), "%s", run[i].text);
		struct engine_step_info info = {i, run[i].step, &ev, run[i].n_deps, run[i].deps};
		fn(ctx, &info);
	}
}

static const char *fn_name(void *ctx, const struct perpi_insn *insn, uint64_t *off)
{
	*off = insn->addr - 0x401000;
	return "kernel";
}

static int fn_line(void *ctx, const struct perpi_insn *insn, const char **file, unsigned *line)
{
	*file = "/src/kernel.c";
	*line = insn->id < 4 ? 10 : 11; /* #0-#3 line 10, #4-#7 line 11 */
	return 0;
}

static const struct insn_namer namer = {fn_name, fn_line, NULL};

static void test_hist(void)
{
	struct hist *h = hist_new();
	struct hist_bins b;
	feed(hist_observe, h);
	CHECK(hist_max_step(h) == 5, "max step %llu", (unsigned long long)hist_max_step(h));
	CHECK(hist_bin(h, 0, UINT64_MAX, 0, &b) == 0 && b.n == 5 && b.total == 8, "per-step view");
	CHECK(b.count[0][CLASS_LOAD] == 1 && b.count[0][CLASS_MOVE] == 1 &&
		  b.count[1][CLASS_FP] == 1 && b.count[1][CLASS_INT] == 1 &&
		  b.count[2][CLASS_STORE] == 1 && b.count[3][CLASS_BRANCH] == 1 &&
		  b.count[4][CLASS_INT] == 1,
	      "per-step counts");
	hist_bins_done(&b);
	/* 2 bins of 3 steps: steps 1-3 hold #0-#5 (6), steps 4-5 hold #6, #7 (2). */
	CHECK(hist_bin(h, 0, UINT64_MAX, 2, &b) == 0 && b.n == 2 && b.width == 3, "2 bins");
	CHECK(b.n == 2 && b.count[0][CLASS_FP] == 2 && b.count[1][CLASS_BRANCH] == 1 &&
		  b.count[1][CLASS_INT] == 1 && b.total == 8,
	      "binned counts");
	hist_bins_done(&b);
	/* Steps 2..3 hold #2-#5. */
	CHECK(hist_bin(h, 2, 3, 0, &b) == 0 && b.n == 2 && b.total == 4, "range 2..3");
	hist_bins_done(&b);
	CHECK(hist_bin(h, 6, 9, 0, &b) < 0 && strstr(perpi_error(), "no step from 6"),
	      "empty range");
	hist_delete(h);

	/* Long runs: 3 instructions at each of 200000 steps. The histogram
	 * coarsens to bins of 4 steps (200000 / 65536 > 2), each bin holding
	 * exactly 12, and every view adds up to 600000. */
	h = hist_new();
	for (uint64_t s = 1; s <= 200000; s++)
		hist_add(h, s, s % 2 ? CLASS_FP : CLASS_LOAD, 3);
	CHECK(hist_bin(h, 0, UINT64_MAX, 0, &b) == 0 && b.width == 4 && b.n == 50000 &&
		  b.total == 600000,
	      "coarsened: width %llu n %zu total %llu", (unsigned long long)b.width, b.n,
	      (unsigned long long)b.total);
	CHECK(b.count[0][CLASS_FP] == 6 && b.count[0][CLASS_LOAD] == 6 &&
		  b.count[49999][CLASS_FP] == 6,
	      "coarsened bin sums");
	hist_bins_done(&b);
	/* 7 bins: width ceil(200000 / 7) = 28572 -> 28572 (a multiple of 4),
	 * so 7 bins, the last of 200000 - 6 * 28572 = 28568 steps. */
	CHECK(hist_bin(h, 0, UINT64_MAX, 7, &b) == 0 && b.n == 7 && b.width == 28572 &&
		  b.total == 600000,
	      "7 bins: width %llu n %zu", (unsigned long long)b.width, b.n);
	CHECK(b.count[6][CLASS_FP] + b.count[6][CLASS_LOAD] == 3 * 28568, "last bin sum");
	hist_bins_done(&b);
	hist_delete(h);
}

static int run_tool(const char *cmd)
{
	int rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void test_hist_files(const char *dir)
{
	struct hist *h = hist_new();
	struct hist_bins b;
	feed(hist_observe, h);
	hist_bin(h, 0, UINT64_MAX, 0, &b);
	char *csv = xasprintf("%s/h.csv", dir), *svg = xasprintf("%s/h.svg", dir);
	FILE *fp = fopen(csv, "w");
	hist_write_csv(fp, &b);
	fclose(fp);
	fp = fopen(svg, "w");
	hist_write_svg(fp, &b, "test <run> & more");
	fclose(fp);
	/* The CSV read back by awk: the total column adds up to I = 8, each
	 * row's classes add up to its total, and row 2 (step 2) holds fp + int. */
	char *cmd = xasprintf("awk -F, 'NR==1{ok=($4==\"load\" && $12==\"total\")} NR>1{s+=$12; "
			      "t=0; for(i=4;i<=11;i++) t+=$i; if (t!=$12) ok=0} NR==3{if ($7!=1 "
			      "|| $6!=1) ok=0} END{exit !(ok && s==8 && NR==6)}' %s",
			      csv);
	CHECK(run_tool(cmd) == 0, "CSV sums");
	free(cmd);
	if (run_tool("command -v xmllint >/dev/null") == 0) {
		cmd = xasprintf("xmllint --noout %s", svg);
		CHECK(run_tool(cmd) == 0, "SVG is not well-formed XML");
		free(cmd);
	}
	/* 8 class rectangles for 8 instructions + 8 legend squares + background */
	cmd = xasprintf("test $(grep -c '<rect' %s) -eq 17", svg);
	CHECK(run_tool(cmd) == 0, "SVG rectangles");
	free(cmd);
	fp = fopen(csv, "w");
	hist_write_text(fp, &b, 10, 0);
	fclose(fp);
	/* Step 1: load + move at the top rate 2 -> 5 'l' and 5 'm' cells. */
	cmd = xasprintf("grep -q '^ *1 *|lllllmmmmm *2.00$' %s && grep -q 'legend: l load' %s", csv,
			csv);
	CHECK(run_tool(cmd) == 0, "text histogram row");
	free(cmd);
	hist_bins_done(&b);
	hist_delete(h);
	unlink(csv), unlink(svg);
	free(csv), free(svg);
}

static void test_graph(const char *dir)
{
	struct graph *g = graph_new(GRAPH_DEFAULT_MAX_NODES);
	feed(graph_observe, g);
	char *dot = xasprintf("%s/g.dot", dir);
	FILE *fp = fopen(dot, "w");
	CHECK(graph_write_dot(g, fp, &namer, "test") == 0, "dot: %s", perpi_error());
	fclose(fp);
	/* The 6 edges of the run, with their labels. */
	char *cmd = xasprintf("grep -q 'n0 -> n2 \\[label=\"rax\"\\]' %s && "
			      "grep -q 'n2 -> n4 \\[label=\"xmm0\"\\]' %s && "
			      "grep -q 'n4 -> n6 \\[label=\"CF\"\\]' %s && "
			      "test $(grep -c ' -> n[0-9]* \\[label' %s) -eq 6 && "
			      "grep -q 'rank=same; s3; n4; n5; }' %s",
			      dot, dot, dot, dot, dot);
	CHECK(run_tool(cmd) == 0, "dot edges and ranks");
	free(cmd);
	if (run_tool("command -v dot >/dev/null") == 0) {
		cmd = xasprintf("dot -Tsvg %s -o %s.svg && xmllint --noout %s.svg", dot, dot, dot);
		CHECK(run_tool(cmd) == 0, "dot -Tsvg failed");
		free(cmd);
		cmd = xasprintf("%s.svg", dot);
		unlink(cmd);
		free(cmd);
	}
	graph_delete(g);
	g = graph_new(5);
	feed(graph_observe, g);
	fp = fopen(dot, "w");
	CHECK(graph_write_dot(g, fp, &namer, NULL) < 0 && strstr(perpi_error(), "8 nodes"),
	      "limit of 5 nodes not enforced");
	fclose(fp);
	graph_delete(g);
	unlink(dot);
	free(dot);
	CHECK(!strcmp(graph_unit_name(UNIT_VEC_PART(3, 1)), "ymm3[128:255]"), "unit name");
	CHECK(!strcmp(graph_unit_name(UNIT_K + 2), "k2"), "unit name k2");
}

static void test_critical(void)
{
	struct critical *c = critical_new();
	struct critical_link *l;
	feed(critical_observe, c);
	size_t n = critical_path(c, &l);
	CHECK(n == 5, "chain of %zu, want 5", n);
	static const uint64_t want[5] = {0, 2, 4, 6, 7};
	for (size_t i = 0; i < n && i < 5; i++)
		CHECK(l[i].index == want[i] && l[i].step == i + 1, "link %zu is #%llu", i,
		      (unsigned long long)l[i].index);
	CHECK(n == 5 && !l[0].has_dep && l[1].dep.what == UNIT_RAX && l[3].dep.what == UNIT_CF &&
		  !l[4].has_dep,
	      "links' dependencies");
	char buf[4096] = "";
	FILE *fp = fmemopen(buf, sizeof(buf) - 1, "w");
	critical_write_text(fp, l, n, &namer);
	fclose(fp);
	/* #0 and #2 on line 10, #4, #6, #7 on line 11 */
	CHECK(strstr(buf, "         3  60.0%  /src/kernel.c:11") &&
		  strstr(buf, "         2  40.0%  /src/kernel.c:10"),
	      "line summary:\n%s", buf);
	CHECK(strstr(buf, "kernel+0x8") && strstr(buf, "kernel.c:10"), "chain table:\n%s", buf);
	free(l);
	critical_delete(c);
}

/* --only: free instructions reach observers with step 0 and are links of
 * chains. #0 fp step 1 -> #1 free move (xmm1 <- xmm0) -> #2 fp step 2
 * (reads xmm1), and #3 fp step 1 alone. The chain is #0, #2: 2 = C. */
static void test_critical_free_links(void)
{
	static const struct spec free_run[] = {
	    {CLASS_FP, "addsd xmm0, xmm0", 1, 0, {{0}}},
	    {CLASS_MOVE, "movapd xmm1, xmm0", 0, 1, {U(0, UNIT_VEC_PART(0, 0))}},
	    {CLASS_FP, "mulsd xmm1, xmm1", 2, 1, {U(1, UNIT_VEC_PART(1, 0))}},
	    {CLASS_FP, "addsd xmm5, xmm5", 1, 0, {{0}}},
	};
	struct critical *c = critical_new();
	struct perpi_insn in[4];
	for (unsigned i = 0; i < 4; i++) {
		struct perpi_event ev = {.insn = &in[i]};
		in[i] = (struct perpi_insn){
		    .addr = 0x402000 + 4 * i, .id = i, .klass = free_run[i].klass};
		snprintf(in[i].text, sizeof(in[i].text), "%s", free_run[i].text);
		struct engine_step_info info = {i, free_run[i].step, &ev, free_run[i].n_deps,
						free_run[i].deps};
		critical_observe(c, &info);
	}
	struct critical_link *l;
	size_t n = critical_path(c, &l);
	CHECK(n == 2 && l[0].index == 0 && l[1].index == 2 && l[1].has_dep &&
		  l[1].dep.what == UNIT_VEC_PART(1, 0),
	      "chain through a free link (%zu links)", n);
	free(l);
	critical_delete(c);
}

/* An edge over more than GRAPH_LONG_EDGE (8) steps is a stub above the
 * reader: #0 (step 1) -> #1 (step 10) carries rax over 9 steps. */
static void test_graph_long_edge(void)
{
	struct graph *g = graph_new(10);
	struct perpi_insn in[2] = {
	    {.addr = 0x401000, .klass = CLASS_INT, .text = "mov rax, 1"},
	    {.addr = 0x401004, .id = 1, .klass = CLASS_INT, .text = "add rbx, rax"}};
	struct engine_dep dep = {0, UNIT_RAX, DEP_UNIT, 0};
	struct perpi_event ev0 = {.insn = &in[0]}, ev1 = {.insn = &in[1]};
	struct engine_step_info a = {0, 1, &ev0, 0, NULL}, b = {1, 10, &ev1, 1, &dep};
	graph_observe(g, &a);
	graph_observe(g, &b);
	char buf[8192] = "";
	FILE *fp = fmemopen(buf, sizeof(buf) - 1, "w");
	graph_write_dot(g, fp, &namer, NULL);
	fclose(fp);
	CHECK(strstr(buf, "r1_0 -> n1 [style=dashed, label=\"rax\"]") &&
		  strstr(buf, "label=\"from #0, step 1\"") && !strstr(buf, "n0 -> n1"),
	      "long edge not a stub:\n%s", buf);
	graph_delete(g);
}

int main(void)
{
	char dir[] = "/tmp/perpi-test-outputs-XXXXXX";
	if (!mkdtemp(dir))
		return 99;
	test_hist();
	test_hist_files(dir);
	test_graph(dir);
	test_graph_long_edge();
	test_critical();
	test_critical_free_links();
	rmdir(dir);
	if (!failures)
		printf("PASS: histogram, graph and critical path on a hand-built run\n");
	return failures ? 1 : 0;
}
