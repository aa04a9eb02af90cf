#include "tests/pipedream/body_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned char *pd_assemble_body(const char *text, const char *dir, size_t *len)
{
	const char *start = strstr(text, "_loop:\n"), *end = strstr(text, "\tdec r13\n");
	if (!start || !end)
		return NULL;
	start += strlen("_loop:\n");
	char path[256], cmd[1024];
	snprintf(path, sizeof(path), "%s/body.s", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return NULL;
	fprintf(f, ".intel_syntax noprefix\n%.*s", (int)(end - start), start);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "as --64 -o %s/body.o %s && objcopy -O binary -j .text %s/body.o %s/body.bin", dir,
		 path, dir, dir);
	if (system(cmd) != 0)
		return NULL;
	snprintf(path, sizeof(path), "%s/body.bin", dir);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	unsigned char *buf = malloc(1 << 20);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}
