/* V8 CPU profiles of legacy 'P' events. See model/v8_profile.h. */
#include "model/v8_profile.h"

#include "base/json_tokenizer.h"
#include "model/context.h"
#include "model/stack_profile.h"
#include "model/stack_sample.h"

#define V8_MAX_PROBES 32

typedef struct v8_session {
  uint64_t id;
  int64_t pid;
  uint64_t ts;       /* ns; unsigned so that deltas wrap rather than overflow */
  uint32_t mapping;
  base_map callsites; /* node id -> callsite row */
  base_map parents;   /* node id -> the node that listed it as a child */
} v8_session;

typedef struct v8_text {
  const char *ptr;
  size_t len;
  bool escaped;
} v8_text;

typedef struct v8_node {
  uint32_t id;
  int has_parent;
  uint32_t parent;
  size_t children_at, children_len; /* into v8_profile.children */
  v8_text name, url; /* url.ptr NULL: none (or empty) */
} v8_node;

/* One event's profile as read (buffers reused from event to event). */
typedef struct v8_profile {
  int has_start;
  int64_t start;
  VEC(v8_node) nodes;
  VEC(uint32_t) children;
  VEC(uint32_t) samples;
  VEC(int64_t) deltas;
} v8_profile;

struct v8_profile_state {
  VEC(v8_session) sessions;
  base_map session_index; /* probed hash of (id, pid) -> index */
  v8_profile read;
  int has_samples;
};

void v8_profile_state_free(v8_profile_state *st) {
  if (!st) return;
  for (size_t i = 0; i < st->sessions.len; i++) {
    base_map_free(&st->sessions.data[i].callsites);
    base_map_free(&st->sessions.data[i].parents);
  }
  VEC_FREE(st->sessions);
  base_map_free(&st->session_index);
  VEC_FREE(st->read.nodes);
  VEC_FREE(st->read.children);
  VEC_FREE(st->read.samples);
  VEC_FREE(st->read.deltas);
  base_free(st);
}

static v8_profile_state *v8_state(trace_context *ctx) {
  if (!ctx->model.v8_profile) ctx->model.v8_profile = base_calloc(1, sizeof(v8_profile_state));
  return ctx->model.v8_profile;
}

/* ---- reading the profile JSON ---- */

typedef struct v8_reader {
  json_tokenizer tk;
  base_error err;
  json_token t;
} v8_reader;

static int v8_next(v8_reader *r) { return json_next(&r->tk, &r->t, &r->err); }

/* A number as an int64: an integer as it is, another truncated (Perfetto's
 * reading); 0 when it is not a number or out of range. */
static int v8_token_i64(const json_token *t, int64_t *out) {
  if (t->type != JSON_TOK_NUMBER) return 0;
  if (t->is_int) return *out = t->i, 1;
  if (!(t->d > -9223372036854775808.0 && t->d < 9223372036854775808.0)) return 0;
  *out = (int64_t)t->d;
  return 1;
}

static int v8_token_u32(const json_token *t, uint32_t *out) {
  int64_t v;
  if (!v8_token_i64(t, &v) || v < 0 || v > UINT32_MAX) return 0;
  *out = (uint32_t)v;
  return 1;
}

static int v8_is_open(const json_token *t) {
  return t->type == JSON_TOK_OBJECT_BEGIN || t->type == JSON_TOK_ARRAY_BEGIN;
}

static int v8_key_is(const json_token *t, const char *key) {
  size_t n = strlen(key);
  return t->len == n && !t->has_escapes && memcmp(t->ptr, key, n) == 0;
}

/* An array of uint32 (or int64 when `wide`) appended to vec after its
 * first `keep` elements (the rest dropped); any other element leaves only
 * those. The '[' was read. */
#define V8_READ_ARRAY(r, vec, wide, keep)                                        \
  do {                                                                           \
    int ok_ = 1;                                                                 \
    (vec).len = (keep);                                                          \
    for (;;) {                                                                   \
      if ((rc = v8_next(r)) != 0) return rc;                                     \
      if ((r)->t.type == JSON_TOK_ARRAY_END) break;                              \
      uint32_t u_ = 0;                                                           \
      int64_t i_ = 0;                                                            \
      if (v8_is_open(&(r)->t) && (rc = json_skip_container(&(r)->tk, &(r)->err))) \
        return rc;                                                               \
      if (!ok_) continue;                                                        \
      if ((wide) ? v8_token_i64(&(r)->t, &i_) : v8_token_u32(&(r)->t, &u_)) {     \
        if (VEC_PUSH(vec, (wide) ? i_ : u_)) return WEFT_ENOMEM;                 \
      } else {                                                                   \
        ok_ = 0;                                                                 \
      }                                                                          \
    }                                                                            \
    if (!ok_) (vec).len = (keep);                                                \
  } while (0)

