/* instruments: the document tokenized into items, batches ahead of the
 * reader (see instruments_items.h).
 *
 * A ring of batches: a fill task on the load's pool tokenizes into the
 * free batches in ring order while the reader reads the filled ones (the
 * ring below says who owns what). At most one fill runs at a time, and
 * a fill starts only after the one before it has stopped, under the
 * lock, so the tokenizer needs no lock of its own. Attribute values the
 * tokenizer had to decode live in its scratch only until its next token;
 * they are copied to the batch's bytes, and their spans, kept as offsets
 * while the bytes may move, are pointed there when the batch is full. */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string.h>
#include <time.h>

#include "import/instruments/instruments_items.h"

#define INS_BATCH_ITEMS 16384              /* items of a batch at most */
#define INS_BATCH_BYTES ((size_t)4 << 20)  /* a batch ends once its bytes pass this */
#define INS_RING 4                         /* batches filled ahead, and the one read */

/* The ring: batches ring[head], ring[head + 1], ... (mod INS_RING) are
 * filled, `filled` of them; the first is being read when `reading`. At
 * most one fill runs (`filling`); it fills the free batches, in ring
 * order, and stops when none is free. The reader starts a fill whenever
 * none runs and a batch is free, so the worker is rarely woken from
 * sleep with the reader waiting. lock guards head, filled, reading,
 * filling, fill_ended and job; the tokenizer, value_open and fixups
 * belong to the running fill. */
struct ins_items {
  import_file *f;
  ins_scan scan;
  ins_item cur;   /* the item being made */
  int value_open; /* the last tag started a value element: its texts are kept */
  VEC(uint32_t) fixups; /* item << 1 | span of the spans that point into bytes */
  pthread_mutex_t lock;
  pthread_cond_t ready; /* a batch was filled or the fill stopped */
  size_t head, filled;
  int reading, filling, fill_ended;
  scan_job *job; /* the fill submitted last (NULL: none, or it ran here) */
  ins_batch ring[INS_RING];
};

/* ---- numbers in attribute values, read as the C library reads them ---- */

static int ins_c_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* The digits of base 10 or 16 at p: their value (saturated at `limit`,
 * *over set when it was passed) and where they end. */
static const char *ins_digits(const char *p, const char *end, int base, uint64_t limit,
                              uint64_t *value, int *over) {
  uint64_t v = 0;
  *over = 0;
  for (; p < end; p++) {
    unsigned c = (unsigned char)*p, d = c - '0', l = (c | 32) - 'a';
    if (d >= 10 && !(base == 16 && l < 6)) break;
    unsigned digit = d < 10 ? d : l + 10;
    if (v > (limit - digit) / (unsigned)base) *over = 1;
    else v = v * (unsigned)base + digit;
  }
  *value = *over ? limit : v;
  return p;
}

/* The id written in [s, s + n): up to 18 decimal digits are read at once,
 * any other form as strtoull(s, &end, 10) reads it, with the whole value
 * used (spaces before it and a sign taken as strtoull takes them).
 * Returns 0 on success, -1 when it is no id below 2^59. */
static int ins_parse_id(const char *s, size_t n, uint64_t *id) {
  const char *end = s + n, *p = s;
  uint64_t v = 0;
  while (p < end && *p >= '0' && *p <= '9' && p - s < 18) v = v * 10 + (uint64_t)(*p++ - '0');
  if (p == s || p != end) {
    p = s;
    while (p < end && ins_c_space(*p)) p++;
    int neg = p < end && *p == '-';
    if (p < end && (*p == '-' || *p == '+')) p++;
    int over;
    const char *digits = p;
    p = ins_digits(p, end, 10, UINT64_MAX, &v, &over);
    if (p == digits || p != end) return -1;
    if (neg && !over) v = 0 - v;
  }
  if (v >= (1ull << 59)) return -1;
  *id = v;
  return 0;
}

