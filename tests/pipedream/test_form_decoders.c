/* The two decoders the tracer may use, Capstone and Zydis, must give every
 * instruction the same form (tracer/x86_operands.c settles their
 * conventions). Checked on every instruction of the C library this test
 * runs with, decoded linearly through .text; where one decoder reads data
 * bytes or an instruction differently (another length) the pair is not
 * compared. On Debian 12's libc (335,736 instructions) no form differs;
 * the bound leaves room for a decoder upgrade's rare corner cases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/form.h"
#include "palmed/harness.h"
#include "tracer/event.h"
#include "tracer/x86_operands.h"

static char *libc_path(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024], *path = NULL;
	while (f && !path && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "/libc.so")) {
			p[strcspn(p, "\n")] = '\0';
			path = xstrdup(p);
		}
	}
	if (f)
		fclose(f);
	return path;
}

int main(void)
{
	char *path = libc_path();
	uint8_t *bytes;
	size_t len, off = 0, compared = 0, differ = 0;
	if (!path || harness_text_bytes(path, &bytes, &len) < 0) {
		printf("SKIP: cannot read the C library's .text\n");
		return 77;
	}
	while (off < len) {
		struct x86_operands c, z;
		struct form fc, fz;
		char nc[FORM_NAME_MAX], nz[FORM_NAME_MAX];
		if (x86_operands_decode_with(DECODER_ZYDIS, bytes + off, len - off, &z) < 0) {
			off++;
			continue;
		}
		if (x86_operands_decode_with(DECODER_CAPSTONE, bytes + off, len - off, &c) == 0 &&
		    c.length == z.length) {
			form_from_operands(&c, &fc);
			form_from_operands(&z, &fz);
			form_print(&fc, nc, sizeof(nc));
			form_print(&fz, nz, sizeof(nz));
			compared++;
			if (strcmp(nc, nz) && differ++ < 20)
				printf("at .text+0x%zx: Capstone %s, Zydis %s\n", off, nc, nz);
		}
		off += z.length;
	}
	printf("%s: %zu instructions compared, %zu with different forms\n", path, compared, differ);
	free(bytes);
	free(path);
	if (compared < 10000 || differ * 1000 > compared) {
		printf("FAIL: more than 0.1%% of the forms differ (or too few compared)\n");
		return 1;
	}
	return 0;
}
