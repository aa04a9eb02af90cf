/* Address -> name through a snapshot of /proc/PID/maps. */
#include "tracer/symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tracer/elf.h"
#include "tracer/process.h"

struct sym_object {
	char *path;		 /* file path, or "[vdso]" */
	struct elf_image *image; /* loaded on first use; NULL if unreadable */
	int loaded;
	int is_program;
};

struct sym_mapping {
	uint64_t start, end, offset;
	struct sym_object *object;
};

struct sym_name {
	uint64_t addr;
	char *name;
};

struct symbolizer {
	pid_t pid; /* 0 once the process is gone */
	char *program;
	struct sym_object **objects;
	size_t n_objects;
	struct sym_mapping *maps; /* newest last: later mappings win */
	size_t n_maps, cap_maps;
	struct sym_name *names;	   /* every name handed out, kept for its owner: */
	size_t n_names, cap_names; /* an open-addressing table by address */
	char function[512];	   /* symbolizer_function's last answer */
	size_t last_hit;
};

static struct sym_object *object_get(struct symbolizer *sym, const char *path)
{
	for (size_t i = 0; i < sym->n_objects; i++)
		if (!strcmp(sym->objects[i]->path, path))
			return sym->objects[i];
	struct sym_object *o = xcalloc(1, sizeof(*o));
	o->path = xstrdup(path);
	o->is_program = !strcmp(path, sym->program);
	sym->objects = xrealloc(sym->objects, (sym->n_objects + 1) * sizeof(*sym->objects));
	sym->objects[sym->n_objects++] = o;
	return o;
}

/* The vDSO exists only in the process's memory: read it while it lives. */
static void object_load_vdso(struct symbolizer *sym, struct sym_object *o, uint64_t start,
			     uint64_t end)
{
	size_t len = end - start;
	if (o->loaded || !sym->pid || len > (1 << 20))
		return;
	void *buf = xmalloc(len);
	if (process_read(sym->pid, start, buf, len) == (ssize_t)len)
		o->image = elf_image_open_memory(buf, len);
	free(buf);
	o->loaded = 1;
}

static int mapping_known(const struct symbolizer *sym, uint64_t start, uint64_t end,
			 const struct sym_object *o)
{
	for (size_t i = sym->n_maps; i-- > 0;)
		if (sym->maps[i].start == start && sym->maps[i].end == end &&
		    sym->maps[i].object == o)
			return 1;
	return 0;
}

static void symbolizer_read_maps(struct symbolizer *sym)
{
	char path[64], line[4096 + 128];
	snprintf(path, sizeof(path), "/proc/%d/maps", sym->pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, offset;
		char perms[8];
		int name_at = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &offset,
			   &name_at) < 4 ||
		    !name_at || !strchr(perms, 'x'))
			continue;
		char *name = line + name_at;
		name[strcspn(name, "\n")] = 0;
		if (name[0] != '/' && strcmp(name, "[vdso]"))
			continue;
		struct sym_object *o = object_get(sym, name);
		if (mapping_known(sym, start, end, o))
			continue;
		if (!strcmp(name, "[vdso]"))
			object_load_vdso(sym, o, start, end);
		if (sym->n_maps == sym->cap_maps) {
			sym->cap_maps = sym->cap_maps ? sym->cap_maps * 2 : 32;
			sym->maps = xrealloc(sym->maps, sym->cap_maps * sizeof(*sym->maps));
		}
		sym->maps[sym->n_maps++] = (struct sym_mapping){start, end, offset, o};
	}
	fclose(f);
}

struct symbolizer *symbolizer_new(pid_t pid, const char *program)
{
	struct symbolizer *sym = xcalloc(1, sizeof(*sym));
	sym->pid = pid;
	/* maps show the canonical path */
	char *real = realpath(program, NULL);
	sym->program = real ? real : xstrdup(program);
	symbolizer_read_maps(sym);
	return sym;
}

void symbolizer_delete(struct symbolizer *sym)
{
	if (!sym)
		return;
	for (size_t i = 0; i < sym->n_objects; i++) {
		elf_image_delete(sym->objects[i]->image);
		free(sym->objects[i]->path);
		free(sym->objects[i]);
	}
	for (size_t i = 0; i < sym->cap_names; i++)
		free(sym->names[i].name);
	free(sym->names);
	free(sym->program);
	free(sym);
}

static const struct sym_mapping *mapping_find(struct symbolizer *sym, uint64_t addr)
{
	if (sym->last_hit < sym->n_maps) {
		const struct sym_mapping *m = &sym->maps[sym->last_hit];
		if (addr >= m->start && addr < m->end)
			return m;
	}
	for (size_t i = sym->n_maps; i-- > 0;)
		if (addr >= sym->maps[i].start && addr < sym->maps[i].end) {
			sym->last_hit = i;
			return &sym->maps[i];
		}
	return NULL;
}

void symbolizer_note(struct symbolizer *sym, uint64_t addr)
{
	if (!mapping_find(sym, addr) && sym->pid)
		symbolizer_read_maps(sym);
}

void symbolizer_refresh(struct symbolizer *sym)
{
	if (sym->pid)
		symbolizer_read_maps(sym);
}

static void object_load(struct sym_object *o)
{
	if (!o->loaded) {
		o->image = elf_image_open(o->path);
		o->loaded = 1;
	}
}

