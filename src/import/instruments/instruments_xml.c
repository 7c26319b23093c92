/* instruments: reading the XML (see instruments_internal.h).
 *
 * The rules, as Perfetto reads an export:
 *  - a <row> holding a <backtrace> is a sample at its <sample-time> (or
 *    <event-time>), on its <thread>; other rows are skipped;
 *  - <thread fmt=NAME> holds <tid> and <process fmt=NAME> (with <pid>);
 *    <backtrace> holds <frame addr=HEX name=NAME>, the leaf first, each
 *    with an optional <binary path= UUID= load-addr=HEX>;
 *  - the first attribute of such an element is id=N (it defines the value)
 *    or ref=N (it repeats the value defined with id=N);
 *  - a row's cpu is its <core>'s value when the core is a ref=; a core
 *    defined in the row itself leaves the row's cpu 0 (Perfetto's reader
 *    sets the cpu only from a ref);
 *  - a binary's end is the largest address of a frame defined with it;
 *  - a value element without text is 0: a new thread's <tid ref=N/> (a
 *    thread renamed) gives tid 0, as in Perfetto.
 * Hostile input: the tokenizer (instruments_scan.h) fails on malformed
 * XML (unclosed or mismatched tags, bad syntax, references other than the
 * predefined ones and character references) and refuses entity
 * declarations (no entity expansion at all); nesting is bounded
 * (INS_MAX_DEPTH), value texts too (INS_MAX_TEXT), and a ref to an id not
 * defined before fails naming the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/instruments/instruments_internal.h"
#include "import/instruments/instruments_items.h"

enum {
  INS_K_THREAD = 1, INS_K_PROCESS, INS_K_CORE, INS_K_TIME, INS_K_BACKTRACE,
  INS_K_FRAME, INS_K_BINARY
};

/* What the text of the open value element goes to. */
enum { INS_T_NONE, INS_T_TIME, INS_T_CORE, INS_T_TID, INS_T_PID };

typedef struct ins_reader {
  import_file *f;
  ins_state *st;
  ins_items *items;
  size_t at; /* offset of the token being read, for messages */
  base_error *err;
  int failed;
  int depth;
  unsigned char open[INS_MAX_DEPTH + 1]; /* the INS_E_ of each open element, by depth */
  ins_sample row;
  uint32_t new_thread, new_process, new_frame;
  int text_kind, text_depth;
  uint64_t text_key; /* the id the value defines (0: none) */
  char text[INS_MAX_TEXT + 1];
  size_t text_len;
} ins_reader;

static void ins_fail_span(ins_reader *r, int code, const char *what, ins_span s) {
  if (!r->failed)
    base_error_set(r->err, code, "instruments XML line %lu: %s%.*s",
                   ins_items_line(r->items, r->at), what, s.len > 512 ? 512 : (int)s.len, s.p);
  r->failed = 1;
}

static void ins_fail(ins_reader *r, int code, const char *what, const char *more) {
  ins_fail_span(r, code, what, (ins_span){more, strlen(more)});
}

static void ins_nomem(ins_reader *r) {
  if (!r->failed) base_error_nomem(r->err);
  r->failed = 1;
}

static string_id ins_intern(ins_reader *r, ins_span s) {
  string_id id = STRING_NULL;
  if (ctx_intern(r->f->ctx, s.p, s.len, &id)) ins_nomem(r);
  return id;
}

/* An item's attribute value; an absent one is empty. */
static ins_span ins_item_value(const ins_item_span *s) {
  return (ins_span){s->p ? s->p : "", s->len};
}

/* An attribute value interned, STRING_NULL when absent. */
static string_id ins_intern_attr(ins_reader *r, const ins_item_span *s) {
  return s->p ? ins_intern(r, ins_item_value(s)) : STRING_NULL;
}

/* The element's id= or ref= (its first attribute). Returns 1 for a new
 * value (*key its id key), 0 for a ref found (*value), 2 for neither, -1
 * on failure. */
static int ins_lookup(ins_reader *r, const ins_item *item, int kind, uint64_t *key,
                      uint64_t *value) {
  *key = 0;
  if (item->key == INS_KEY_NONE) return 2;
  if (item->key == INS_KEY_BAD) {
    ins_fail_span(r, WEFT_EPARSE, "bad id/ref: ", ins_item_value(&item->span[0]));
    return -1;
  }
  *key = item->id << 4 | (uint64_t)kind;
  if (item->key == INS_KEY_ID) return 1;
  if (!ins_ids_find(&r->st->ids, item->id, (uint32_t)kind, value)) {
    ins_fail_span(r, WEFT_EPARSE, "ref= names no element defined before: ",
                  ins_item_value(&item->span[0]));
    return -1;
  }
  return 0;
}

