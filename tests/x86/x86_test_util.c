#include <stdlib.h>
#include <string.h>

#include "tests/x86/x86_test_util.h"

static const char *const gprs[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
				     "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
static const char *const flags[] = {"cf", "pf",	    "af",     "zf",    "sf",   "of",
				    "df", "fsbase", "gsbase", "mxcsr", "fpcw", "fpsw"};

const char *x86t_unit_name(int u)
{
	static char buf[8][16];
	static int next;
	char *b = buf[next++ % 8];
	if (u < UNIT_VEC)
		return gprs[u];
	if (u < UNIT_K)
		snprintf(b, 16, "v%d.%d", (u - UNIT_VEC) / 3, (u - UNIT_VEC) % 3);
	else if (u < UNIT_X87)
		snprintf(b, 16, "k%d", u - UNIT_K);
	else if (u < UNIT_CF)
		snprintf(b, 16, "fp%d", u - UNIT_X87);
	else if (u < UNIT_COUNT)
		return flags[u - UNIT_CF];
	else
		snprintf(b, 16, "?%d", u);
	return b;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void join_sorted(char **words, int n, char *out, size_t size)
{
	qsort(words, (size_t)n, sizeof(*words), cmp_str);
	out[0] = 0;
	size_t len = 0;
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%s%s",
					i ? " " : "", words[i]);
}

void x86t_units_text(const uint8_t *units, int n, char *out, size_t size)
{
	char *words[UNIT_COUNT + 1], names[UNIT_COUNT + 1][16];
	for (int i = 0; i < n && i <= UNIT_COUNT; i++) {
		snprintf(names[i], 16, "%s", x86t_unit_name(units[i]));
		words[i] = names[i];
	}
	join_sorted(words, n > UNIT_COUNT ? UNIT_COUNT : n, out, size);
}

void x86t_mem_text(const struct perpi_event *ev, char *out, size_t size)
{
	char names[EVENT_MAX_MEM][40], *words[EVENT_MAX_MEM];
	for (int i = 0; i < ev->n_mem; i++) {
		snprintf(names[i], 40, "%c:%llx:%u", ev->mem[i].write ? 'w' : 'r',
			 (unsigned long long)ev->mem[i].addr, ev->mem[i].size);
		words[i] = names[i];
	}
	join_sorted(words, ev->n_mem, out, size);
}

void x86t_canon(const char *in, char *out, size_t size)
{
	char copy[1024], *words[256];
	int n = 0;
	snprintf(copy, sizeof(copy), "%s", in);
	for (char *t = strtok(copy, " ,"); t && n < 256; t = strtok(NULL, " ,"))
		words[n++] = t;
	join_sorted(words, n, out, size);
}

void x86t_print_event(FILE *f, const struct perpi_event *ev)
{
	char s[4096];
	x86t_units_text(ev->src, ev->n_src, s, sizeof(s));
	fprintf(f, "  src: %s\n", s);
	x86t_units_text(ev->dst, ev->n_dst, s, sizeof(s));
	fprintf(f, "  dst: %s\n", s);
	x86t_mem_text(ev, s, sizeof(s));
	fprintf(f, "  mem: %s\n", s);
}