/* The value after a key: skipped. */
static int v8_skip(v8_reader *r) {
  int rc = v8_next(r);
  if (!rc && v8_is_open(&r->t)) rc = json_skip_container(&r->tk, &r->err);
  return rc;
}

static v8_text v8_text_of(const json_token *t) {
  v8_text s = {t->ptr, t->len, t->has_escapes};
  return s;
}

/* callFrame's members; its '{' was read. */
static int v8_read_call_frame(v8_reader *r, v8_node *n) {
  int rc;
  while (!(rc = v8_next(r)) && r->t.type == JSON_TOK_KEY) {
    int url = v8_key_is(&r->t, "url"), name = v8_key_is(&r->t, "functionName");
    if (!url && !name) {
      if ((rc = v8_skip(r)) != 0) return rc;
      continue;
    }
    if ((rc = v8_next(r)) != 0) return rc;
    if (v8_is_open(&r->t)) {
      if ((rc = json_skip_container(&r->tk, &r->err)) != 0) return rc;
    } else if (r->t.type == JSON_TOK_STRING) {
      if (name) n->name = v8_text_of(&r->t);
      else if (r->t.len) n->url = v8_text_of(&r->t);
    }
  }
  return rc;
}

/* One node's members; its '{' was read. */
static int v8_read_node(v8_reader *r, v8_profile *p, v8_node *n) {
  int rc;
  while (!(rc = v8_next(r)) && r->t.type == JSON_TOK_KEY) {
    enum { OTHER, ID, PARENT, CHILDREN, FRAME } k =
        v8_key_is(&r->t, "id")          ? ID
        : v8_key_is(&r->t, "parent")    ? PARENT
        : v8_key_is(&r->t, "children")  ? CHILDREN
        : v8_key_is(&r->t, "callFrame") ? FRAME
                                               : OTHER;
    if ((rc = v8_next(r)) != 0) return rc;
    if (k == CHILDREN && r->t.type == JSON_TOK_ARRAY_BEGIN) {
      size_t at = p->children.len;
      V8_READ_ARRAY(r, p->children, 0, at);
      n->children_at = at;
      n->children_len = p->children.len - at;
      continue;
    }
    if (k == FRAME && r->t.type == JSON_TOK_OBJECT_BEGIN) {
      if ((rc = v8_read_call_frame(r, n)) != 0) return rc;
      continue;
    }
    if (v8_is_open(&r->t)) {
      if ((rc = json_skip_container(&r->tk, &r->err)) != 0) return rc;
      continue;
    }
    if (k == ID) v8_token_u32(&r->t, &n->id);
    if (k == PARENT) n->has_parent = v8_token_u32(&r->t, &n->parent);
  }
  return rc;
}

/* cpuProfile's members; its '{' was read. */
static int v8_read_cpu_profile(v8_reader *r, v8_profile *p) {
  int rc;
  while (!(rc = v8_next(r)) && r->t.type == JSON_TOK_KEY) {
    int nodes = v8_key_is(&r->t, "nodes"), samples = v8_key_is(&r->t, "samples");
    if ((rc = v8_next(r)) != 0) return rc;
    if (samples && r->t.type == JSON_TOK_ARRAY_BEGIN) {
      V8_READ_ARRAY(r, p->samples, 0, 0);
    } else if (nodes && r->t.type == JSON_TOK_ARRAY_BEGIN) {
      while (!(rc = v8_next(r)) && r->t.type != JSON_TOK_ARRAY_END) {
        if (r->t.type == JSON_TOK_ARRAY_BEGIN) {
          return WEFT_EPARSE; /* Perfetto's reader gives up on the profile */
        } else if (r->t.type == JSON_TOK_OBJECT_BEGIN) {
          v8_node n = {0};
          if ((rc = v8_read_node(r, p, &n)) != 0) return rc;
          if (VEC_PUSH(p->nodes, n)) return WEFT_ENOMEM;
        }
      }
      if (rc) return rc;
    } else if (v8_is_open(&r->t)) {
      if ((rc = json_skip_container(&r->tk, &r->err)) != 0) return rc;
    }
  }
  return rc;
}

