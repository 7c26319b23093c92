/* Error values: a code and a one-line message. */
#include <stdio.h>

#include "base.h"

int base_error_set(base_error *err, int code, const char *fmt, ...) {
  if (!err) return code;
  err->code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return code;
}

void base_error_prefix(base_error *err, const char *fmt, ...) {
  if (!err) return;
  char prefix[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  size_t plen = strlen(prefix);
  if (plen + 2 >= sizeof err->message) plen = sizeof err->message - 3;
  size_t old_len = strnlen(err->message, sizeof err->message - 1);
  if (plen + 2 + old_len >= sizeof err->message)
    old_len = sizeof err->message - plen - 3;
  memmove(err->message + plen + 2, err->message, old_len);
  memcpy(err->message, prefix, plen);
  err->message[plen] = ':';
  err->message[plen + 1] = ' ';
  err->message[plen + 2 + old_len] = 0;
}

void base_error_clear(base_error *err) {
  if (!err) return;
  err->code = 0;
  err->message[0] = '\0';
}

int base_error_nomem(base_error *err) {
  return base_error_set(err, WEFT_ENOMEM, "out of memory");
}

int base_error_alloc(base_error *err, int status) {
  return status ? base_error_set(err, status, "out of memory") : WEFT_OK;
}

void base_error_name_file(base_error *err, const char *name) {
  if (err && name && !strstr(err->message, name)) base_error_prefix(err, "%s", name);
}
