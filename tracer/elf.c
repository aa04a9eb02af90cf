/* ELF checks and function symbols, with libelf. */
#include "tracer/elf.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "config.h"

#ifdef HAVE_LIBDW
#include <elfutils/libdwelf.h>
#endif

/* Where separate debug files are found by build-id (libc6-dbg's, for one). */
#define DEBUG_BUILD_ID_DIR "/usr/lib/debug/.build-id"

struct elf_load {
	uint64_t vaddr, offset;
};

struct elf_image {
	int is_pie;
	struct elf_load *loads;
	size_t n_loads;
	void *memory; /* the image, when opened from memory */
	uint64_t entry;
	struct elf_symbol *syms; /* sorted by value */
	size_t n_syms;
	char *names; /* all names, one block */
	size_t names_len, names_cap;
	struct elf_range {
		uint64_t start, end;
	} plt[4]; /* .plt, .plt.sec, .plt.got: link-time */
	size_t n_plt;
};

/* Why the first bytes of a file are no program for perpi, or NULL. */
static const char *elf_header_problem(const unsigned char *h, size_t n)
{
	if (n >= 2 && h[0] == '#' && h[1] == '!')
		return "not an ELF file (a script: run its interpreter under perpi)";
	if (n < EI_NIDENT || memcmp(h, ELFMAG, SELFMAG))
		return "not an ELF file";
	if (h[EI_CLASS] == ELFCLASS32)
		return "32-bit programs are not supported (perpi traces x86-64 programs)";
	if (h[EI_CLASS] != ELFCLASS64 || h[EI_DATA] != ELFDATA2LSB || n < sizeof(Elf64_Ehdr))
		return "not an x86-64 ELF file";
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)h;
	if (eh->e_machine != EM_X86_64)
		return "not an x86-64 program (other machine type)";
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return "not an executable (an object file or core dump?)";
	return NULL;
}

static int elf_check_file(const char *path, const char *shown)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return perpi_set_error("%s: %s", shown, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return perpi_set_error("%s: is a directory", shown);
	if (access(path, X_OK) < 0)
		return perpi_set_error("%s: not executable (%s; chmod +x it?)", shown,
				       strerror(errno));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return perpi_set_error("%s: %s", shown, strerror(errno));
	unsigned char h[sizeof(Elf64_Ehdr)];
	ssize_t n = read(fd, h, sizeof(h));
	close(fd);
	const char *why = elf_header_problem(h, n < 0 ? 0 : (size_t)n);
	if (why)
		return perpi_set_error("%s: %s", shown, why);
	return 0;
}

char *elf_find_program(const char *program)
{
	if (!*program) {
		perpi_set_error("'': no program given");
		return NULL;
	}
	if (strchr(program, '/'))
		return elf_check_file(program, program) < 0 ? NULL : xstrdup(program);
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char *cand = xasprintf("%.*s/%s", (int)len, len ? path : ".", program);
		if (access(cand, X_OK) == 0) {
			struct stat st;
			if (stat(cand, &st) == 0 && !S_ISDIR(st.st_mode)) {
				/* name what PATH found: a wrapper script (pyenv's shims) hides
				 * the ELF program further down the PATH */
				char *shown = xasprintf("%s (%s)", program, cand);
				int bad = elf_check_file(cand, shown) < 0;
				free(shown);
				if (bad) {
					free(cand);
					return NULL;
				}
				return cand;
			}
		}
		free(cand);
		path += len + (path[len] == ':');
	}
	perpi_set_error("%s: command not found (give a path, e.g. ./%s)", program, program);
	return NULL;
}

static size_t image_add_name(struct elf_image *img, const char *name)
{
	size_t n = strlen(name) + 1;
	if (img->names_len + n > img->names_cap) {
		img->names_cap = (img->names_cap + n) * 2;
		img->names = xrealloc(img->names, img->names_cap);
	}
	memcpy(img->names + img->names_len, name, n);
	img->names_len += n;
	return img->names_len - n;
}

static void image_add_symbol(struct elf_image *img, size_t *cap, const char *name, uint64_t value,
			     uint64_t size, int ifunc, int local)
{
	if (img->n_syms == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		img->syms = xrealloc(img->syms, *cap * sizeof(*img->syms));
	}
	/* name holds an offset until the names block stops moving */
	img->syms[img->n_syms++] = (struct elf_symbol){
	    (const char *)(uintptr_t)image_add_name(img, name), value, size, ifunc, local};
}