/* Defines the value of key (id << 4 | kind; 0: none). */
static void ins_define(ins_reader *r, uint64_t key, uint64_t value) {
  if (key && ins_ids_define(&r->st->ids, key >> 4, (uint32_t)(key & 15), value)) ins_nomem(r);
}

/* Texts are read only for a value element: from its start until it ends
 * or another element starts (ins_capture_stop). */
static void ins_capture(ins_reader *r, int kind, uint64_t key) {
  r->text_kind = kind;
  r->text_depth = r->depth;
  r->text_key = key;
  r->text_len = 0;
}

static void ins_capture_stop(ins_reader *r) { r->text_kind = INS_T_NONE; }

/* ---- element starts ---- */

static void ins_start_thread(ins_reader *r, const ins_item *item) {
  uint64_t key, value;
  int k = ins_lookup(r, item, INS_K_THREAD, &key, &value);
  if (k < 0) return;
  if (k == 0) {
    r->row.thread = (uint32_t)value;
    return;
  }
  ins_thread t = {0, INS_NONE, ins_intern_attr(r, &item->span[0]), 0, 0};
  if (VEC_PUSH(r->st->threads, t)) return ins_nomem(r);
  r->new_thread = r->row.thread = (uint32_t)(r->st->threads.len - 1);
  ins_define(r, key, r->new_thread);
}

static void ins_start_process(ins_reader *r, const ins_item *item) {
  uint64_t key, value;
  int k = ins_lookup(r, item, INS_K_PROCESS, &key, &value);
  if (k < 0) return;
  uint32_t process = (uint32_t)value;
  if (k != 0) {
    ins_process p = {0, ins_intern_attr(r, &item->span[0])};
    if (VEC_PUSH(r->st->processes, p)) return ins_nomem(r);
    r->new_process = process = (uint32_t)(r->st->processes.len - 1);
    ins_define(r, key, process);
  }
  if (r->new_thread != INS_NONE) r->st->threads.data[r->new_thread].process = process;
}

static void ins_start_value(ins_reader *r, const ins_item *item, int kind, int text) {
  uint64_t key, value;
  int k = ins_lookup(r, item, kind, &key, &value);
  if (k < 0) return;
  if (k != 0) return ins_capture(r, text, key);
  if (kind == INS_K_CORE) r->row.cpu = (int64_t)value;
  else r->row.ts = (int64_t)value;
}

static void ins_start_backtrace(ins_reader *r, const ins_item *item) {
  uint64_t key, value;
  int k = ins_lookup(r, item, INS_K_BACKTRACE, &key, &value);
  if (k < 0) return;
  if (k == 0) {
    r->row.backtrace = (uint32_t)value;
    return;
  }
  ins_backtrace b = {.first = (uint32_t)r->st->frame_pool.len};
  if (VEC_PUSH(r->st->backtraces, b)) return ins_nomem(r);
  r->row.backtrace = (uint32_t)(r->st->backtraces.len - 1);
  ins_define(r, key, r->row.backtrace);
}

/* Adds `frame` to the row's backtrace: only the backtrace defined last
 * takes frames (its frames are contiguous); others' are counted. */
static void ins_backtrace_add(ins_reader *r, uint32_t frame) {
  ins_state *st = r->st;
  if (r->row.backtrace == INS_NONE || r->row.backtrace >= st->backtraces.len) return;
  ins_backtrace *b = &st->backtraces.data[r->row.backtrace];
  if (r->row.backtrace + 1 != st->backtraces.len ||
      b->first + b->count != st->frame_pool.len) {
    st->ignored++;
    return;
  }
  if (VEC_PUSH(st->frame_pool, frame)) return ins_nomem(r);
  b->count++;
}

static void ins_start_frame(ins_reader *r, const ins_item *item) {
  uint64_t key, value;
  int k = ins_lookup(r, item, INS_K_FRAME, &key, &value);
  if (k < 0) return;
  uint32_t frame = (uint32_t)value;
  if (k != 0) {
    ins_frame fr = {.addr = item->number,
                    .name = ins_intern(r, ins_item_value(&item->span[0])),
                    .binary = INS_NONE};
    if (VEC_PUSH(r->st->frames, fr)) return ins_nomem(r);
    r->new_frame = frame = (uint32_t)(r->st->frames.len - 1);
    ins_define(r, key, frame);
  }
  ins_backtrace_add(r, frame);
}

