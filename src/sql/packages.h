/* packages: user PerfettoSQL packages (--add-sql-package and
 * --override-sql-package).
 *
 * A package is a directory read once, when registered: every file under it
 * whose name ends in `.sql` is a module named PACKAGE.REL, REL being the
 * file's path relative to the directory without `.sql`, its `/` turned into
 * `.` (a/b.sql of package p is module p.a.b). A file whose REL has a dot of
 * its own cannot be named so and is skipped, as are other files. A
 * directory with no module registers nothing.
 *
 * Names: a package may not share its name with a registered one (the
 * standard library's packages included) unless it overrides it, nor be a
 * dot-separated prefix of one or have one as its prefix. An override
 * replaces the whole package: none of the old package's modules stay.
 *
 * Reading is bounded: SQL_PACKAGE_MAX_DEPTH nested directories (a symlink
 * loop stops there), SQL_PACKAGE_MAX_FILE_BYTES per file, and
 * SQL_PACKAGE_MAX_MODULES modules per package; past them, and on a file or
 * directory that cannot be read, registration fails naming the path. */
#ifndef WEFT_SQL_PACKAGES_H
#define WEFT_SQL_PACKAGES_H

#include <stddef.h>

#include "base/base.h"

#define SQL_PACKAGE_MAX_DEPTH 32
#define SQL_PACKAGE_MAX_FILE_BYTES ((size_t)64 << 20)
#define SQL_PACKAGE_MAX_MODULES 100000

typedef struct sql_package_module {
  char *name; /* "package.a.b" */
  char *sql;
} sql_package_module;

typedef struct sql_package {
  char *name;
  sql_package_module *modules; /* sorted by name */
  size_t module_count;
  size_t module_cap;
} sql_package;

typedef struct sql_packages {
  sql_package *items;
  size_t count;
} sql_packages;

/* Registers the package of every options entry: the overrides first, then
 * the others, each kind in order. `pk` must be zeroed or freed. */
int sql_packages_load(sql_packages *pk, const weft_sql_package *list,
                      size_t count, base_error *err);
/* Registers directory `dir` as package `name` (NULL or "": the directory's
 * own name); `override` allows replacing a package of that name. */
int sql_packages_add(sql_packages *pk, const char *dir, const char *name,
                     int override, base_error *err);
void sql_packages_free(sql_packages *pk);

/* The package whose name is `module` or a dot-separated prefix of it, or
 * NULL. */
const sql_package *sql_packages_find(const sql_packages *pk, const char *module);

/* Nonzero if `name` is a top-level package of Perfetto's standard library. */
int sql_stdlib_is_package(const char *name, size_t len);
/* The standard library's packages, for the name checks. */
extern const char *const sql_stdlib_packages[];
extern const size_t sql_stdlib_package_count;

#endif
