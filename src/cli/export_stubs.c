/* Placeholders until the arrow_tar export lands. */
#include <stdio.h>

#include "export.h"

int cli_export_arrow_tar(weft *w, const char *path, char *err, size_t err_size) {
  (void)w, (void)path;
  snprintf(err, err_size, "not supported yet");
  return -1;
}