/* The profile object's members; its '{' was read. */
static int v8_read_fields(v8_reader *r, v8_profile *p) {
  int rc;
  while (!(rc = v8_next(r)) && r->t.type == JSON_TOK_KEY) {
    enum { OTHER, START, CPU, DELTAS } k = v8_key_is(&r->t, "startTime")    ? START
                                           : v8_key_is(&r->t, "cpuProfile") ? CPU
                                           : v8_key_is(&r->t, "timeDeltas") ? DELTAS
                                                                                   : OTHER;
    if ((rc = v8_next(r)) != 0) return rc;
    if (k == CPU && r->t.type == JSON_TOK_OBJECT_BEGIN) {
      rc = v8_read_cpu_profile(r, p);
    } else if (k == DELTAS && r->t.type == JSON_TOK_ARRAY_BEGIN) {
      V8_READ_ARRAY(r, p->deltas, 1, 0);
    } else if (v8_is_open(&r->t)) {
      rc = json_skip_container(&r->tk, &r->err);
    } else if (k == START) {
      p->has_start = v8_token_i64(&r->t, &p->start);
    }
    if (rc) return rc;
  }
  return rc;
}

/* The outer object: the profile itself, or (in_data) its "data" member. */
static int v8_read_top(v8_reader *r, v8_profile *p, int in_data) {
  int rc = v8_next(r);
  if (rc || r->t.type != JSON_TOK_OBJECT_BEGIN) return rc ? rc : WEFT_EPARSE;
  if (!in_data) return v8_read_fields(r, p);
  while (!(rc = v8_next(r)) && r->t.type == JSON_TOK_KEY) {
    int data = v8_key_is(&r->t, "data");
    if ((rc = v8_next(r)) != 0) return rc;
    if (data && r->t.type == JSON_TOK_OBJECT_BEGIN) rc = v8_read_fields(r, p);
    else if (v8_is_open(&r->t)) rc = json_skip_container(&r->tk, &r->err);
    if (rc) return rc;
  }
  return rc;
}

static int v8_read(v8_profile *p, const char *json, size_t len, int in_data) {
  p->has_start = 0;
  p->nodes.len = p->children.len = p->samples.len = p->deltas.len = 0;
  v8_reader r;
  int rc = json_tokenizer_init(&r.tk, json, len, NULL, &r.err);
  r.tk.trailing_commas = true; /* as weft reads the trace itself */
  if (!rc) rc = v8_read_top(&r, p, in_data);
  json_tokenizer_free(&r.tk);
  return rc;
}

/* ---- sessions ---- */

static uint64_t v8_session_hash(uint64_t id, int64_t pid) {
  return base_hash_u64(base_hash_u64(id) ^ (uint64_t)pid * 0x9e3779b97f4a7c15ULL);
}

/* The session (id, pid), created when `create`; NULL when absent (or out
 * of memory when creating: *rc says). */
static v8_session *v8_session_of(trace_context *ctx, v8_profile_state *st, uint64_t id,
                                 int64_t pid, int create, int *rc) {
  uint64_t h = v8_session_hash(id, pid);
  *rc = WEFT_OK;
  for (uint64_t i = 0; i < V8_MAX_PROBES; i++) {
    uint64_t k = base_hash_u64(h + i) >> 1;
    uint64_t *v = base_map_find(&st->session_index, k);
    if (v) {
      v8_session *s = &st->sessions.data[*v];
      if (s->id == id && s->pid == pid) return s;
      continue;
    }
    if (!create) return NULL;
    stack_profile_mapping_spec spec = {0};
    spec.end = -1;
    uint32_t mapping = 0;
    *rc = ctx_intern(ctx, "", 0, &spec.build_id);
    spec.name = spec.build_id;
    if (!*rc) *rc = stack_profile_mapping_new(ctx, &spec, &mapping);
    v8_session s = {id, pid, 0, mapping, {0}, {0}};
    uint64_t *slot;
    if (!*rc && VEC_PUSH(st->sessions, s)) *rc = WEFT_ENOMEM;
    if (!*rc && base_map_insert(&st->session_index, k, st->sessions.len - 1, &slot) < 0)
      *rc = WEFT_ENOMEM;
    return *rc ? NULL : &st->sessions.data[st->sessions.len - 1];
  }
  *rc = WEFT_ELIMIT;
  return NULL;
}

/* ---- applying ---- */

static int v8_intern(trace_context *ctx, const v8_text *s, string_id *out) {
  if (!s->escaped) return ctx_intern(ctx, s->ptr, s->len, out);
  char *buf = base_malloc(s->len ? s->len : 1);
  if (!buf) return WEFT_ENOMEM;
  size_t n;
  base_error err;
  int rc = json_unescape(s->ptr, s->len, buf, &n, &err);
  if (!rc) rc = ctx_intern(ctx, buf, n, out);
  base_free(buf);
  return rc;
}

