/* `weft export arrow_tar`: a tar (written with libarchive) of one Arrow
 * IPC file per table, TABLE.arrow, empty tables included; views are left
 * out, as Perfetto's export does. Each file is written to an unlinked
 * temporary file first (tar needs its size up front), so memory stays
 * bounded by a record batch. */
#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow_ipc.h"
#include "export.h"
#include "tables.h"

static int arrow_type_of(const char *declared) {
  char upper[32] = "";
  for (size_t i = 0; declared[i] && i < sizeof upper - 1; i++)
    upper[i] = (char)(declared[i] >= 'a' && declared[i] <= 'z' ? declared[i] - 32 : declared[i]);
  if (strstr(upper, "INT")) return ARROW_IPC_INT64;
  if (strstr(upper, "DOUB") || strstr(upper, "REAL") || strstr(upper, "FLOA"))
    return ARROW_IPC_DOUBLE;
  return ARROW_IPC_UTF8;
}

static int arrow_on_row(void *user, int statement, int n, const weft_cell *cells) {
  (void)statement;
  arrow_ipc_writer *w = user;
  return n == w->ncols ? arrow_ipc_append(w, cells) != 0 : 1;
}

/* Writes table `name` as an Arrow file to `out`. */
static int arrow_write_table(weft *w, const char *name, FILE *out, char *err, size_t err_size) {
  cli_table_columns columns = {0};
  int rc = cli_table_columns_list(w, name, &columns) || columns.count == 0 ? -1 : 0;
  int *types = calloc(columns.count + 1, sizeof *types);
  if (!types) rc = -1;
  for (size_t i = 0; !rc && i < columns.count; i++) types[i] = arrow_type_of(columns.types[i]);
  arrow_ipc_writer writer;
  if (!rc) rc = arrow_ipc_begin(&writer, out, (int)columns.count,
                                (const char *const *)columns.names, types);
  if (rc) {
    snprintf(err, err_size, "%s: cannot read its columns", name);
  } else {
    size_t len = strlen(name) * 2 + 32;
    char *sql = malloc(len);
    size_t q = 0;
    if (sql) q = (size_t)snprintf(sql, len, "SELECT * FROM \"");
    for (const char *p = name; sql && *p; p++) {
      if (*p == '"') sql[q++] = '"';
      sql[q++] = *p;
    }
    if (sql) memcpy(sql + q, "\"", 2);
    weft_query_callbacks cb = {NULL, arrow_on_row, &writer};
    if (!sql || weft_query(w, sql, &cb) != WEFT_OK) {
      snprintf(err, err_size, "%s: %s", name, sql ? weft_errmsg(w) : "out of memory");
      rc = -1;
    }
    free(sql);
    if (arrow_ipc_end(&writer) && !rc) {
      snprintf(err, err_size, "%s: cannot write its Arrow file", name);
      rc = -1;
    }
  }
  free(types);
  cli_table_columns_free(&columns);
  return rc;
}

/* Copies the temporary file `f` into the archive as NAME.arrow. */
static int arrow_add_member(struct archive *a, const char *name, FILE *f) {
  long size = ftell(f);
  if (size < 0 || fseek(f, 0, SEEK_SET)) return -1;
  struct archive_entry *entry = archive_entry_new();
  if (!entry) return -1;
  char path[512];
  snprintf(path, sizeof path, "%s.arrow", name);
  archive_entry_set_pathname(entry, path);
  archive_entry_set_size(entry, size);
  archive_entry_set_filetype(entry, AE_IFREG);
  archive_entry_set_perm(entry, 0644);
  archive_entry_set_mtime(entry, time(NULL), 0);
  int rc = archive_write_header(a, entry) == ARCHIVE_OK ? 0 : -1;
  archive_entry_free(entry);
  char buf[65536];
  size_t n;
  while (!rc && (n = fread(buf, 1, sizeof buf, f)) > 0)
    if (archive_write_data(a, buf, n) != (la_ssize_t)n) rc = -1;
  return rc;
}

static int arrow_export_table(weft *w, struct archive *a, const char *name, char *err,
                              size_t err_size) {
  FILE *f = tmpfile();
  if (!f) {
    snprintf(err, err_size, "cannot make a temporary file");
    return -1;
  }
  int rc = arrow_write_table(w, name, f, err, err_size);
  if (!rc && (fflush(f) || arrow_add_member(a, name, f))) {
    snprintf(err, err_size, "%s: %s", name, archive_error_string(a) ? archive_error_string(a)
                                                                    : "cannot write");
    rc = -1;
  }
  fclose(f);
  return rc;
}

int cli_export_arrow_tar(weft *w, const char *path, char *err, size_t err_size) {
  cli_table_names tables;
  int rc = cli_table_names_list(w, &tables);
  struct archive *a = rc ? NULL : archive_write_new();
  if (!a || archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
      archive_write_open_filename(a, path) != ARCHIVE_OK) {
    snprintf(err, err_size, "%s: %s", path,
             a && archive_error_string(a) ? archive_error_string(a) : "cannot write");
    rc = -1;
  }
  for (size_t i = 0; !rc && i < tables.count; i++)
    if (!tables.is_view[i]) rc = arrow_export_table(w, a, tables.names[i], err, err_size);
  if (a && archive_write_close(a) != ARCHIVE_OK && !rc) {
    snprintf(err, err_size, "%s: %s", path, archive_error_string(a));
    rc = -1;
  }
  if (a) archive_write_free(a);
  cli_table_names_free(&tables);
  return rc;
}
