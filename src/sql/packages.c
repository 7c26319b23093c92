/* User PerfettoSQL packages: reading a directory into modules, and the
 * rules on package names (see packages.h). */
#include "sql/packages.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

/* The top-level packages of Perfetto's standard library. */
const char *const sql_stdlib_packages[] = {
    "android", "appleos", "chrome", "counters", "export", "graphs", "intervals",
    "linux", "pixel", "pkvm", "prelude", "sched", "slices", "stacks", "std",
    "time", "traced", "v8", "wattson", "traceinfo", "viz", "metasql"};
const size_t sql_stdlib_package_count =
    sizeof sql_stdlib_packages / sizeof *sql_stdlib_packages;

int sql_stdlib_is_package(const char *name, size_t len) {
  for (size_t i = 0; i < sql_stdlib_package_count; i++)
    if (strlen(sql_stdlib_packages[i]) == len &&
        strncmp(sql_stdlib_packages[i], name, len) == 0)
      return 1;
  return 0;
}

/* Nonzero if `prefix` is `name` up to one of its dots. */
static int pk_is_dot_prefix(const char *prefix, const char *name) {
  size_t n = strlen(prefix);
  return strncmp(prefix, name, n) == 0 && name[n] == '.';
}

static void pk_package_free(sql_package *p) {
  for (size_t i = 0; i < p->module_count; i++) {
    base_free(p->modules[i].name);
    base_free(p->modules[i].sql);
  }
  base_free(p->modules);
  base_free(p->name);
  memset(p, 0, sizeof *p);
}

void sql_packages_free(sql_packages *pk) {
  for (size_t i = 0; i < pk->count; i++) pk_package_free(&pk->items[i]);
  base_free(pk->items);
  memset(pk, 0, sizeof *pk);
}

const sql_package *sql_packages_find(const sql_packages *pk, const char *module) {
  if (!pk) return NULL;
  for (size_t i = 0; i < pk->count; i++) {
    const char *name = pk->items[i].name;
    if (strcmp(name, module) == 0 || pk_is_dot_prefix(name, module))
      return &pk->items[i];
  }
  return NULL;
}

/* --- reading the directory --- */

typedef struct pk_walk {
  sql_package *package;
  char path[4096]; /* the directory or file at hand */
  char rel[4096];  /* its module path: "a.b" for a/b.sql */
  base_error *err;
} pk_walk;

static char *pk_read_file(const char *path, base_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    base_error_set(err, WEFT_EIO, "Cannot read file '%s': %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  char *text = NULL;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    base_error_set(err, WEFT_EIO, "Cannot read file '%s': not a regular file", path);
  } else if ((uint64_t)st.st_size > SQL_PACKAGE_MAX_FILE_BYTES) {
    base_error_set(err, WEFT_ELIMIT, "Cannot read file '%s': larger than %zu MiB",
                   path, SQL_PACKAGE_MAX_FILE_BYTES >> 20);
  } else if (!(text = base_malloc((size_t)st.st_size + 1))) {
    base_error_nomem(err);
  } else {
    size_t n = fread(text, 1, (size_t)st.st_size, f);
    if (ferror(f)) {
      base_error_set(err, WEFT_EIO, "Cannot read file '%s': %s", path, strerror(errno));
      base_free(text);
      text = NULL;
    } else {
      text[n] = '\0';
    }
  }
  fclose(f);
  return text;
}