static int v8_count(trace_context *ctx, const v8_profile_event *ev, stats_id stat) {
  return stats_add(&ctx->stats, stat, -1, ev->machine, ev->trace, 1);
}

/* Node n's callsite in session s; 1 when it is invalid (counted). */
static int v8_add_node(trace_context *ctx, const v8_profile *p, v8_session *s,
                       const v8_node *n) {
  for (size_t i = 0; i < n->children_len; i++) {
    uint64_t *slot;
    if (base_map_insert(&s->parents, p->children.data[n->children_at + i], n->id, &slot) < 0)
      return WEFT_ENOMEM;
    *slot = n->id;
  }
  string_id name = STRING_NULL, url = STRING_NULL;
  int rc = v8_intern(ctx, &n->name, &name);
  if (!rc && n->url.ptr) rc = v8_intern(ctx, &n->url, &url);
  uint32_t frame;
  if (!rc) rc = stack_profile_symbol_frame(ctx, s->mapping, name, url, -1, &frame);
  if (rc) return rc;
  int64_t parent = -1;
  const uint64_t *inferred = base_map_find(&s->parents, n->id);
  if (n->has_parent || inferred) {
    const uint64_t *cs = base_map_find(&s->callsites, n->has_parent ? n->parent : *inferred);
    if (!cs) return 1;
    parent = (int64_t)*cs;
  }
  uint32_t callsite;
  if ((rc = stack_profile_callsite(ctx, parent, frame, &callsite)) != 0) return rc;
  uint64_t *slot;
  int added = base_map_insert(&s->callsites, n->id, callsite, &slot);
  return added < 0 ? WEFT_ENOMEM : added ? WEFT_OK : 1;
}

static int v8_add_samples(trace_context *ctx, v8_profile_state *st, const v8_profile *p,
                          v8_session *s, const v8_profile_event *ev,
                          const v8_profile_clock *clock) {
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < p->samples.len; i++) {
    s->ts += (uint64_t)p->deltas.data[i] * 1000u;
    int64_t ts = (int64_t)s->ts;
    if (clock->sample_time && !clock->sample_time(clock->arg, ev, ts, &ts)) continue;
    const uint64_t *cs = base_map_find(&s->callsites, p->samples.data[i]);
    if (!cs) {
      rc = v8_count(ctx, ev, stat_legacy_v8_cpu_profile_invalid_sample);
      continue;
    }
    if (clock->sample) {
      rc = clock->sample(clock->arg, ev, ts, (uint32_t)*cs);
      continue;
    }
    rc = stack_profile_cpu_sample(ctx, STACK_PROFILE_CPU_LEGACY_V8, ts, (uint32_t)*cs,
                                  ev->utid, 0);
    st->has_samples = 1;
  }
  return rc;
}

static int v8_apply_chunk(trace_context *ctx, v8_profile_state *st, const v8_profile *p,
                          const v8_profile_event *ev, const v8_profile_clock *clock) {
  int rc;
  v8_session *s = v8_session_of(ctx, st, ev->session, ev->pid, 0, &rc);
  if (rc) return rc;
  for (size_t i = 0; i < p->nodes.len; i++) {
    rc = s ? v8_add_node(ctx, p, s, &p->nodes.data[i]) : 1;
    if (rc == 1) rc = v8_count(ctx, ev, stat_legacy_v8_cpu_profile_invalid_callsite);
    if (rc) return rc;
  }
  if (p->samples.len != p->deltas.len) return v8_count(ctx, ev, ev->rejected);
  if (!p->samples.len) return WEFT_OK;
  return s ? v8_add_samples(ctx, st, p, s, ev, clock) : v8_count(ctx, ev, ev->rejected);
}

int v8_profile_apply(trace_context *ctx, const v8_profile_event *ev, const v8_profile_clock *clock,
                     const char *json, size_t len) {
  v8_profile_state *st = v8_state(ctx);
  if (!st) return WEFT_ENOMEM;
  int rc = v8_read(&st->read, json, len, ev->in_data);
  if (rc == WEFT_ENOMEM) return rc;
  if (rc) return WEFT_OK; /* not a profile: ignored */
  const v8_profile *p = &st->read;
  if (!p->has_start) return v8_apply_chunk(ctx, st, p, ev, clock);
  int64_t ts = (int64_t)((uint64_t)p->start * 1000u); /* wraps, as Perfetto's */
  if (clock->start_time && !clock->start_time(clock->arg, ev, ts, &ts))
    return v8_count(ctx, ev, ev->rejected);
  v8_session *s = v8_session_of(ctx, st, ev->session, ev->pid, 1, &rc);
  if (s) s->ts = (uint64_t)ts;
  return rc;
}

