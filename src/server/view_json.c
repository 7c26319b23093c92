/* JSON text for the web view (view_json.h). */
#include "view_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void view_json_add(rpc_buf *b, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->failed = 1;
    return;
  }
  if ((size_t)n < sizeof small) {
    rpc_buf_append(b, small, (size_t)n);
    return;
  }
  char big[4096];
  va_start(ap, fmt);
  n = vsnprintf(big, sizeof big, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof big) b->failed = 1;
  else rpc_buf_append(b, big, (size_t)n);
}

void view_json_string(rpc_buf *b, const char *s, size_t len) {
  rpc_buf_append(b, "\"", 1);
  size_t run = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    rpc_buf_append(b, s + run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\') {
      char esc[2] = {'\\', (char)c};
      rpc_buf_append(b, esc, 2);
    } else {
      char esc[8];
      snprintf(esc, sizeof esc, "\\u%04x", c);
      rpc_buf_append(b, esc, 6);
    }
  }
  rpc_buf_append(b, s + run, len - run);
  rpc_buf_append(b, "\"", 1);
}

void view_json_cstr(rpc_buf *b, const char *s) {
  if (!s) rpc_buf_append(b, "null", 4);
  else view_json_string(b, s, strlen(s));
}

void view_json_cell(rpc_buf *b, const weft_cell *c) {
  switch (c->type) {
    case WEFT_CELL_INT: view_json_add(b, "%lld", (long long)c->i); break;
    case WEFT_CELL_DOUBLE:
      if (isfinite(c->d)) view_json_add(b, "%.17g", c->d);
      else rpc_buf_append(b, "null", 4);
      break;
    case WEFT_CELL_STRING: view_json_string(b, c->s, c->len); break;
    default: rpc_buf_append(b, "null", 4); break;
  }
}

void view_json_error(rpc_buf *b, const char *message) {
  b->len = 0;
  b->failed = 0;
  view_json_add(b, "{\"error\": ");
  view_json_cstr(b, message);
  view_json_add(b, "}");
}
