/* ELF inspection: is the program something perpi can run, where are its
 * functions. Used before the program starts (checks, region symbols) and
 * for every shared object the report names (tracer/symbols.c). */
#ifndef PERPI_TRACER_ELF_H
#define PERPI_TRACER_ELF_H

#include <stddef.h>
#include <stdint.h>

struct elf_symbol {
	const char *name; /* owned by the image */
	uint64_t value;	  /* link-time address */
	uint64_t size;
	int ifunc; /* STT_GNU_IFUNC: value is the resolver, not the function */
	int local; /* STB_LOCAL: at an address with a global name too, the global one names it */
};

/* A parsed ELF file; opaque, owned by whoever called elf_image_open. */
struct elf_image;

/* Find PROGRAM the way execvp would (PATH when it has no '/') and check
 * that perpi can run it: a readable, executable x86-64 ELF executable.
 * Returns the path to run (malloc'd), or NULL with perpi_error() set to
 * "NAME: why". */
char *elf_find_program(const char *program);

/* Parse path's ELF header, program headers and symbol tables (function
 * symbols only): .symtab; for a stripped object, the .symtab of its
 * separate debug file (found by build-id under /usr/lib/debug/.build-id,
 * read with libdw), else .dynsym. NULL with perpi_error() set. */
struct elf_image *elf_image_open(const char *path);
/* The same from an image in memory (the vDSO); buf is copied. */
struct elf_image *elf_image_open_memory(const void *buf, size_t len);
void elf_image_delete(struct elf_image *img);

/* The load bias of a mapping of the file at start from file offset
 * offset: run-time address = link-time address + bias. 0 or -1. */
int elf_image_bias(const struct elf_image *img, uint64_t start, uint64_t offset, uint64_t *bias);

int elf_image_is_pie(const struct elf_image *img); /* ET_DYN: loaded at a bias */
uint64_t elf_image_entry(const struct elf_image *img);

/* The function named name (a defined one, .symtab preferred, a global one
 * before a local one), or NULL. */
const struct elf_symbol *elf_image_lookup(const struct elf_image *img, const char *name);

/* The function whose [value, value+size) holds addr (link-time), or one
 * starting exactly at addr; NULL if none. */
const struct elf_symbol *elf_image_find(const struct elf_image *img, uint64_t addr);

/* Whether addr (link-time) is in a PLT section (.plt, .plt.sec, .plt.got):
 * the stubs through which calls reach another object's functions. */
int elf_image_in_plt(const struct elf_image *img, uint64_t addr);

/* The contents of the section name (".text") of the ELF file path, and its
 * link-time address (addr may be NULL). *bytes is malloc'd, with 16 zero
 * bytes after the *len of the section (a decoder may read ahead). 0, or
 * -1 with perpi_error() set. */
int elf_read_section(const char *path, const char *name, uint8_t **bytes, size_t *len,
		     uint64_t *addr);

#endif