/* ---- the queue ---- */

int v8_profile_queue_add(v8_profile_queue *q, const v8_profile_event *ev, uint64_t order,
                         const char *json, size_t len) {
  v8_profile_pending e = {*ev, order, q->text.len, len};
  if (VEC_RESERVE(q->text, q->text.len + len) || VEC_PUSH(q->events, e)) return WEFT_ENOMEM;
  if (len) memcpy(q->text.data + q->text.len, json, len);
  q->text.len += len;
  return WEFT_OK;
}

static int v8_pending_cmp(const void *a, const void *b) {
  const v8_profile_pending *x = a, *y = b;
  if (x->order != y->order) return x->order < y->order ? -1 : 1;
  return x->text_at < y->text_at ? -1 : x->text_at > y->text_at;
}

int v8_profile_queue_apply(trace_context *ctx, v8_profile_queue *q,
                           const v8_profile_clock *clock) {
  base_qsort(q->events.data, q->events.len, sizeof *q->events.data, v8_pending_cmp);
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < q->events.len; i++) {
    const v8_profile_pending *e = &q->events.data[i];
    rc = v8_profile_apply(ctx, &e->ev, clock, q->text.data + e->text_at, e->text_len);
  }
  q->events.len = q->text.len = 0;
  return rc;
}

void v8_profile_queue_free(v8_profile_queue *q) {
  VEC_FREE(q->events);
  VEC_FREE(q->text);
}

/* ---- sample order ---- */

typedef struct v8_sample_row {
  int64_t ts, callsite, task_context, utid;
  size_t row;
} v8_sample_row;

static int v8_sample_cmp(const void *a, const void *b) {
  const v8_sample_row *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

/* The legacy_v8 rows of the stack samples, in row order; *sorted: whether
 * their times already are. */
static int v8_collect_samples(trace_context *ctx, v8_sample_row **out, size_t *n, int *sorted) {
  const storage_table *t = ctx_table(ctx, TABLE_STACK_SAMPLE);
  string_id v8;
  int rc = stack_sample_source(ctx, STACK_SAMPLE_LEGACY_V8, &v8);
  if (rc) return rc;
  *out = base_malloc((t->row_count ? t->row_count : 1) * sizeof **out);
  if (!*out) return WEFT_ENOMEM;
  *n = 0, *sorted = 1;
  for (size_t i = 0; i < t->row_count; i++) {
    if (storage_get_str(t, STACK_SAMPLE_source, i) != v8) continue;
    v8_sample_row *r = &(*out)[(*n)++];
    r->ts = storage_get_i64(t, STACK_SAMPLE_ts, i);
    r->callsite = storage_get_i64_or(t, STACK_SAMPLE_callsite_id, i, -1);
    r->task_context = storage_get_i64_or(t, STACK_SAMPLE_task_context_id, i, -1);
    r->utid = storage_get_i64_or(t, STACK_SAMPLE_utid, i, -1);
    r->row = i;
    if (*n > 1 && r[-1].ts > r->ts) *sorted = 0;
  }
  return WEFT_OK;
}

/* V8 samples take the rows V8 samples hold, in timestamp order (file
 * order at equal times); other sources' rows stay as they are. */
int v8_profile_sort_samples(trace_context *ctx) {
  v8_profile_state *st = ctx->model.v8_profile;
  if (!st || !st->has_samples) return WEFT_OK;
  v8_sample_row *rows;
  size_t n;
  int sorted;
  int rc = v8_collect_samples(ctx, &rows, &n, &sorted);
  if (rc || sorted) return rc ? rc : (base_free(rows), WEFT_OK);
  size_t *at = base_malloc(n * sizeof *at);
  if (!at) return base_free(rows), WEFT_ENOMEM;
  for (size_t i = 0; i < n; i++) at[i] = rows[i].row;
  base_qsort(rows, n, sizeof *rows, v8_sample_cmp);
  storage_table *t = ctx_table(ctx, TABLE_STACK_SAMPLE);
  for (size_t i = 0; i < n; i++) {
    storage_set_i64(t, STACK_SAMPLE_ts, at[i], rows[i].ts);
    storage_set_i64(t, STACK_SAMPLE_callsite_id, at[i], rows[i].callsite);
    storage_set_i64(t, STACK_SAMPLE_task_context_id, at[i], rows[i].task_context);
    storage_set_i64(t, STACK_SAMPLE_utid, at[i], rows[i].utid);
  }
  base_free(at);
  base_free(rows);
  return storage_table_status(t);
}
