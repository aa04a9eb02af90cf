#include "palmed/kernel.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/form.h"

void kernel_with(const struct kernel *k, const char *spec, struct kernel *out)
{
	struct kernel h;
	kernel_init(out);
	for (size_t i = 0; i < k->n; i++)
		kernel_add(out, k->terms[i].form, k->terms[i].count);
	if (spec && kernel_parse(spec, &h) == 0) {
		for (size_t i = 0; i < h.n; i++)
			kernel_add(out, h.terms[i].form, h.terms[i].count);
		kernel_done(&h);
	}
}

void kernel_init(struct kernel *k)
{
	k->n = 0;
	k->terms = NULL;
}

void kernel_done(struct kernel *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->terms[i].form);
	free(k->terms);
	kernel_init(k);
}

void kernel_add(struct kernel *k, const char *form, unsigned count)
{
	size_t i = 0;
	while (i < k->n && strcmp(k->terms[i].form, form) < 0)
		i++;
	if (i < k->n && !strcmp(k->terms[i].form, form)) {
		k->terms[i].count += count;
		return;
	}
	k->terms = xrealloc(k->terms, (k->n + 1) * sizeof(*k->terms));
	memmove(k->terms + i + 1, k->terms + i, (k->n - i) * sizeof(*k->terms));
	k->terms[i].form = xstrdup(form);
	k->terms[i].count = count;
	k->n++;
}

unsigned kernel_count(const struct kernel *k, const char *form)
{
	for (size_t t = 0; t < k->n; t++)
		if (!strcmp(k->terms[t].form, form))
			return k->terms[t].count;
	return 0;
}

static int valid_form_char(int c)
{
	return isalnum(c) || c == '_' || c == '.';
}

static int parse_term(struct kernel *k, const char *p, size_t len)
{
	size_t name_len = 0;
	unsigned long count = 1;
	char name[128];

	while (name_len < len && valid_form_char((unsigned char)p[name_len]))
		name_len++;
	if (name_len == 0 || name_len >= sizeof(name))
		return perpi_set_error("bad kernel term '%.*s': expected FORM or FORM^N", (int)len, p);
	if (name_len < len) {
		char *end;
		if (p[name_len] != '^' || name_len + 1 == len)
			return perpi_set_error("bad kernel term '%.*s': expected FORM or FORM^N",
					       (int)len, p);
		count = strtoul(p + name_len + 1, &end, 10);
		if (end != p + len || count == 0 || count > 1000000)
			return perpi_set_error("bad multiplicity in kernel term '%.*s'", (int)len, p);
	}
	memcpy(name, p, name_len);
	name[name_len] = '\0';
	kernel_add(k, name, (unsigned)count);
	return 0;
}

int kernel_parse(const char *spec, struct kernel *out)
{
	const char *p = spec;
	kernel_init(out);
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *start = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (parse_term(out, start, (size_t)(p - start)) < 0) {
			kernel_done(out);
			return -1;
		}
	}
	if (out->n == 0)
		return perpi_set_error("empty kernel: give at least one instruction form");
	return 0;
}

char *kernel_to_string(const struct kernel *k)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (size_t i = 0; i < k->n; i++) {
		if (i)
			strbuf_add(&sb, " ", 1);
		if (k->terms[i].count == 1)
			strbuf_addf(&sb, "%s", k->terms[i].form);
		else
			strbuf_addf(&sb, "%s^%u", k->terms[i].form, k->terms[i].count);
	}
	return sb.buf;
}

unsigned kernel_size(const struct kernel *k)
{
	unsigned total = 0;
	for (size_t i = 0; i < k->n; i++)
		total += k->terms[i].count;
	return total;
}

int kernel_stores_in_turn(const struct kernel *k)
{
	const char **names = xmalloc((k->n + 1) * sizeof(*names));
	for (size_t i = 0; i < k->n; i++)
		names[i] = k->terms[i].form;
	int r = form_stores_in_turn(names, k->n);
	free(names);
	return r;
}
