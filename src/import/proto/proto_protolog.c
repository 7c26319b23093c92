/* proto_protolog: ProtoLog messages and their viewer configs (rules in
 * proto_winscope.h). A message is a protolog row when parsed; its text is
 * written once loading ends, when every viewer config of the file is known
 * (configs may follow the messages that use them). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "import/proto/proto_winscope.h"
#include "model/stats.h"
#include "model/winscope.h"

/* ProtoLogMessage and ProtoLogViewerConfig fields. */
enum {
  PLOG_MESSAGE_ID = 1, PLOG_STR_PARAM_IIDS = 2, PLOG_SINT64_PARAMS = 3, PLOG_DOUBLE_PARAMS = 4,
  PLOG_BOOLEAN_PARAMS = 5, PLOG_STACKTRACE_IID = 6,
};
enum { PLOG_CONFIG_MESSAGES = 1, PLOG_CONFIG_GROUPS = 2 };
enum { PLOG_MSG_ID = 1, PLOG_MSG_TEXT = 2, PLOG_MSG_LEVEL = 3, PLOG_MSG_GROUP = 4,
       PLOG_MSG_LOCATION = 5 };
enum { PLOG_GROUP_ID = 1, PLOG_GROUP_TAG = 3 };

#define PLOG_MAX_TEXT 65536 /* a formatted message is cut at this size */

typedef struct plog_config_msg {
  int64_t level, group;
  string_id text, location;
} plog_config_msg;

/* A message parsed, its params in the shared arrays from its offsets. */
typedef struct plog_pending {
  uint32_t row;
  uint64_t message_id;
  string_id stacktrace;
  size_t sint, dbl, bools, strs;          /* first param of each kind */
  uint32_t n_sint, n_dbl, n_bools, n_strs;
} plog_pending;

struct proto_winscope_state {
  base_map groups;   /* group id -> tag string id */
  base_map messages; /* message id -> index into configs */
  VEC(plog_config_msg) configs;
  VEC(plog_pending) pending;
  VEC(int64_t) sints;
  VEC(double) dbls;
  VEC(uint8_t) bools;
  VEC(string_id) strs;
};

void proto_winscope_free(proto_winscope_state *s) {
  if (!s) return;
  base_map_free(&s->groups);
  base_map_free(&s->messages);
  VEC_FREE(s->configs);
  VEC_FREE(s->pending);
  VEC_FREE(s->sints);
  VEC_FREE(s->dbls);
  VEC_FREE(s->bools);
  VEC_FREE(s->strs);
  base_free(s);
}

static int plog_stat(import_file *f, stats_id stat) {
  return stats_add(&f->ctx->stats, stat, -1, 0, f->trace_id, 1);
}

/* ---- viewer configs ---- */

static int plog_intern_field(import_file *f, proto_span msg, uint32_t number, string_id *out) {
  proto_field fl;
  *out = STRING_NULL;
  if (proto_find_last(msg.data, msg.len, number, &fl) != 1 || fl.wire_type != PROTO_WIRE_LEN)
    return WEFT_OK;
  return ctx_intern(f->ctx, (const char *)fl.span.data, fl.span.len, out);
}

static int64_t plog_varint_field(proto_span msg, uint32_t number) {
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, number, &fl) != 1) return 0;
  return fl.wire_type == PROTO_WIRE_VARINT || fl.wire_type == PROTO_WIRE_FIXED64
             ? (int64_t)fl.value : 0;
}