/* A hex number as strtoll(s, NULL, 16) reads it: "0x" and up to 15
 * digits at once, any other form as strtoll does (spaces, a sign, an
 * optional 0x, the digits up to the first other byte, saturated). */
static int64_t ins_hex(const char *s, size_t n) {
  const char *end = s + n, *p = s;
  if (n > 2 && s[0] == '0' && s[1] == 'x') {
    uint64_t v = 0;
    for (p = s + 2; p < end && p - s < 17; p++) {
      unsigned c = (unsigned char)*p, d = c - '0', l = (c | 32) - 'a';
      if (d < 10) v = v << 4 | d;
      else if (l < 6) v = v << 4 | (l + 10);
      else break;
    }
    if (p == end) return (int64_t)v;
    p = s;
  }
  while (p < end && ins_c_space(*p)) p++;
  int neg = p < end && *p == '-';
  if (p < end && (*p == '-' || *p == '+')) p++;
  if (end - p > 2 && p[0] == '0' && (p[1] | 32) == 'x' &&
      ((unsigned)(p[2] - '0') < 10 || (unsigned)((p[2] | 32) - 'a') < 6))
    p += 2;
  uint64_t v;
  int over;
  ins_digits(p, end, 16, neg ? (uint64_t)1 << 63 : INT64_MAX, &v, &over);
  return neg ? (int64_t)(0 - v) : (int64_t)v;
}

/* ---- one token to an item ---- */

/* Stores an item past the caches (non-temporal stores, 16-byte aligned
 * as malloc aligns): the reader, on another core, reads it next, and a
 * cached line would be fetched back from that core's cache each time the
 * batch is filled again, which made the fill twice as slow. */
static inline void ins_item_store(ins_item *dst, const ins_item *src) {
#if defined(__SSE2__)
  _Static_assert(sizeof(ins_item) == 64, "an item is one cache line");
  const __m128i *s = (const __m128i *)src;
  __m128i *d = (__m128i *)dst;
  _mm_stream_si128(d, _mm_loadu_si128(s));
  _mm_stream_si128(d + 1, _mm_loadu_si128(s + 1));
  _mm_stream_si128(d + 2, _mm_loadu_si128(s + 2));
  _mm_stream_si128(d + 3, _mm_loadu_si128(s + 3));
#else
  *dst = *src;
#endif
}

#define INS_IS(name, lit) (!memcmp((name).p, lit, sizeof lit - 1))

/* The INS_E_ of an element's name: its length picks the names to compare. */
static int ins_element(ins_span name) {
  switch (name.len) {
  case 3: return INS_IS(name, "row")   ? INS_E_ROW
                 : INS_IS(name, "tid") ? INS_E_TID
                 : INS_IS(name, "pid") ? INS_E_PID
                                       : INS_E_OTHER;
  case 4: return INS_IS(name, "core") ? INS_E_CORE : INS_E_OTHER;
  case 5: return INS_IS(name, "frame") ? INS_E_FRAME : INS_E_OTHER;
  case 6: return INS_IS(name, "thread")   ? INS_E_THREAD
                 : INS_IS(name, "binary") ? INS_E_BINARY
                                          : INS_E_OTHER;
  case 7: return INS_IS(name, "process") ? INS_E_PROCESS : INS_E_OTHER;
  case 9: return INS_IS(name, "backtrace") ? INS_E_BACKTRACE : INS_E_OTHER;
  case 10: return INS_IS(name, "event-time") ? INS_E_TIME : INS_E_OTHER;
  case 11: return INS_IS(name, "sample-time") ? INS_E_TIME : INS_E_OTHER;
  default: return INS_E_OTHER;
  }
}

/* The value of the first attribute named lit (NULL: none). */
#define INS_ATTR_VALUE(tok, lit) ins_attr_find(tok, lit, sizeof lit - 1)

static inline const ins_span *ins_attr_find(const ins_tok *tok, const char *name, size_t len) {
  for (size_t i = 0; i < tok->attr_count; i++) {
    const ins_span *n = &tok->attrs[i].name;
    if (n->len == len && memcmp(n->p, name, len) == 0) return &tok->attrs[i].value;
  }
  return NULL;
}

