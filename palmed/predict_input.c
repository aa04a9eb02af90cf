/* Blocks given as assembly text or machine code become kernels of forms:
 * assembly goes through GNU as, bytes through the tracer's x86 decoder, each
 * instruction through form_from_bytes (palmed/form.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "palmed/form.h"
#include "palmed/predict.h"

int predict_parse_hex(const char *text, unsigned char **bytes, size_t *len)
{
	size_t cap = strlen(text) / 2 + 1, n = 0;
	unsigned char *out = xmalloc(cap);
	const char *p = text;
	while (*p) {
		if (isspace((unsigned char)*p) || *p == ',') {
			p++;
			continue;
		}
		if ((p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) || p[0] == '\\') {
			p += p[0] == '\\' ? 2 : 2; /* 0x.. or \x.. */
			continue;
		}
		if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1])) {
			free(out);
			return perpi_set_error(
			    "bad hex bytes near '%.10s': expected pairs of hex digits "
			    "such as '48 01 d8'",
			    p);
		}
		unsigned v;
		sscanf(p, "%2x", &v);
		out[n++] = (unsigned char)v;
		p += 2;
	}
	if (n == 0) {
		free(out);
		return perpi_set_error("empty block: no bytes given");
	}
	*bytes = out;
	*len = n;
	return 0;
}

static int run(char *const argv[], const char *errfile)
{
	pid_t pid = fork();
	if (pid < 0)
		return perpi_set_error("cannot run %s: %s", argv[0], strerror(errno));
	if (pid == 0) {
		FILE *err = freopen(errfile, "w", stderr);
		(void)err;
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return perpi_set_error("waiting for %s: %s", argv[0], strerror(errno));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb;
	char buf[4096];
	size_t n;
	if (!f)
		return NULL;
	strbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	if (len)
		*len = sb.len;
	if (!sb.buf)
		return xstrdup("");
	return sb.buf;
}

/* The first line of as's complaint, without the temporary file name. */
static char *first_error(const char *errfile)
{
	char *text = read_file(errfile, NULL), *line;
	if (!text)
		return xstrdup("the assembler failed");
	line = strstr(text, "Error: ");
	line = line ? line + 7 : text;
	line[strcspn(line, "\n")] = '\0';
	char *msg = xstrdup(*line ? line : "the assembler failed");
	free(text);
	return msg;
}

int predict_assemble(const char *text, int intel, unsigned char **bytes, size_t *len)
{
	char dir[] = "/tmp/perpi-asm-XXXXXX";
	if (!mkdtemp(dir))
		return perpi_set_error("cannot make a temporary directory: %s", strerror(errno));
	char *src = xasprintf("%s/block.s", dir), *obj = xasprintf("%s/block.o", dir);
	char *bin = xasprintf("%s/block.bin", dir), *err = xasprintf("%s/err", dir);
	int rc = -1;
	FILE *f = fopen(src, "w");
	if (f) {
		fprintf(f, "%s\n%s\n", intel ? ".intel_syntax noprefix" : ".att_syntax", text);
		fclose(f);
		char *as_argv[] = {"as", "--64", "-o", obj, src, NULL};
		char *cp_argv[] = {"objcopy", "-O", "binary", "-j", ".text", obj, bin, NULL};
		int st = run(as_argv, err);
		if (st > 0) {
			char *why = first_error(err);
			perpi_set_error("cannot assemble the block (%s syntax): %s",
					intel ? "Intel" : "AT&T", why);
			free(why);
		} else if (st == 0 && run(cp_argv, err) != 0) {
			perpi_set_error("cannot extract the machine code: objcopy failed");
		} else if (st == 0) {
			*bytes = (unsigned char *)read_file(bin, len);
			rc = *bytes ? 0 : perpi_set_error("cannot read the assembled block");
			if (rc == 0 && *len == 0) {
				free(*bytes);
				rc = perpi_set_error("empty block: no instruction in the assembly");
			}
		}
	} else {
		perpi_set_error("cannot write '%s': %s", src, strerror(errno));
	}
	remove(src);
	remove(obj);
	remove(bin);
	remove(err);
	rmdir(dir);
	free(src);
	free(obj);
	free(bin);
	free(err);
	return rc;
}

int predict_decode(const unsigned char *bytes, size_t len, struct kernel *out)
{
	kernel_init(out);
	size_t used = 0;
	while (used < len) {
		struct form f;
		char name[FORM_NAME_MAX];
		unsigned n;
		if (form_from_bytes(bytes + used, len - used, &f, &n) < 0) {
			kernel_done(out);
			return perpi_set_error(
			    "cannot decode the bytes at offset %zu (%02x...): not "
			    "an x86-64 instruction",
			    used, bytes[used]);
		}
		form_print(&f, name, sizeof(name));
		kernel_add(out, name, 1);
		used += n;
	}
	return 0;
}