/* The UUID's hex digits, lowercase (its dashes dropped). */
static string_id ins_uuid(ins_reader *r, ins_span uuid) {
  char hex[128];
  size_t n = 0;
  for (const char *p = uuid.p; p < uuid.p + uuid.len && n + 1 < sizeof hex; p++) {
    char c = *p >= 'A' && *p <= 'F' ? (char)(*p + 32) : *p;
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) hex[n++] = c;
  }
  return ins_intern(r, (ins_span){hex, n});
}

static void ins_start_binary(ins_reader *r, const ins_item *item) {
  if (r->new_frame == INS_NONE) return; /* only a frame being defined has one */
  uint64_t key, value;
  int k = ins_lookup(r, item, INS_K_BINARY, &key, &value);
  if (k < 0) return;
  uint32_t binary = (uint32_t)value;
  if (k != 0) {
    ins_binary b = {ins_intern(r, ins_item_value(&item->span[0])),
                    ins_uuid(r, ins_item_value(&item->span[1])), item->number, 0};
    b.max_addr = b.load_addr;
    if (VEC_PUSH(r->st->binaries, b)) return ins_nomem(r);
    binary = (uint32_t)(r->st->binaries.len - 1);
    ins_define(r, key, binary);
  }
  r->st->frames.data[r->new_frame].binary = binary;
}

static void ins_on_start(ins_reader *r, const ins_item *item) {
  if (++r->depth > INS_MAX_DEPTH) return ins_fail(r, WEFT_ELIMIT, "elements nested too deep", "");
  ins_capture_stop(r);
  int element = item->element;
  r->open[r->depth] = (unsigned char)element;
  switch (element) {
  case INS_E_ROW: r->row = (ins_sample){0, INS_NONE, INS_NONE, 0}; break;
  case INS_E_THREAD: ins_start_thread(r, item); break;
  case INS_E_PROCESS: ins_start_process(r, item); break;
  case INS_E_CORE: ins_start_value(r, item, INS_K_CORE, INS_T_CORE); break;
  case INS_E_TIME: ins_start_value(r, item, INS_K_TIME, INS_T_TIME); break;
  case INS_E_TID:
    if (r->new_thread != INS_NONE) ins_capture(r, INS_T_TID, 0);
    break;
  case INS_E_PID:
    if (r->new_process != INS_NONE) ins_capture(r, INS_T_PID, 0);
    break;
  case INS_E_BACKTRACE: ins_start_backtrace(r, item); break;
  case INS_E_FRAME: ins_start_frame(r, item); break;
  case INS_E_BINARY: ins_start_binary(r, item); break;
  default: break;
  }
}

/* ---- texts and element ends ---- */

static void ins_on_text(ins_reader *r, const ins_item *item) {
  size_t room = INS_MAX_TEXT - r->text_len, n = item->span[0].len;
  if (item->text_plain && n <= room) memcpy(r->text + r->text_len, item->span[0].p, n);
  else if (item->text_plain || ins_item_text_decode(item, r->text + r->text_len, room, &n))
    return ins_fail(r, WEFT_ELIMIT, "value text longer than 256 bytes", "");
  r->text_len += n;
}

/* The captured text as a decimal number (spaces around it allowed); an
 * empty text (say <tid ref="3"/>, which Perfetto does not follow) is 0. */
