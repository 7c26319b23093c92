/* modules: the PerfettoSQL standard library embedded in the binary.
 *
 * Every file src/sql/stdlib/<a>/<b>.sql is module `a.b`; the build embeds
 * them (cmake/embed_stdlib.cmake) into sql_stdlib_modules, sorted by name.
 * Modules under `prelude.` run when an engine opens; the others run on
 * their first INCLUDE PERFETTO MODULE (psql_include in modules.c). */
#ifndef WEFT_SQL_MODULES_H
#define WEFT_SQL_MODULES_H

#include <stddef.h>

typedef struct sql_stdlib_module {
  const char *name; /* "a.b" */
  const char *sql;  /* the module's PerfettoSQL text */
} sql_stdlib_module;

/* Terminated by a {NULL, NULL} entry; sql_stdlib_module_count excludes it. */
extern const sql_stdlib_module sql_stdlib_modules[];
extern const size_t sql_stdlib_module_count;

#endif