static int plog_config_group(import_file *f, proto_winscope_state *s, proto_span g) {
  string_id tag;
  uint64_t *slot;
  int rc = plog_intern_field(f, g, PLOG_GROUP_TAG, &tag);
  if (rc) return rc;
  uint64_t id = (uint32_t)plog_varint_field(g, PLOG_GROUP_ID);
  uint64_t *old = base_map_find(&s->groups, id);
  if (old) {
    if ((string_id)*old != tag) rc = plog_stat(f, stat_winscope_protolog_group_tag_collision);
    *old = tag;
    return rc;
  }
  return base_map_insert(&s->groups, id, tag, &slot) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

static int plog_config_message(import_file *f, proto_winscope_state *s, proto_span m) {
  plog_config_msg c;
  int rc = plog_intern_field(f, m, PLOG_MSG_TEXT, &c.text);
  if (!rc) rc = plog_intern_field(f, m, PLOG_MSG_LOCATION, &c.location);
  if (rc) return rc;
  c.level = plog_varint_field(m, PLOG_MSG_LEVEL);
  c.group = (uint32_t)plog_varint_field(m, PLOG_MSG_GROUP);
  uint64_t id = (uint64_t)plog_varint_field(m, PLOG_MSG_ID), *slot;
  uint64_t *old = base_map_find(&s->messages, id);
  if (old) {
    if (s->configs.data[*old].text != c.text)
      rc = plog_stat(f, stat_winscope_protolog_message_collision);
    s->configs.data[*old] = c;
    return rc;
  }
  if (VEC_PUSH(s->configs, c)) return WEFT_ENOMEM;
  return base_map_insert(&s->messages, id, s->configs.len - 1, &slot) < 0 ? WEFT_ENOMEM
                                                                         : WEFT_OK;
}

static int plog_config(import_file *f, proto_winscope_state *s, proto_span cfg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, cfg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number == PLOG_CONFIG_GROUPS) rc = plog_config_group(f, s, fl.span);
    else if (fl.number == PLOG_CONFIG_MESSAGES) rc = plog_config_message(f, s, fl.span);
  }
  return rc;
}

/* ---- messages ---- */

/* Appends the params of repeated field fl (packed or not) to their array. */
static int plog_param(import_file *f, const proto_packet_info *info, proto_winscope_state *s,
                      const proto_field *fl, plog_pending *p) {
  if (fl->number == PLOG_STR_PARAM_IIDS && fl->wire_type == PROTO_WIRE_VARINT) {
    string_id str = proto_interned(f->state, info->seq, info->generation,
                                   PROTO_INTERN_PROTOLOG_STRING_ARG, fl->value);
    int rc = str ? WEFT_OK : plog_stat(f, stat_winscope_protolog_missing_interned_arg_parse_errors);
    if (!rc && !str) rc = ctx_intern(f->ctx, "<ERROR>", 7, &str);
    if (!rc) rc = VEC_PUSH(s->strs, str);
    p->n_strs++;
    return rc;
  }
  if (fl->number == PLOG_SINT64_PARAMS && fl->wire_type == PROTO_WIRE_VARINT) {
    p->n_sint++;
    return VEC_PUSH(s->sints, proto_zigzag_decode64(fl->value));
  }
  if (fl->number == PLOG_DOUBLE_PARAMS && fl->wire_type == PROTO_WIRE_FIXED64) {
    p->n_dbl++;
    return VEC_PUSH(s->dbls, proto_field_double(fl));
  }
  if (fl->number == PLOG_BOOLEAN_PARAMS && fl->wire_type == PROTO_WIRE_VARINT) {
    p->n_bools++;
    return VEC_PUSH(s->bools, (uint8_t)(fl->value != 0));
  }
  return WEFT_OK;
}

/* Each element of a packed repeated param, as if it were its own field. */
static int plog_packed(import_file *f, const proto_packet_info *info, proto_winscope_state *s,
                       const proto_field *fl, plog_pending *p) {
  const uint8_t *q = fl->span.data, *end = q + fl->span.len;
  int rc = WEFT_OK;
  while (!rc && q < end) {
    proto_field el = {fl->number, PROTO_WIRE_VARINT, 0, {NULL, 0}};
    if (fl->number == PLOG_DOUBLE_PARAMS) {
      if (end - q < 8) break;
      el.wire_type = PROTO_WIRE_FIXED64;
      el.value = proto_load_le64(q);
      q += 8;
    } else {
      int n = proto_varint_decode(q, end, &el.value);
      if (n <= 0) break;
      q += n;
    }
    rc = plog_param(f, info, s, &el, p);
  }
  return rc;
}