/* Sets span `which` of the batch's newest item to v (absent: NULL), a
 * value decoded in the tokenizer's scratch copied to the batch's bytes. */
static int ins_item_span_set(ins_items *it, ins_batch *b, int which, const ins_span *v) {
  ins_item_span *out = &it->cur.span[which];
  const ins_scan *s = &it->scan;
  uintptr_t at = v ? (uintptr_t)v->p : 0, scratch = (uintptr_t)s->scratch;
  if (!v || !v->len || !s->scratch || at < scratch || at >= scratch + s->scratch_len) {
    *out = (ins_item_span){v ? (v->len ? v->p : "") : NULL, v ? v->len : 0};
    return WEFT_OK;
  }
  size_t pos = b->bytes.len;
  if (VEC_RESERVE(b->bytes, pos + v->len) ||
      VEC_PUSH(it->fixups, (uint32_t)(b->count << 1 | (size_t)which)))
    return WEFT_ENOMEM;
  memcpy(b->bytes.data + pos, v->p, v->len);
  b->bytes.len = pos + v->len;
  *out = (ins_item_span){(const char *)(uintptr_t)pos, v->len};
  return WEFT_OK;
}

/* The key of the start tag's first attribute, into item. */
static void ins_item_key(ins_item *item, const ins_tok *tok) {
  item->key = INS_KEY_NONE;
  if (!tok->attr_count) return;
  const ins_span *a = &tok->attrs[0].name, *v = &tok->attrs[0].value;
  int is_id = a->len == 2 && a->p[0] == 'i' && a->p[1] == 'd';
  if (!is_id && !(a->len == 3 && INS_IS(*a, "ref"))) return;
  item->key = ins_parse_id(v->p, v->len, &item->id) ? INS_KEY_BAD
              : is_id                                ? INS_KEY_ID
                                                     : INS_KEY_REF;
}

/* The attributes an element defined here (id= or none) is read with. */
static int ins_item_attrs(ins_items *it, ins_batch *b, const ins_tok *tok) {
  ins_item *item = &it->cur;
  const ins_span *v;
  int rc = WEFT_OK;
  switch (item->element) {
  case INS_E_THREAD:
  case INS_E_PROCESS: return ins_item_span_set(it, b, 0, INS_ATTR_VALUE(tok, "fmt"));
  case INS_E_FRAME:
    v = INS_ATTR_VALUE(tok, "addr");
    item->number = v ? ins_hex(v->p, v->len) : 0;
    return ins_item_span_set(it, b, 0, INS_ATTR_VALUE(tok, "name"));
  case INS_E_BINARY:
    v = INS_ATTR_VALUE(tok, "load-addr");
    item->number = v ? ins_hex(v->p, v->len) : 0;
    rc = ins_item_span_set(it, b, 0, INS_ATTR_VALUE(tok, "path"));
    return rc ? rc : ins_item_span_set(it, b, 1, INS_ATTR_VALUE(tok, "UUID"));
  default: return WEFT_OK;
  }
}

static int ins_item_start(ins_items *it, ins_batch *b, const ins_tok *tok) {
  ins_item *item = &it->cur;
  item->element = (uint8_t)ins_element(tok->name);
  switch (item->element) {
  case INS_E_OTHER:
  case INS_E_ROW:
  case INS_E_TID:
  case INS_E_PID: break;
  default:
    ins_item_key(item, tok);
    if (item->key == INS_KEY_BAD || item->key == INS_KEY_REF)
      return ins_item_span_set(it, b, 0, &tok->attrs[0].value);
    return ins_item_attrs(it, b, tok);
  }
  return WEFT_OK;
}

