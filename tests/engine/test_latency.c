/* Latencies per instruction form from a file (palmed/latency.c): forms named
 * as DESIGN.md names them (ADDSD_XMM_XMM, ADD_GPR64_IMM8, MOV_GPR64_M64),
 * the engine's figures with them derived by hand, and bad files refused
 * with their line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "palmed/latency.h"
#include "tests/engine/evbuild.h"

static char dir[] = "/tmp/perpi-latency-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) == EOF || fclose(f) == EOF) {
		perror(path);
		exit(99);
	}
	return path;
}

/* A static instruction from its bytes (hex), with a dense id. */
static struct perpi_insn *insn(const char *hex, unsigned id)
{
	struct perpi_insn *in = xcalloc(1, sizeof(*in));
	in->id = id;
	in->addr = 0x401000 + 16 * id;
	for (; hex[0] && hex[1]; hex += 2)
		sscanf(hex, "%2hhx", &in->bytes[in->len++]);
	return in;
}

static void refused(const char *what, const char *text, const char *message)
{
	const char *path = write_file("bad", text);
	struct latency_table *t = latency_table_load(path);
	if (t || !strstr(perpi_error(), message)) {
		printf("FAIL: %s: %s, want an error with '%s'\n", what,
		       t ? "accepted" : perpi_error(), message);
		ev_failures++;
	}
	latency_table_delete(t);
	unlink(path);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	const char *path = write_file("lat", "# latencies measured by hand\n"
					      "ADDSD_XMM_XMM 4\n"
					      "\n"
					      "ADD_GPR64_IMM8   2   # add r64, imm8\n");
	struct latency_table *t = latency_table_load(path);
	if (!t) {
		printf("FAIL: %s refused: %s\n", path, perpi_error());
		return 1;
	}
	struct perpi_insn *addsd = insn("f20f58c1", 0); /* addsd xmm0, xmm1 */
	struct perpi_insn *add = insn("4883c008", 1);   /* add rax, 8 */
	struct perpi_insn *load = insn("488b07", 2);    /* mov rax, [rdi]: not listed */
	ev_check("addsd xmm0, xmm1", latency_table_of(t, addsd), 4);
	ev_check("add rax, 8", latency_table_of(t, add), 2);
	ev_check("mov rax, [rdi]", latency_table_of(t, load), 1);
	ev_check("add rax, 8 again (cached)", latency_table_of(t, add), 2);
	ev_check("unlisted", latency_table_unlisted(t), 1);

	/* In the engine: addsd xmm0,xmm1 twice (a chain through xmm0: done at
	 * 4, then 8); add rax, 8 (2); the load, independent (1). I=4, C=8. */
	struct engine_options opt = {.latency = latency_table_of, .latency_ctx = t};
	struct engine *e = engine_new(&opt);
	struct perpi_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.insn = addsd;
	ev.n_src = 2;
	ev.src[0] = UNIT_VEC_PART(0, 0);
	ev.src[1] = UNIT_VEC_PART(1, 0);
	ev.n_dst = 1;
	ev.dst[0] = UNIT_VEC_PART(0, 0);
	engine_event(e, &ev);
	engine_event(e, &ev);
	ev.insn = add;
	ev.src[0] = ev.dst[0] = UNIT_RAX;
	ev.n_src = 1;
	engine_event(e, &ev);
	ev.insn = load;
	ev.src[0] = UNIT_RDI;
	ev.dst[0] = UNIT_RCX;
	engine_event(e, &ev);
	ev_check_totals("latency file", e, 4, 8);
	engine_delete(e);
	latency_table_delete(t);
	unlink(path);

	refused("a word for steps", "ADDSD_XMM_XMM four\n", "bad:1: not 'FORM STEPS'");
	refused("zero steps", "# ok\nADDSD_XMM_XMM 0\n", "bad:2: 0 steps for ADDSD_XMM_XMM");
	refused("too many steps", "ADDSD_XMM_XMM 1001\n", "give 1 to 1000");
	refused("a third word", "ADDSD_XMM_XMM 4 5\n", "bad:1: not 'FORM STEPS'");
	refused("twice", "ADDSD_XMM_XMM 4\nADDSD_XMM_XMM 5\n", "ADDSD_XMM_XMM is listed twice");
	if (latency_table_load("/nonexistent/latencies") || !strstr(perpi_error(), "No such file")) {
		printf("FAIL: a missing file: %s\n", perpi_error());
		ev_failures++;
	}
	rmdir(dir);
	free(addsd);
	free(add);
	free(load);
	if (ev_failures) {
		printf("%d failures\n", ev_failures);
		return 1;
	}
	printf("latency: all checks passed\n");
	return 0;
}