/* The interned stacktrace; one that is unknown is counted and, as in
 * Perfetto, adds an "<ERROR>" string param after the others. */
static int plog_stacktrace(import_file *f, const proto_packet_info *info,
                           proto_winscope_state *s, uint64_t iid, plog_pending *p) {
  p->stacktrace = proto_interned(f->state, info->seq, info->generation,
                                 PROTO_INTERN_PROTOLOG_STACKTRACE, iid);
  if (p->stacktrace) return WEFT_OK;
  string_id error;
  int rc = plog_stat(f, stat_winscope_protolog_missing_interned_stacktrace_parse_errors);
  if (!rc) rc = ctx_intern(f->ctx, "<ERROR>", 7, &error);
  if (!rc) rc = VEC_PUSH(s->strs, error);
  p->n_strs++;
  return rc;
}

static int plog_message(import_file *f, const proto_packet_info *info, proto_winscope_state *s,
                        int64_t ts, proto_span msg) {
  plog_pending p;
  memset(&p, 0, sizeof p);
  p.sint = s->sints.len, p.dbl = s->dbls.len, p.bools = s->bools.len, p.strs = s->strs.len;
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK, has_stacktrace = 0;
  uint64_t stacktrace_iid = 0;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PLOG_MESSAGE_ID && fl.wire_type != PROTO_WIRE_LEN) p.message_id = fl.value;
    else if (fl.number == PLOG_STACKTRACE_IID && fl.wire_type == PROTO_WIRE_VARINT) {
      has_stacktrace = 1;
      stacktrace_iid = fl.value;
    } else if (fl.wire_type == PROTO_WIRE_LEN && fl.number >= PLOG_STR_PARAM_IIDS &&
               fl.number <= PLOG_BOOLEAN_PARAMS)
      rc = plog_packed(f, info, s, &fl, &p);
    else rc = plog_param(f, info, s, &fl, &p);
  }
  if (!rc && has_stacktrace) rc = plog_stacktrace(f, info, s, stacktrace_iid, &p);
  if (!rc) rc = model_protolog_add(f->ctx, ts, &p.row);
  if (!rc) rc = VEC_PUSH(s->pending, p);
  return rc;
}

int proto_protolog_parse(import_file *f, proto_winscope_state **state,
                         const proto_packet_info *info, int64_t ts, const proto_field *fl) {
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  if (!*state && !(*state = base_calloc(1, sizeof **state))) return WEFT_ENOMEM;
  if (fl->number == PROTO_TRACE_PACKET_PROTOLOG_VIEWER_CONFIG)
    return plog_config(f, *state, fl->span);
  return plog_message(f, info, *state, ts, fl->span);
}

/* ---- formatting, once loading ends ---- */

static const char *plog_level_name(int64_t level) {
  static const char *const names[] = {"UNKNOWN", "DEBUG", "VERBOSE", "INFO", "WARN", "ERROR",
                                      "WTF"};
  return level >= 1 && level <= 6 ? names[level] : names[0];
}

/* The text of one conversion (`conv` the letter after '%') into out, its
 * length; a string param is *str instead (length 0); -1 for no conversion
 * (the two characters stay). A missing param is "[MISSING_PARAM]" and
 * counts in *missing. */