/* Appends the item of tok (a text no element reads is left out). */
static int ins_item_add(ins_items *it, ins_batch *b, const ins_tok *tok) {
  if (tok->type == INS_TOK_TEXT && !it->value_open) return WEFT_OK;
  ins_item *item = &it->cur;
  *item = (ins_item){.offset = tok->offset, .type = (uint8_t)tok->type};
  int rc = WEFT_OK;
  if (tok->type == INS_TOK_TEXT) {
    item->span[0] = (ins_item_span){tok->text.p, tok->text.len};
    item->text_cdata = (uint8_t)tok->text_cdata;
    item->text_plain = (uint8_t)tok->text_plain;
  } else if (tok->type == INS_TOK_START) {
    rc = ins_item_start(it, b, tok);
    int e = item->element;
    it->value_open = e == INS_E_TIME || e == INS_E_CORE || e == INS_E_TID || e == INS_E_PID;
    if (tok->self_closing) { /* self-closing: its END is read now, and folded in */
      ins_tok end;
      base_error unused;
      rc = rc ? rc : ins_scan_next(&it->scan, &end, &unused);
      assert(rc || end.type == INS_TOK_END);
      item->closed = 1;
      it->value_open = 0;
    }
  } else {
    it->value_open = 0;
  }
  if (!rc) ins_item_store(&b->items[b->count++], item);
  return rc;
}

/* ---- batches ---- */

/* Points the spans kept as offsets into the batch's bytes. */
static void ins_batch_fix(ins_items *it, ins_batch *b) {
  for (size_t i = 0; i < it->fixups.len; i++) {
    uint32_t f = it->fixups.data[i];
    ins_item_span *s = &b->items[f >> 1].span[f & 1];
    s->p = b->bytes.data + (uintptr_t)s->p;
  }
  it->fixups.len = 0;
}

/* Fills batch b with the next tokens. */
static void ins_batch_fill(ins_items *it, ins_batch *b) {
  b->count = b->bytes.len = 0;
  b->status = 0;
  while (b->count < b->cap && b->bytes.len < INS_BATCH_BYTES) {
    ins_tok tok;
    int rc = ins_scan_next(&it->scan, &tok, &b->err);
    if (!rc && tok.type == INS_TOK_EOF) break;
    if (!rc) rc = ins_item_add(it, b, &tok);
    if (rc == WEFT_ENOMEM && !b->err.code) base_error_nomem(&b->err);
    if (rc) {
      b->status = rc;
      break;
    }
  }
  b->last = b->status || (b->count < b->cap && b->bytes.len < INS_BATCH_BYTES);
  ins_batch_fix(it, b);
}

/* The fill task (a scan_task's run): fills the free batches in ring
 * order until none is free or the last is filled, then stops. */
static int ins_fill_run(void *arg, void **result, base_error *err) {
  (void)result, (void)err;
  ins_items *it = arg;
  pthread_mutex_lock(&it->lock);
  while (!it->fill_ended && it->filled < INS_RING) {
    ins_batch *b = &it->ring[(it->head + it->filled) % INS_RING];
    pthread_mutex_unlock(&it->lock);
    ins_batch_fill(it, b);
#if defined(__SSE2__)
    _mm_sfence(); /* the streamed items before the batch is handed over */
#endif
    pthread_mutex_lock(&it->lock);
    it->fill_ended = b->last;
    it->filled++;
    pthread_cond_signal(&it->ready);
  }
  it->filling = 0;
  pthread_cond_signal(&it->ready);
  pthread_mutex_unlock(&it->lock);
  return WEFT_OK;
}

/* Called with the lock held and no fill running: starts one, on a worker
 * or here. The lock is released while a finished fill is taken and while
 * a fill runs here. */
static int ins_fill_start(ins_items *it, base_error *err) {
  scan_job *done = it->job;
  it->job = NULL;
  it->filling = 1;
  pthread_mutex_unlock(&it->lock);
  void *unused;
  int rc = done ? import_task_take(it->f, done, &unused, err) : WEFT_OK;
  scan_task task = {ins_fill_run, NULL, it};
  scan_job *job = NULL;
  if (!rc) rc = import_task_submit(it->f, &task, &job);
  if (!rc && !job) rc = ins_fill_run(it, &unused, err);
  pthread_mutex_lock(&it->lock);
  it->job = job;
  if (rc && !job) it->filling = 0;
  return rc && !err->code ? base_error_alloc(err, rc) : rc;
}

