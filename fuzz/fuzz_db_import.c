/* perpi db import (man perpi-db(1)): an export in SQL (first byte even) or
 * CSV (odd) into a fresh database, then exported again. */
#define _GNU_SOURCE 1
#include <stdint.h>
#include <stdio.h>

#include "common/util.h"
#include "fuzz/fuzz_util.h"
#include "palmed/db.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	enum db_format fmt = data[0] & 1 ? DB_FORMAT_CSV : DB_FORMAT_SQL;
	struct db *db;
	if (db_open(":memory:", &db) < 0)
		return 0;
	FILE *in = fmemopen((void *)(data + 1), size - 1, "r");
	if (size == 1)
		in = fopen("/dev/null", "r");
	if (in && db_import(db, in, fmt) == 0)
		db_export(db, devnull, fmt);
	if (in)
		fclose(in);
	db_close(db);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	devnull = fopen("/dev/null", "w");
	return 0;
}
