/* INCLUDE PERFETTO MODULE over the embedded standard library (see
 * modules.h and psql.h). A module runs once per engine: it is marked
 * included before it runs, so modules that include each other in a cycle
 * stop there instead of recursing. */
#include "sql/modules.h"

#include <stdio.h>

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

static int psql_run_module(psql *ps, const sql_stdlib_module *m, base_error *err) {
  if (psql_is_included(ps, m->name)) return WEFT_OK;
  if (ps->include_depth >= PSQL_MAX_INCLUDE_DEPTH)
    return base_error_set(err, WEFT_ESQL, "module includes nested deeper than %d",
                          PSQL_MAX_INCLUDE_DEPTH);
  int rc = psql_mark_included(ps, m->name, err);
  if (rc) return rc;
  ps->include_depth++;
  rc = psql_execute(ps, m->name, m->sql, NULL, err);
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

/* The top-level packages of Perfetto's standard library: including an
 * unknown module of one of them is an "unknown module", anything else an
 * unknown package. */
static const char *const psql_packages[] = {
    "android", "appleos", "chrome", "counters", "export", "graphs", "intervals",
    "linux", "pixel", "pkvm", "prelude", "sched", "slices", "stacks", "std",
    "time", "traced", "v8", "wattson", "traceinfo", "viz", "metasql"};

static int psql_unknown_module(const char *name, base_error *err) {
  size_t n = strcspn(name, ".");
  for (size_t i = 0; i < sizeof psql_packages / sizeof *psql_packages; i++)
    if (strlen(psql_packages[i]) == n && strncmp(psql_packages[i], name, n) == 0)
      return base_error_set(err, WEFT_ESQL, "INCLUDE: unknown module '%s'", name);
  return base_error_set(err, WEFT_ESQL, "INCLUDE: Package '%.*s' not found", (int)n, name);
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
    found = 1;
    int rc = psql_run_module(ps, m, err);
    if (rc) return rc;
  }
  if (found || wildcard) return WEFT_OK;
  return psql_unknown_module(name, err);
}

int psql_run_prelude(psql *ps, base_error *err) {
  for (size_t i = 0; i < sql_stdlib_module_count; i++) {
    const sql_stdlib_module *m = &sql_stdlib_modules[i];
    if (strncmp(m->name, "prelude.", 8) != 0) continue;
    int rc = psql_run_module(ps, m, err);
    if (rc) return rc;
  }
  return WEFT_OK;
}
