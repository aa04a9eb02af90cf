/* Shared by db.c and db_io.c only. */
#ifndef PERPI_DB_PRIVATE_H
#define PERPI_DB_PRIVATE_H

#include <sqlite3.h>

#define DB_APPLICATION_ID 0x70657270 /* "perp" */
#define DB_VERSION 1

struct db {
	sqlite3 *sql;
	char *path;
	long long machine_id; /* 0 until the running machine is recorded */
};

/* Sets perpi_error() from SQLite's last message; returns -1. */
int db_sql_error(struct db *db, const char *what);

#endif
