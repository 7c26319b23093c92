/* TraceConfig text rendering. See proto_config_text.h. */
#include "import/proto/proto_config_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "import/proto/proto_config_schema.h"
#include "model/context.h"

#define PROTO_TRACE_CONFIG_STATSD_METADATA 7
#define PROTO_TRACE_CONFIG_UNIQUE_SESSION_NAME 22
#define PROTO_STATSD_METADATA_SUBSCRIPTION_ID 4


/* The output and its sticky allocation failure (hitting the byte cap only
 * truncates). */
typedef struct pt_writer {
  base_buf *buf;
  int rc;
} pt_writer;

static void pt_note(pt_writer *w, int rc) {
  if (rc == WEFT_ENOMEM) w->rc = rc;
}

static void pt_put(pt_writer *w, const void *s, size_t n) { pt_note(w, base_buf_append(w->buf, s, n)); }

static void pt_putf(pt_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pt_putf(pt_writer *w, const char *fmt, ...) {
  char tmp[64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) pt_put(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static const proto_text_field *pt_lookup(const proto_text_msg *m, uint32_t number) {
  for (size_t i = 0; m && i < m->count; i++)
    if (m->fields[i].number == number) return &m->fields[i];
  return NULL;
}

/* The field's description if the value is one it describes (an enum value
 * outside the enum, or a wrong wire type, prints as an unknown field). */
static const proto_text_field *pt_known(const proto_text_field *d, const proto_field *fl) {
  if (!d) return NULL;
  int len = fl->wire_type == PROTO_WIRE_LEN;
  switch (d->type) {
    case PT_STRING: case PT_MSG: return len ? d : NULL;
    case PT_DOUBLE: return fl->wire_type == PROTO_WIRE_FIXED64 ? d : NULL;
    case PT_ENUM:
      return !len && fl->value < d->enum_count && d->enum_names[fl->value] ? d : NULL;
    default: return len ? NULL : d;
  }
}

/* The letter of a control character's C escape (\a \b \t \n \v \f \r),
 * or 0 for one written in octal. */
static char pt_escape_letter(uint8_t c) {
  static const char letters[] = "abtnvfr"; /* 7..13 */
  return c >= 7 && c <= 13 ? letters[c - 7] : 0;
}

/* Appends a quoted, C-escaped string, as Perfetto's text printer escapes it:
 * quotes, apostrophes and backslashes escaped, \a..\r by letter, other
 * bytes below 0x20 or from 0x7f in octal. */
static void pt_quoted(pt_writer *out, const uint8_t *s, size_t len) {
  pt_put(out, "\"", 1);
  for (size_t i = 0; i < len; i++) {
    uint8_t c = s[i];
    char letter = pt_escape_letter(c);
    if (c == '"' || c == '\\' || c == '\'') pt_putf(out, "\\%c", c);
    else if (letter) pt_putf(out, "\\%c", letter);
    else if (c < 0x20 || c >= 0x7f) pt_putf(out, "\\%03o", c);
    else pt_put(out, &c, 1);
  }
  pt_put(out, "\"", 1);
}

static void pt_value(pt_writer *out, const proto_text_field *d, const proto_field *fl) {
  if (fl->wire_type == PROTO_WIRE_LEN) {
    pt_quoted(out, fl->span.data, fl->span.len);
    return;
  }
  uint64_t v = fl->value;
  switch (d ? d->type : PT_UINT) {
    case PT_INT32: pt_putf(out, "%" PRId32, (int32_t)(uint32_t)v); break;
    case PT_INT64: pt_putf(out, "%" PRId64, (int64_t)v); break;
    case PT_BOOL: pt_putf(out, "%s", v ? "true" : "false"); break;
    case PT_ENUM: pt_putf(out, "%s", d->enum_names[v]); break; /* known: pt_known */
    case PT_DOUBLE: {
      double x;
      memcpy(&x, &v, sizeof x);
      pt_putf(out, "%f", x);
      break;
    }
    default: pt_putf(out, "%" PRIu64, v); break;
  }
}

static void pt_indent(pt_writer *out, int depth) {
  if (out->buf->len) pt_put(out, "\n", 1);
  for (int i = 0; i < depth; i++) pt_put(out, "  ", 2);
}

static void pt_message(pt_writer *out, proto_span msg, const proto_text_msg *schema, int depth) {
  proto_reader r;
  proto_field fl = {0};
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    const proto_text_field *d = pt_known(pt_lookup(schema, fl.number), &fl);
    pt_indent(out, depth);
    if (d) pt_putf(out, "%s", d->name);
    else pt_putf(out, "%" PRIu32, fl.number);
    if (d && d->type == PT_MSG && fl.wire_type == PROTO_WIRE_LEN && depth < PROTO_TEXT_MAX_DEPTH) {
      pt_put(out, " {", 2);
      pt_message(out, fl.span, d->msg, depth + 1);
      pt_indent(out, depth);
      pt_put(out, "}", 1);
      continue;
    }
    pt_put(out, ": ", 2);
    pt_value(out, d, &fl);
  }
}

int proto_config_text(proto_span config, base_buf *out) {
  base_buf_reset(out);
  pt_writer w = {out, WEFT_OK};
  pt_message(&w, config, &proto_config_schema, 0);
  return w.rc;
}

/* The config's unique_session_name and statsd triggering subscription. */
static int proto_config_fields_metadata(import_file *f, proto_span config) {
  proto_field fl;
  int rc = WEFT_OK;
  if (proto_find_last(config.data, config.len, PROTO_TRACE_CONFIG_UNIQUE_SESSION_NAME, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN) {
    char *name = base_malloc(fl.span.len + 1);
    if (!name) return WEFT_ENOMEM;
    memcpy(name, fl.span.data, fl.span.len);
    name[fl.span.len] = '\0';
    rc = ctx_metadata_set_str(f->ctx, "unique_session_name", name, -1, f->trace_id);
    base_free(name);
  }
  proto_field sub;
  if (!rc &&
      proto_find_last(config.data, config.len, PROTO_TRACE_CONFIG_STATSD_METADATA, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN &&
      proto_find_last(fl.span.data, fl.span.len, PROTO_STATSD_METADATA_SUBSCRIPTION_ID, &sub) ==
          1 &&
      sub.wire_type == PROTO_WIRE_VARINT)
    rc = ctx_metadata_set_int(f->ctx, "statsd_triggering_subscription_id", (int64_t)sub.value,
                              -1, f->trace_id);
  return rc;
}

int proto_config_text_metadata(import_file *f, proto_span config) {
  int rc = proto_config_fields_metadata(f, config);
  if (rc) return rc;
  base_buf out;
  base_buf_init(&out, PROTO_TEXT_MAX_BYTES);
  rc = proto_config_text(config, &out);
  if (!rc) rc = ctx_metadata_set_str(f->ctx, "trace_config_pbtxt", out.data ? out.data : "", -1,
                                     f->trace_id);
  base_buf_free(&out);
  return rc;
}
