/* Source lines through libdwfl, the program's file reported offline. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/srcline.h"

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>
#include <gelf.h>

struct fn_addr {
	const char *name; /* owned by dwfl */
	GElf_Addr addr;
};

struct srcline {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct fn_addr *fns; /* sorted by name */
	size_t n_fns;
};

static const Dwfl_Callbacks offline_callbacks = {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct fn_addr *)a)->name, ((const struct fn_addr *)b)->name);
}

static void read_functions(struct srcline *s)
{
	int n = dwfl_module_getsymtab(s->mod);
	s->fns = xcalloc(n > 0 ? n : 1, sizeof(*s->fns));
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name =
		    dwfl_module_getsym_info(s->mod, i, &sym, &addr, NULL, NULL, NULL);
		if (name && *name && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
		    sym.st_shndx != SHN_UNDEF)
			s->fns[s->n_fns++] = (struct fn_addr){name, addr};
	}
	qsort(s->fns, s->n_fns, sizeof(*s->fns), by_name);
}

struct srcline *srcline_open(const char *path)
{
	struct srcline *s = xcalloc(1, sizeof(*s));
	s->dwfl = dwfl_begin(&offline_callbacks);
	if (s->dwfl)
		s->mod = dwfl_report_offline(s->dwfl, "", path, -1);
	if (!s->mod) {
		perpi_set_error("%s: cannot read it for source lines: %s", path,
				dwfl_errmsg(-1) ? dwfl_errmsg(-1) : "unknown error");
		srcline_close(s);
		return NULL;
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	Dwarf_Addr bias;
	if (!dwfl_module_getdwarf(s->mod, &bias)) {
		perpi_set_error("%s: no DWARF line information (build it with -g)", path);
		srcline_close(s);
		return NULL;
	}
	read_functions(s);
	return s;
}

void srcline_close(struct srcline *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	free(s->fns);
	free(s);
}

int srcline_lookup(struct srcline *s, const char *function, uint64_t offset, const char **file,
		   unsigned *line)
{
	struct fn_addr key = {function, 0};
	const struct fn_addr *f = bsearch(&key, s->fns, s->n_fns, sizeof(*s->fns), by_name);
	if (!f)
		return -1;
	Dwfl_Line *l = dwfl_module_getsrc(s->mod, f->addr + offset);
	int lineno = 0;
	const char *src = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (!src || lineno <= 0)
		return -1;
	*file = src;
	*line = (unsigned)lineno;
	return 0;
}

#else /* !HAVE_LIBDW */

struct srcline *srcline_open(const char *path)
{
	perpi_set_error("%s: no source lines: perpi was built without libdw", path);
	return NULL;
}

void srcline_close(struct srcline *s)
{
}

int srcline_lookup(struct srcline *s, const char *function, uint64_t offset, const char **file,
		   unsigned *line)
{
	return -1;
}

#endif
