/* INCLUDE PERFETTO MODULE over the embedded standard library (see
 * modules.h and psql.h). A module runs once per engine: it is marked
 * included before it runs, so modules that include each other in a cycle
 * stop there instead of recursing. */
#include "sql/modules.h"

#include <stdio.h>

#include "sql/packages.h"
#include "sql/psql.h"

static int psql_is_included(const psql *ps, const char *name) {
  for (size_t i = 0; i < ps->included_count; i++)
    if (strcmp(ps->included[i], name) == 0) return 1;
  return 0;
}

static int psql_mark_included(psql *ps, const char *name, base_error *err) {
  char **grown = base_realloc(ps->included, (ps->included_count + 1) * sizeof *grown);
  if (!grown) return base_error_nomem(err);
  ps->included = grown;
  if (!(ps->included[ps->included_count] = base_strndup(name, strlen(name))))
    return base_error_nomem(err);
  ps->included_count++;
  return WEFT_OK;
}

static int psql_run_module(psql *ps, const char *name, const char *sql,
                           base_error *err) {
  if (psql_is_included(ps, name)) return WEFT_OK;
  if (ps->include_depth >= PSQL_MAX_INCLUDE_DEPTH)
    return base_error_set(err, WEFT_ESQL, "module includes nested deeper than %d",
                          PSQL_MAX_INCLUDE_DEPTH);
  int rc = psql_mark_included(ps, name, err);
  if (rc) return rc;
  ps->include_depth++;
  rc = psql_execute(ps, name, sql, NULL, err);
  ps->include_depth--;
  return rc;
}

/* Nonzero if module `name` matches `pattern`: equal, or pattern `p.*`
 * with name under `p.`, or `*`. */
static int psql_module_matches(const char *pattern, const char *name) {
  size_t n = strlen(pattern);
  if (n >= 1 && pattern[n - 1] == '*') {
    if (n == 1) return 1;
    if (n < 2 || pattern[n - 2] != '.') return 0;
    return strncmp(name, pattern, n - 1) == 0;
  }
  return strcmp(name, pattern) == 0;
}

/* Including an unknown module of a known package is an "unknown module",
 * anything else an unknown package (named by the whole module name). */
static int psql_unknown_module(const psql *ps, const char *name, base_error *err) {
  if (sql_packages_find(ps->packages, name) ||
      sql_stdlib_is_package(name, strcspn(name, ".")))
    return base_error_set(err, WEFT_ESQL, "INCLUDE: unknown module '%s'", name);
  return base_error_set(err, WEFT_ESQL, "INCLUDE: Package '%s' not found", name);
}

/* The modules of user package `p` matching `name`; *found is set if any. */
static int psql_include_user(psql *ps, const sql_package *p, const char *name,
                             int *found, base_error *err) {
  for (size_t i = 0; i < p->module_count; i++) {
    const sql_package_module *m = &p->modules[i];
    if (!psql_module_matches(name, m->name)) continue;
    *found = 1;
    int rc = psql_run_module(ps, m->name, m->sql, err);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* Nonzero if a user package shadows the stdlib package of module `name`. */
static int psql_stdlib_shadowed(const psql *ps, const char *name) {
  const sql_package *p = sql_packages_find(ps->packages, name);
  return p && sql_stdlib_is_package(p->name, strlen(p->name));
}

int psql_include(psql *ps, const char *name, base_error *err) {
  int wildcard = strchr(name, '*') != NULL;
  if (wildcard && ps->include_depth > 0)
    return base_error_set(err, WEFT_ESQL,
                          "INCLUDE PERFETTO MODULE %s: wildcards are not allowed in modules",
                          name);
  int found = 0;
  for (size_t i = 0; i < sql_stdlib_module_count; i++) {
    const sql_stdlib_module *m = &sql_stdlib_modules[i];
    if (!psql_module_matches(name, m->name)) continue;
    if (wildcard && strncmp(m->name, "prelude.", 8) == 0) continue;
    if (psql_stdlib_shadowed(ps, m->name)) continue;
    found = 1;
    int rc = psql_run_module(ps, m->name, m->sql, err);
    if (rc) return rc;
  }
  for (size_t i = 0; ps->packages && i < ps->packages->count; i++) {
    int rc = psql_include_user(ps, &ps->packages->items[i], name, &found, err);
    if (rc) return rc;
  }
  if (found || wildcard) return WEFT_OK;
  return psql_unknown_module(ps, name, err);
}

int psql_run_prelude(psql *ps, base_error *err) {
  for (size_t i = 0; i < sql_stdlib_module_count; i++) {
    const sql_stdlib_module *m = &sql_stdlib_modules[i];
    if (strncmp(m->name, "prelude.", 8) != 0) continue;
    int rc = psql_run_module(ps, m->name, m->sql, err);
    if (rc) return rc;
  }
  return WEFT_OK;
}