/* As the dynamic linker binds: the first object exporting name (a global
 * symbol); failing that, a local one (a static function named by a debug
 * file, ld.so's own strlen...). */
int symbolizer_lookup(struct symbolizer *sym, const char *name, uint64_t *addr)
{
	for (int local = 0; local < 2; local++)
		for (size_t i = 0; i < sym->n_maps; i++) {
			const struct sym_mapping *m = &sym->maps[i];
			if (m->object->is_program)
				continue;
			object_load(m->object);
			const struct elf_symbol *s;
			uint64_t bias;
			if (m->object->image && (s = elf_image_lookup(m->object->image, name)) &&
			    s->local == local &&
			    elf_image_bias(m->object->image, m->start, m->offset, &bias) == 0) {
				*addr = s->value + bias;
				return s->ifunc ? -2 : 0;
			}
		}
	return -1;
}

void symbolizer_forget_process(struct symbolizer *sym)
{
	sym->pid = 0;
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The mapping holding addr, its object loaded, and the object's load bias. */
static struct sym_object *object_of(struct symbolizer *sym, uint64_t addr, uint64_t *bias)
{
	const struct sym_mapping *m = mapping_find(sym, addr);
	if (!m && sym->pid) {
		symbolizer_read_maps(sym);
		m = mapping_find(sym, addr);
	}
	if (!m)
		return NULL;
	object_load(m->object);
	if (!m->object->image || elf_image_bias(m->object->image, m->start, m->offset, bias) < 0)
		return NULL;
	return m->object;
}

static char *name_of(struct symbolizer *sym, uint64_t addr)
{
	uint64_t bias;
	struct sym_object *o = object_of(sym, addr, &bias);
	if (!o)
		return NULL;
	const struct elf_symbol *s = elf_image_find(o->image, addr - bias);
	if (!s) /* the same in every run, whatever the load address */
		return xasprintf("%s+%#llx", basename_of(o->path),
				 (unsigned long long)(addr - bias));
	uint64_t off = addr - bias - s->value;
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s", s->name);
	if (off)
		strbuf_addf(&sb, "+%#llx", (unsigned long long)off);
	if (!o->is_program)
		strbuf_addf(&sb, "@%s", basename_of(o->path));
	return sb.buf;
}

static size_t name_slot(const struct symbolizer *sym, uint64_t addr)
{
	size_t i = (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 20) & (sym->cap_names - 1);
	while (sym->names[i].name && sym->names[i].addr != addr)
		i = (i + 1) & (sym->cap_names - 1);
	return i;
}

static void names_grow(struct symbolizer *sym)
{
	struct sym_name *old = sym->names;
	size_t cap = sym->cap_names;
	sym->cap_names = cap ? 2 * cap : 1024;
	sym->names = xcalloc(sym->cap_names, sizeof(*sym->names));
	for (size_t i = 0; i < cap; i++)
		if (old[i].name)
			sym->names[name_slot(sym, old[i].addr)] = old[i];
	free(old);
}

const char *symbolizer_name(struct symbolizer *sym, uint64_t addr)
{
	if (2 * (sym->n_names + 1) > sym->cap_names)
		names_grow(sym);
	size_t i = name_slot(sym, addr);
	if (sym->names[i].name)
		return sym->names[i].name;
	char *name = name_of(sym, addr);
	sym->names[i] =
	    (struct sym_name){addr, name ? name : xasprintf("%#llx", (unsigned long long)addr)};
	sym->n_names++;
	return sym->names[i].name;
}

const char *symbolizer_name_fn(void *ctx, uint64_t addr)
{
	return symbolizer_name(ctx, addr);
}

const char *symbolizer_function(struct symbolizer *sym, uint64_t addr, uint64_t *offset)
{
	symbolizer_note(sym, addr);
	const char *s = symbolizer_name(sym, addr);
	*offset = 0;
	if (!s || !strncmp(s, "0x", 2))
		return NULL;
	snprintf(sym->function, sizeof(sym->function), "%s", s);
	char *plus = strstr(sym->function, "+0x");
	if (plus) {
		char *end;
		*offset = strtoull(plus + 3, &end, 16);
		memmove(plus, end, strlen(end) + 1);
	}
	return sym->function;
}

static int in_plt(struct symbolizer *sym, uint64_t addr)
{
	uint64_t bias;
	struct sym_object *o = object_of(sym, addr, &bias);
	return o && elf_image_in_plt(o->image, addr - bias);
}

unsigned symbolizer_follow_plt(struct symbolizer *sym, struct symbolizer_plt *plt,
			       const struct perpi_event *ev)
{
	unsigned last = plt->last_control;
	plt->last_control = ev->insn->control;
	while (plt->n && ev->sp > plt->sp[plt->n - 1]) /* returned, or unwound */
		plt->n--;
	if (last == CTRL_CALL) {
		if (in_plt(sym, ev->insn->addr) && plt->n < ARRAY_SIZE(plt->sp))
			plt->sp[plt->n++] = ev->sp;
		return 0;
	}
	if (!plt->n || last != CTRL_JUMP || ev->sp != plt->sp[plt->n - 1] ||
	    in_plt(sym, ev->insn->addr))
		return 0;
	plt->n--;
	return EVENT_CALL_TARGET;
}