static int ins_text_number(ins_reader *r, int64_t *out) {
  r->text[r->text_len] = '\0';
  int64_t fast = 0;
  size_t n = 0;
  for (; n < r->text_len && n < 18 && r->text[n] >= '0' && r->text[n] <= '9'; n++)
    fast = fast * 10 + (r->text[n] - '0');
  if (n && n == r->text_len) {
    *out = fast;
    return 0;
  }
  if (strspn(r->text, " \t\r\n") == r->text_len) {
    *out = 0;
    return 0;
  }
  char *end;
  long long v = strtoll(r->text, &end, 10);
  while (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r') end++;
  if (end == r->text || *end) {
    ins_fail(r, WEFT_EPARSE, "not a number: ", r->text);
    return -1;
  }
  *out = v;
  return 0;
}

static void ins_end_text(ins_reader *r) {
  int64_t v;
  int kind = r->text_kind;
  ins_capture_stop(r);
  if (ins_text_number(r, &v)) return;
  if (kind == INS_T_TIME) r->row.ts = v;
  if (kind == INS_T_TID) r->st->threads.data[r->new_thread].tid = v;
  if (kind == INS_T_PID) r->st->processes.data[r->new_process].pid = v;
  ins_define(r, r->text_key, (uint64_t)v);
}

static void ins_end_frame(ins_reader *r) {
  ins_frame *fr = &r->st->frames.data[r->new_frame];
  r->new_frame = INS_NONE;
  if (fr->binary == INS_NONE) return;
  ins_binary *b = &r->st->binaries.data[fr->binary];
  if (fr->addr > b->max_addr) b->max_addr = fr->addr;
}

static void ins_on_end(ins_reader *r) {
  if (r->text_kind != INS_T_NONE && r->depth == r->text_depth) ins_end_text(r);
  int element = r->open[r->depth--];
  if (element == INS_E_ROW) {
    if (r->row.backtrace != INS_NONE && r->row.thread != INS_NONE &&
        VEC_PUSH(r->st->samples, r->row))
      ins_nomem(r);
  } else if (element == INS_E_FRAME && r->new_frame != INS_NONE) {
    ins_end_frame(r);
  } else if (element == INS_E_THREAD) {
    r->new_thread = INS_NONE;
  } else if (element == INS_E_PROCESS) {
    r->new_process = INS_NONE;
  }
}

/* ---- the document ---- */

/* An element defining an id takes at least 11 bytes (<a id="1"/>); an
 * export's ids are numbered in order, so its ids are about below this. */
#define INS_BYTES_PER_ID 16
#define INS_IDS_RESERVED_MAX ((size_t)1 << 24) /* past this, the array grows as ids come */

/* How many items ahead a ref's slot in the id table is fetched. */
#define INS_REF_AHEAD 16

static void ins_on_item(ins_reader *r, const ins_item *item) {
  r->at = item->offset;
  switch (item->type) {
  case INS_TOK_START:
    ins_on_start(r, item);
    if (item->closed && !r->failed) ins_on_end(r);
    break;
  case INS_TOK_END: ins_on_end(r); break;
  case INS_TOK_TEXT:
    if (r->text_kind != INS_T_NONE && r->depth == r->text_depth) ins_on_text(r, item);
    break;
  default: break;
  }
}

/* Reads a batch's items, then its error if it ends with one. */
static void ins_read_batch(ins_reader *r, const ins_batch *b) {
  const ins_ids *ids = &r->st->ids;
  for (size_t i = 0; i < b->count && i < INS_REF_AHEAD; i++)
    if (b->items[i].key == INS_KEY_REF) ins_ids_prefetch(ids, b->items[i].id);
  for (size_t i = 0; i < b->count && !r->failed; i++) {
    const ins_item *ahead = &b->items[i + INS_REF_AHEAD < b->count ? i + INS_REF_AHEAD : i];
    if (ahead->key == INS_KEY_REF) ins_ids_prefetch(ids, ahead->id);
    ins_on_item(r, &b->items[i]);
  }
  if (!r->failed && b->status) {
    *r->err = b->err;
    r->failed = 1;
  }
}

/* The arrays that grow with the document, sized at once for the most
 * elements it can hold (VEC_RESERVE_INPUT): a frame element takes at
 * least 15 bytes (<frame ref="1"/>), a backtrace defined 19, a sample's
 * row 40. */
static void ins_reserve_arrays(ins_state *st, size_t len) {
  VEC_RESERVE_INPUT(st->frames, len, 15);
  VEC_RESERVE_INPUT(st->frame_pool, len, 15);
  VEC_RESERVE_INPUT(st->backtraces, len, 19);
  VEC_RESERVE_INPUT(st->samples, len, 40);
}

/* Reads the items of the document until its end or a failure. */
static void ins_read_items(ins_reader *r) {
  const ins_batch *b;
  while (!r->failed) {
    if (ins_items_next(r->items, &b, r->err)) {
      r->failed = 1;
      return;
    }
    if (!b) return;
    ins_read_batch(r, b);
  }
}

int instruments_read_xml(import_file *f, ins_state *st, base_error *err) {
  ins_reader *r = base_calloc(1, sizeof *r);
  if (!r) return base_error_nomem(err);
  *r = (ins_reader){.f = f, .st = st, .err = err};
  r->new_thread = r->new_process = r->new_frame = INS_NONE;
  r->row = (ins_sample){0, INS_NONE, INS_NONE, 0}; /* elements outside a row belong to none */
  size_t ids = f->len / INS_BYTES_PER_ID;
  int rc = ins_ids_reserve(&st->ids, ids < INS_IDS_RESERVED_MAX ? ids : INS_IDS_RESERVED_MAX);
  ins_reserve_arrays(st, f->len);
  if (rc) {
    base_free(r);
    return base_error_nomem(err);
  }
  rc = ins_items_open(f, &r->items, err);
  if (rc) {
    base_free(r);
    return rc;
  }
  ins_read_items(r);
  ins_items_close(r->items);
  rc = r->failed ? (err->code ? err->code : WEFT_EPARSE) : WEFT_OK;
  base_free(r);
  return rc;
}