int ins_items_open(import_file *f, ins_items **out, base_error *err) {
  ins_items *it = base_calloc(1, sizeof *it);
  if (!it) return base_error_nomem(err);
  it->f = f;
  ins_scan_init(&it->scan, (const char *)f->data, f->len);
  pthread_mutex_init(&it->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&it->ready, &attr);
  pthread_condattr_destroy(&attr);
  size_t cap = f->len / 8 + 16 < INS_BATCH_ITEMS ? f->len / 8 + 16 : INS_BATCH_ITEMS;
  for (int i = 0; i < INS_RING; i++) {
    it->ring[i].items = base_malloc(cap * sizeof *it->ring[i].items);
    it->ring[i].cap = cap;
    if (!it->ring[i].items) {
      ins_items_close(it);
      return base_error_nomem(err);
    }
  }
  *out = it;
  return WEFT_OK;
}

/* Called with the lock held while a fill runs and no batch is filled:
 * waits for a batch. A fill that has given none after INS_WAIT_MS may not
 * have started, its worker busy with other work of the load (another
 * file's scan): it is then taken, which runs it here if it has not
 * started, or waits for it to end. */
#define INS_WAIT_MS 2

static int ins_wait_batch(ins_items *it, base_error *err) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_nsec += INS_WAIT_MS * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  while (!it->filled && it->filling)
    if (pthread_cond_timedwait(&it->ready, &it->lock, &until) == ETIMEDOUT) break;
  if (it->filled || !it->filling || !it->job) return WEFT_OK;
  scan_job *job = it->job;
  it->job = NULL;
  pthread_mutex_unlock(&it->lock);
  void *unused;
  int rc = import_task_take(it->f, job, &unused, err);
  pthread_mutex_lock(&it->lock);
  return rc;
}

int ins_items_next(ins_items *it, const ins_batch **out, base_error *err) {
  int rc = WEFT_OK;
  *out = NULL;
  pthread_mutex_lock(&it->lock);
  if (it->reading) { /* the batch read last is free again */
    it->reading = 0;
    it->head = (it->head + 1) % INS_RING;
    it->filled--;
  }
  for (;;) {
    if (!it->filling && !it->fill_ended && it->filled < INS_RING &&
        (rc = ins_fill_start(it, err)))
      break;
    if (it->filled) {
      it->reading = 1;
      *out = &it->ring[it->head];
      break;
    }
    if (!it->filling) break; /* the last batch was read */
    if ((rc = ins_wait_batch(it, err))) break;
  }
  pthread_mutex_unlock(&it->lock);
  return rc;
}

void ins_items_close(ins_items *it) {
  if (!it) return;
  if (it->job) { /* stop the fill at its next batch, then wait for it */
    pthread_mutex_lock(&it->lock);
    it->fill_ended = 1;
    pthread_mutex_unlock(&it->lock);
    import_task_drop(it->f, it->job);
  }
  for (int i = 0; i < INS_RING; i++) {
    base_free(it->ring[i].items);
    VEC_FREE(it->ring[i].bytes);
  }
  VEC_FREE(it->fixups);
  ins_scan_free(&it->scan);
  pthread_cond_destroy(&it->ready);
  pthread_mutex_destroy(&it->lock);
  base_free(it);
}

unsigned long ins_items_line(const ins_items *it, size_t offset) {
  return ins_scan_line(&it->scan, offset);
}

int ins_item_text_decode(const ins_item *item, char *dst, size_t cap, size_t *out_len) {
  ins_tok tok = {.type = INS_TOK_TEXT,
                 .text = {item->span[0].p, item->span[0].len},
                 .text_cdata = item->text_cdata,
                 .text_plain = item->text_plain};
  return ins_scan_text_decode(&tok, dst, cap, out_len);
}