/* Function symbols of one symbol table section; 1 if it had any. */
static int image_read_symtab(struct elf_image *img, Elf *elf, Elf_Scn *scn, size_t *cap)
{
	GElf_Shdr sh;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!gelf_getshdr(scn, &sh) || !data || !sh.sh_entsize)
		return 0;
	size_t count = sh.sh_size / sh.sh_entsize, added = 0;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name || !*name || *name == '@')
			continue;
		/* "dlopen@GLIBC_2.2.5", "dlsym@@GLIBC_2.34" (.symver): the function
		 * is "dlopen"; perpi's names use '@' for the object. glibc's
		 * hidden alias "__GI_puts" is puts. */
		if (!strncmp(name, "__GI_", 5) && name[5])
			name += 5;
		char *plain = xasprintf("%.*s", (int)strcspn(name, "@"), name);
		image_add_symbol(img, cap, plain, s.st_value, s.st_size, type == STT_GNU_IFUNC,
				 GELF_ST_BIND(s.st_info) == STB_LOCAL);
		free(plain);
		added++;
	}
	return added > 0;
}

/* The GOT slots that .rela.plt / .rela.dyn bind to a named symbol. */
struct plt_slot {
	uint64_t slot;
	const char *name; /* in the ELF's string table */
};

static size_t plt_slots(Elf *elf, struct plt_slot **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !data || !sh.sh_entsize)
			continue;
		Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
		Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
		if (!syms || !gelf_getshdr(symscn, &symsh))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			int type;
			if (!gelf_getrela(data, (int)i, &r))
				continue;
			type = (int)GELF_R_TYPE(r.r_info);
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				*out = xrealloc(*out, cap * sizeof(**out));
			}
			(*out)[n++] = (struct plt_slot){r.r_offset, name};
		}
	}
	return n;
}

/* "NAME@plt" for the stubs of one PLT section: each is an indirect jmp
 * through a GOT slot (ff 25 disp32, maybe after endbr64 and a bnd prefix)
 * that a relocation binds to NAME. */
static void plt_stubs(struct elf_image *img, const GElf_Shdr *sh, const uint8_t *b, size_t size,
		      const struct plt_slot *slots, size_t n_slots, size_t *cap)
{
	for (size_t p = 0; p + 6 <= size; p++) {
		if (b[p] != 0xff || b[p + 1] != 0x25)
			continue;
		int32_t disp;
		memcpy(&disp, b + p + 2, 4);
		uint64_t slot = sh->sh_addr + p + 6 + (int64_t)disp;
		size_t k = 0;
		while (k < n_slots && slots[k].slot != slot)
			k++;
		if (k == n_slots)
			continue;
		size_t start = p;
		if (start >= 1 && b[start - 1] == 0xf2)
			start--;
		if (start >= 4 && !memcmp(b + start - 4, "\xf3\x0f\x1e\xfa", 4))
			start -= 4;
		char *name = xasprintf("%s@plt", slots[k].name);
		image_add_symbol(img, cap, name, sh->sh_addr + start, p + 6 - start, 0, 0);
		free(name);
	}
}

/* The PLT sections (.plt, .plt.sec, .plt.got): their ranges, and a symbol
 * per stub. */
static void image_read_plt(struct elf_image *img, Elf *elf, size_t *cap)
{
	struct plt_slot *slots;
	size_t n_slots = plt_slots(elf, &slots), shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0) {
		free(slots);
		return;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data = elf_getdata(scn, NULL);
		const char *sname;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !data ||
		    !data->d_buf || !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strncmp(sname, ".plt", 4))
			continue;
		if (img->n_plt < ARRAY_SIZE(img->plt))
			img->plt[img->n_plt++] =
			    (struct elf_range){sh.sh_addr, sh.sh_addr + sh.sh_size};
		plt_stubs(img, &sh, data->d_buf, data->d_size, slots, n_slots, cap);
	}
	free(slots);
}

/* At one address, the name that says most to a reader, the same in every
 * run: sized before unsized, global before local, fewer leading
 * underscores, then by name. */
static int symbol_cmp(const void *a, const void *b)
{
	const struct elf_symbol *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->local != y->local)
		return x->local - y->local;
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The .symtab of the separate debug file of a stripped object, found by
 * its build-id (DEBUG_BUILD_ID_DIR/ab/cdef....debug); 1 if it had any. */