static int pk_add_module(pk_walk *wk) {
  sql_package *p = wk->package;
  if (p->module_count >= SQL_PACKAGE_MAX_MODULES)
    return base_error_set(wk->err, WEFT_ELIMIT, "more than %d modules in package '%s'",
                          SQL_PACKAGE_MAX_MODULES, p->name);
  if (p->module_count == p->module_cap) {
    size_t cap = p->module_cap ? p->module_cap * 2 : 16;
    sql_package_module *grown = base_realloc(p->modules, cap * sizeof *grown);
    if (!grown) return base_error_nomem(wk->err);
    p->modules = grown;
    p->module_cap = cap;
  }
  char *sql = pk_read_file(wk->path, wk->err);
  if (!sql) return wk->err->code ? wk->err->code : WEFT_EIO;
  size_t len = strlen(p->name) + 1 + strlen(wk->rel);
  char *name = base_malloc(len + 1);
  if (!name) {
    base_free(sql);
    return base_error_nomem(wk->err);
  }
  snprintf(name, len + 1, "%s.%s", p->name, wk->rel);
  p->modules[p->module_count++] = (sql_package_module){name, sql};
  return WEFT_OK;
}

static int pk_walk_dir(pk_walk *wk, int depth);

/* One directory entry: a subdirectory is walked, a `.sql` file whose
 * module path has no dot of its own becomes a module. */
static int pk_walk_entry(pk_walk *wk, const char *entry, int depth) {
  size_t path_len = strlen(wk->path), rel_len = strlen(wk->rel);
  size_t n = strlen(entry);
  int is_sql = n > 4 && strcmp(entry + n - 4, ".sql") == 0;
  if (path_len + 1 + n >= sizeof wk->path || rel_len + 1 + n >= sizeof wk->rel)
    return base_error_set(wk->err, WEFT_ELIMIT, "path too long under '%s'", wk->path);
  snprintf(wk->path + path_len, sizeof wk->path - path_len, "/%s", entry);
  struct stat st;
  int rc = WEFT_OK;
  if (stat(wk->path, &st) != 0) {
    if (is_sql)
      rc = base_error_set(wk->err, WEFT_EIO, "Cannot read file '%s': %s", wk->path,
                          strerror(errno));
  } else if (S_ISDIR(st.st_mode)) {
    if (!strchr(entry, '.')) { /* else none of its modules could be named */
      snprintf(wk->rel + rel_len, sizeof wk->rel - rel_len, "%s%s",
               rel_len ? "." : "", entry);
      rc = pk_walk_dir(wk, depth + 1);
    }
  } else if (is_sql && !S_ISREG(st.st_mode)) { /* a FIFO would block */
    rc = base_error_set(wk->err, WEFT_EIO, "Cannot read file '%s': not a regular file",
                        wk->path);
  } else if (is_sql && !memchr(entry, '.', n - 4)) {
    snprintf(wk->rel + rel_len, sizeof wk->rel - rel_len, "%s%.*s",
             rel_len ? "." : "", (int)(n - 4), entry);
    rc = pk_add_module(wk);
  }
  wk->path[path_len] = '\0';
  wk->rel[rel_len] = '\0';
  return rc;
}

static int pk_walk_dir(pk_walk *wk, int depth) {
  if (depth > SQL_PACKAGE_MAX_DEPTH)
    return base_error_set(wk->err, WEFT_ELIMIT,
                          "'%s': directories nested deeper than %d", wk->path,
                          SQL_PACKAGE_MAX_DEPTH);
  DIR *d = opendir(wk->path);
  if (!d)
    return base_error_set(wk->err, WEFT_EIO, "Failed to open directory '%s': %s",
                          wk->path, strerror(errno));
  int rc = WEFT_OK;
  struct dirent *e;
  while (rc == WEFT_OK && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    rc = pk_walk_entry(wk, e->d_name, depth);
  }
  closedir(d);
  return rc;
}

static int pk_module_order(const void *a, const void *b) {
  return strcmp(((const sql_package_module *)a)->name,
                ((const sql_package_module *)b)->name);
}

/* Reads directory `dir` into `p` (its name already set). */
static int pk_read_dir(sql_package *p, const char *dir, base_error *err) {
  struct stat st;
  if (stat(dir, &st) != 0)
    return base_error_set(err, WEFT_EIO, "Directory %s does not exist.", dir);
  if (!S_ISDIR(st.st_mode))
    return base_error_set(err, WEFT_EIO, "%s is not a directory", dir);
  pk_walk wk = {.package = p, .err = err};
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  if (n >= sizeof wk.path)
    return base_error_set(err, WEFT_ELIMIT, "directory path too long");
  memcpy(wk.path, dir, n);
  int rc = pk_walk_dir(&wk, 0);
  if (rc == WEFT_OK) base_qsort(p->modules, p->module_count, sizeof *p->modules,
                                pk_module_order);
  return rc;
}