static int plog_conversion(const proto_winscope_state *s, const plog_pending *p, char conv,
                           uint32_t used[4], char *out, size_t cap, string_id *str,
                           int *missing) {
  *str = STRING_NULL;
  int64_t v = 0;
  double d = 0;
  if ((conv == 'd' || conv == 'o' || conv == 'x') && used[0] < p->n_sint)
    v = s->sints.data[p->sint + used[0]++];
  else if ((conv == 'f' || conv == 'e' || conv == 'g') && used[1] < p->n_dbl)
    d = s->dbls.data[p->dbl + used[1]++];
  else if (conv == 'b' && used[2] < p->n_bools) v = s->bools.data[p->bools + used[2]++];
  else if (conv == 's' && used[3] < p->n_strs) {
    *str = s->strs.data[p->strs + used[3]++];
    return 0;
  } else if (strchr("doxfegbs", conv)) {
    (*missing)++;
    return snprintf(out, cap, "[MISSING_PARAM]");
  }
  switch (conv) {
    case 'd': return snprintf(out, cap, "%" PRId64, v);
    case 'o': return snprintf(out, cap, "%" PRIo64, (uint64_t)v);
    case 'x': return snprintf(out, cap, "%" PRIx64, (uint64_t)v);
    case 'f': return snprintf(out, cap, "%f", d);
    case 'e': return snprintf(out, cap, "%e", d);
    case 'g': return snprintf(out, cap, "%g", d);
    case 'b': return snprintf(out, cap, "%s", v ? "true" : "false");
    case '%': return snprintf(out, cap, "%%");
    default: return -1;
  }
}

/* Formats template `tmpl` with the message's params into `text`. */
static int plog_format(trace_context *ctx, const proto_winscope_state *s, const plog_pending *p,
                       const char *tmpl, base_buf *text, int *missing) {
  uint32_t used[4] = {0, 0, 0, 0};
  char num[64];
  text->len = 0;
  if (text->data) text->data[0] = '\0';
  for (const char *c = tmpl; *c && text->len < PLOG_MAX_TEXT; c++) {
    string_id str = STRING_NULL;
    int n = c[0] == '%' && c[1]
                ? plog_conversion(s, p, c[1], used, num, sizeof num, &str, missing)
                : -1;
    int rc;
    if (n < 0) {
      rc = base_buf_append(text, c, 1);
    } else {
      c++;
      rc = str ? base_buf_append(text, base_string_pool_get(&ctx->strings, str),
                                 base_string_pool_len(&ctx->strings, str))
               : base_buf_append(text, num, (size_t)n);
    }
    if (rc) return rc;
  }
  if (used[0] != p->n_sint || used[1] != p->n_dbl || used[2] != p->n_bools ||
      used[3] != p->n_strs)
    (*missing)++; /* params left over */
  return WEFT_OK;
}

static int plog_finish(import_file *f, const proto_winscope_state *s, const plog_pending *p,
                       base_buf *text) {
  trace_context *ctx = f->ctx;
  const uint64_t *index = base_map_find(&s->messages, p->message_id);
  if (!index) return plog_stat(f, stat_winscope_protolog_message_decoding_failed);
  const plog_config_msg *c = &s->configs.data[*index];
  const uint64_t *tag = base_map_find(&s->groups, (uint64_t)c->group);
  int missing = 0, rc = WEFT_OK;
  model_protolog_row row = {STRING_NULL, tag ? (string_id)*tag : STRING_NULL, STRING_NULL,
                            p->stacktrace, c->location};
  if (!tag) rc = plog_stat(f, stat_winscope_protolog_group_tag_missing);
  if (!tag && !rc) rc = ctx_intern(ctx, "UNKNOWN_GROUP", 13, &row.tag);
  if (!rc) rc = ctx_intern(ctx, plog_level_name(c->level), strlen(plog_level_name(c->level)),
                           &row.level);
  const char *tmpl = c->text ? base_string_pool_get(&ctx->strings, c->text) : "";
  if (!rc) rc = plog_format(ctx, s, p, tmpl, text, &missing);
  if (!rc && missing)
    rc = stats_add(&f->ctx->stats, stat_winscope_protolog_param_mismatch, -1, 0, f->trace_id,
                   missing);
  if (!rc) rc = ctx_intern(ctx, text->data ? text->data : "", text->len, &row.message);
  if (!rc) model_protolog_set(ctx, p->row, &row);
  return rc;
}

int proto_winscope_end(import_file *f, proto_winscope_state *s) {
  if (!s) return WEFT_OK;
  base_buf text;
  base_buf_init(&text, 0); /* bounded by PLOG_MAX_TEXT and one param */
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < s->pending.len; i++)
    rc = plog_finish(f, s, &s->pending.data[i], &text);
  base_buf_free(&text);
  return rc;
}