static int image_read_debug_symtab(struct elf_image *img, Elf *elf, size_t *cap)
{
#ifdef HAVE_LIBDW
	const unsigned char *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, (const void **)&id);
	if (n < 2 || n > 64)
		return 0;
	char path[sizeof(DEBUG_BUILD_ID_DIR) + 140] = DEBUG_BUILD_ID_DIR, *p = path + strlen(path);
	p += snprintf(p, 8, "/%02x/", id[0]);
	for (ssize_t i = 1; i < n; i++)
		p += snprintf(p, 3, "%02x", id[i]);
	strcpy(p, ".debug");
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	Elf *dbg = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while (dbg && (scn = elf_nextscn(dbg, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			found |= image_read_symtab(img, dbg, scn, cap);
	if (dbg)
		elf_end(dbg);
	if (fd >= 0)
		close(fd);
	return found;
#else
	return 0; /* build-ids are read with libdw */
#endif
}

static void image_read_symbols(struct elf_image *img, Elf *elf)
{
	size_t cap = 0;
	Elf_Scn *scn = NULL, *dynsym = NULL;
	int have_symtab = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			have_symtab |= image_read_symtab(img, elf, scn, &cap);
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	/* A stripped object: its separate debug file's .symtab, else .dynsym,
	 * which repeats the global part of .symtab. */
	if (!have_symtab)
		have_symtab = image_read_debug_symtab(img, elf, &cap);
	if (!have_symtab && dynsym)
		image_read_symtab(img, elf, dynsym, &cap);
	image_read_plt(img, elf, &cap);
	for (size_t i = 0; i < img->n_syms; i++)
		img->syms[i].name = img->names + (uintptr_t)img->syms[i].name;
	if (img->n_syms)
		qsort(img->syms, img->n_syms, sizeof(*img->syms), symbol_cmp);
}

static void image_read_loads(struct elf_image *img, Elf *elf)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) < 0)
		return;
	img->loads = xcalloc(n, sizeof(*img->loads));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			img->loads[img->n_loads++] = (struct elf_load){ph.p_vaddr, ph.p_offset};
	}
}

static struct elf_image *image_from_elf(Elf *elf, const char *what)
{
	GElf_Ehdr eh;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		perpi_set_error("%s: not an ELF file", what);
		return NULL;
	}
	struct elf_image *img = xcalloc(1, sizeof(*img));
	img->is_pie = eh.e_type == ET_DYN;
	img->entry = eh.e_entry;
	image_read_loads(img, elf);
	image_read_symbols(img, elf);
	return img;
}

struct elf_image *elf_image_open(const char *path)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perpi_set_error("%s: %s", path, strerror(errno));
		return NULL;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	struct elf_image *img = image_from_elf(elf, path);
	if (elf)
		elf_end(elf);
	close(fd);
	return img;
}

struct elf_image *elf_image_open_memory(const void *buf, size_t len)
{
	elf_version(EV_CURRENT);
	void *copy = memcpy(xmalloc(len), buf, len);
	Elf *elf = elf_memory(copy, len);
	struct elf_image *img = image_from_elf(elf, "[vdso]");
	if (elf)
		elf_end(elf);
	if (img)
		img->memory = copy;
	else
		free(copy);
	return img;
}

int elf_image_bias(const struct elf_image *img, uint64_t start, uint64_t offset, uint64_t *bias)
{
	for (size_t i = 0; i < img->n_loads; i++)
		if ((img->loads[i].offset & ~4095ULL) == offset) {
			*bias = start - (img->loads[i].vaddr & ~4095ULL);
			return 0;
		}
	return -1;
}

void elf_image_delete(struct elf_image *img)
{
	if (!img)
		return;
	free(img->syms);
	free(img->names);
	free(img->loads);
	free(img->memory);
	free(img);
}

int elf_image_is_pie(const struct elf_image *img)
{
	return img->is_pie;
}

uint64_t elf_image_entry(const struct elf_image *img)
{
	return img->entry;
}

const struct elf_symbol *elf_image_lookup(const struct elf_image *img, const char *name)
{
	const struct elf_symbol *local = NULL;
	for (size_t i = 0; i < img->n_syms; i++)
		if (!strcmp(img->syms[i].name, name)) {
			if (!img->syms[i].local)
				return &img->syms[i];
			local = local ? local : &img->syms[i];
		}
	return local;
}

int elf_image_in_plt(const struct elf_image *img, uint64_t addr)
{
	for (size_t i = 0; i < img->n_plt; i++)
		if (addr >= img->plt[i].start && addr < img->plt[i].end)
			return 1;
	return 0;
}

const struct elf_symbol *elf_image_find(const struct elf_image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->n_syms;
	while (lo < hi) { /* first symbol with value > addr */
		size_t mid = (lo + hi) / 2;
		if (img->syms[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* the first of the symbols at the greatest value <= addr */
	uint64_t value = img->syms[lo - 1].value;
	while (lo > 1 && img->syms[lo - 2].value == value)
		lo--;
	const struct elf_symbol *s = &img->syms[lo - 1];
	if (s->value == addr || addr - s->value < s->size)
		return s;
	return NULL;
}

int elf_read_section(const char *path, const char *name, uint8_t **bytes, size_t *len,
		     uint64_t *addr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return perpi_set_error("%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	int rc = perpi_set_error("%s: no %s section", path, name);
	while (e && elf_getshdrstrndx(e, &shstrndx) == 0 && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *sname;
		if (!gelf_getshdr(scn, &sh) || !(sname = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    strcmp(sname, name))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		*len = d && d->d_buf ? d->d_size : 0;
		*bytes = xcalloc(1, *len + 16);
		if (*len)
			memcpy(*bytes, d->d_buf, *len);
		if (addr)
			*addr = sh.sh_addr;
		rc = 0;
		break;
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}