/* --- names --- */

/* The directory's own name: its last path component. */
static char *pk_default_name(const char *dir) {
  size_t end = strlen(dir);
  while (end > 0 && dir[end - 1] == '/') end--;
  size_t start = end;
  while (start > 0 && dir[start - 1] != '/') start--;
  return base_strndup(dir + start, end - start);
}

static int pk_clash(const char *name, const char *existing, base_error *err) {
  return base_error_set(err, WEFT_EINVAL,
                        "Package '%s' clashes with existing package '%s'. Package "
                        "names cannot be prefixes of each other.",
                        name, existing);
}

/* The name rules; *replace is the user package an override replaces, or
 * NULL (a new entry, which may shadow a standard-library package). */
static int pk_check_name(sql_packages *pk, const char *name, int override,
                         sql_package **replace, base_error *err) {
  *replace = NULL;
  int taken = sql_stdlib_is_package(name, strlen(name));
  for (size_t i = 0; i < sql_stdlib_package_count; i++) {
    const char *s = sql_stdlib_packages[i];
    if (pk_is_dot_prefix(s, name) || pk_is_dot_prefix(name, s))
      return pk_clash(name, s, err);
  }
  for (size_t i = 0; i < pk->count; i++) {
    const char *s = pk->items[i].name;
    if (strcmp(s, name) == 0) {
      taken = 1;
      *replace = &pk->items[i];
    } else if (pk_is_dot_prefix(s, name) || pk_is_dot_prefix(name, s)) {
      return pk_clash(name, s, err);
    }
  }
  if (taken && !override)
    return base_error_set(err, WEFT_EINVAL,
                          "Package '%s' is already registered. Choose a different "
                          "name, or replace it with --override-sql-package.",
                          name);
  return WEFT_OK;
}

int sql_packages_add(sql_packages *pk, const char *dir, const char *name,
                     int override, base_error *err) {
  sql_package p = {0};
  p.name = name && *name ? base_strndup(name, strlen(name)) : pk_default_name(dir);
  if (!p.name) return base_error_nomem(err);
  int rc = *p.name ? pk_read_dir(&p, dir, err)
                   : base_error_set(err, WEFT_EINVAL,
                                    "'%s' names no package: pass PATH@PACKAGE", dir);
  sql_package *replace = NULL;
  if (rc == WEFT_OK && p.module_count == 0) { /* registers nothing */
    pk_package_free(&p);
    return WEFT_OK;
  }
  if (rc == WEFT_OK) rc = pk_check_name(pk, p.name, override, &replace, err);
  if (rc == WEFT_OK && !replace) {
    sql_package *grown = base_realloc(pk->items, (pk->count + 1) * sizeof *grown);
    if (!grown) rc = base_error_nomem(err);
    else replace = &(pk->items = grown)[pk->count++];
  } else if (rc == WEFT_OK) {
    pk_package_free(replace);
  }
  if (rc != WEFT_OK) {
    pk_package_free(&p);
    return rc;
  }
  *replace = p;
  return WEFT_OK;
}

int sql_packages_load(sql_packages *pk, const weft_sql_package *list,
                      size_t count, base_error *err) {
  for (int pass = 1; pass >= 0; pass--) {
    for (size_t i = 0; i < count; i++) {
      if (!list[i].override != !pass) continue;
      int rc = sql_packages_add(pk, list[i].path, list[i].name, list[i].override, err);
      if (rc) {
        base_error_prefix(err, pass ? "Couldn't override stdlib package"
                                    : "Couldn't add SQL package");
        return rc;
      }
    }
  }
  return WEFT_OK;
}
