/* The export formats by name (export.h). */
#include "export.h"

#include <stdio.h>
#include <string.h>

typedef int (*export_fn)(weft *w, const char *path, char *err, size_t err_size);

static const struct {
  const char *name;
  export_fn run;
} export_formats[] = {
    {"sqlite", cli_export_sqlite},
    {"arrow_tar", cli_export_arrow_tar},
    {"json", cli_export_json},
};

static export_fn export_find(const char *format) {
  for (size_t i = 0; i < sizeof export_formats / sizeof *export_formats; i++)
    if (!strcmp(format, export_formats[i].name)) return export_formats[i].run;
  return NULL;
}

int cli_export_format_known(const char *format) { return export_find(format) != NULL; }

int cli_export_run(weft *w, const char *format, const char *path) {
  export_fn run = export_find(format);
  char err[512] = "";
  if (run && run(w, path, err, sizeof err) == 0) return 0;
  fprintf(stderr, "weft export %s: %s\n", format, run ? err : "unknown format");
  remove(path);
  return 1;
}
