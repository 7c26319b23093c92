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
 * Hostile input: expat reports malformed XML (unclosed tags, bad syntax);
 * entity declarations are refused (no entity expansion at all), nesting is
 * bounded (INS_MAX_DEPTH), value texts too (INS_MAX_TEXT), and a ref to an
 * id not defined before fails naming the line. */
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/instruments/instruments_internal.h"

enum {
  INS_K_THREAD = 1, INS_K_PROCESS, INS_K_CORE, INS_K_TIME, INS_K_BACKTRACE,
  INS_K_FRAME, INS_K_BINARY
};

/* The elements read (INS_E_OTHER: any other). */
enum {
  INS_E_OTHER, INS_E_ROW, INS_E_THREAD, INS_E_PROCESS, INS_E_CORE, INS_E_TIME, INS_E_TID,
  INS_E_PID, INS_E_BACKTRACE, INS_E_FRAME, INS_E_BINARY
};

/* What the text of the open value element goes to. */
enum { INS_T_NONE, INS_T_TIME, INS_T_CORE, INS_T_TID, INS_T_PID };

typedef struct ins_reader {
  import_file *f;
  ins_state *st;
  XML_Parser parser;
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

static void ins_fail(ins_reader *r, int code, const char *fmt, const char *what) {
  if (!r->failed)
    base_error_set(r->err, code, "instruments XML line %lu: %s%s",
                   (unsigned long)XML_GetCurrentLineNumber(r->parser), fmt, what);
  r->failed = 1;
  XML_StopParser(r->parser, XML_FALSE);
}

static void ins_nomem(ins_reader *r) {
  if (!r->failed) base_error_nomem(r->err);
  r->failed = 1;
  XML_StopParser(r->parser, XML_FALSE);
}

static string_id ins_intern(ins_reader *r, const char *s) {
  string_id id = STRING_NULL;
  if (ctx_intern(r->f->ctx, s, strlen(s), &id)) ins_nomem(r);
  return id;
}

static const char *ins_attr(const char **attrs, const char *name) {
  for (int i = 0; attrs[i]; i += 2)
    if (attrs[i][0] == name[0] && strcmp(attrs[i], name) == 0) return attrs[i + 1];
  return NULL;
}

/* The id written in s: up to 18 decimal digits are read here, anything
 * else by strtoull (spaces, a sign: as strtoull takes them). Returns 0 on
 * success, -1 when s is no id below 2^59. */
static int ins_parse_id(const char *s, uint64_t *id) {
  uint64_t v = 0;
  const char *p = s;
  while (*p >= '0' && *p <= '9' && p - s < 18) v = v * 10 + (uint64_t)(*p++ - '0');
  if (p == s || *p) {
    char *end;
    unsigned long long slow = strtoull(s, &end, 10);
    if (end == s || *end) return -1;
    v = slow;
  }
  if (v >= (1ull << 59)) return -1;
  *id = v;
  return 0;
}

/* The element's id= or ref= (its first attribute). Returns 1 for a new
 * value (*key its id key), 0 for a ref found (*value), 2 for neither, -1
 * on failure. */
static int ins_lookup(ins_reader *r, const char **attrs, int kind, uint64_t *key,
                      uint64_t *value) {
  *key = 0;
  const char *a = attrs[0];
  int is_id = a && a[0] == 'i' && a[1] == 'd' && !a[2];
  if (!is_id && !(a && !strcmp(a, "ref"))) return 2;
  uint64_t id;
  if (ins_parse_id(attrs[1], &id)) {
    ins_fail(r, WEFT_EPARSE, "bad id/ref: ", attrs[1]);
    return -1;
  }
  *key = id << 4 | (uint64_t)kind;
  if (is_id) return 1;
  const uint64_t *found = ins_ids_find(&r->st->ids, id, (uint32_t)kind);
  if (!found) {
    ins_fail(r, WEFT_EPARSE, "ref= names no element defined before: ", attrs[1]);
    return -1;
  }
  *value = *found;
  return 0;
}

/* Defines the value of key (id << 4 | kind; 0: none). */
static void ins_define(ins_reader *r, uint64_t key, uint64_t value) {
  if (key && ins_ids_define(&r->st->ids, key >> 4, (uint32_t)(key & 15), value)) ins_nomem(r);
}

static void XMLCALL ins_on_text(void *user, const char *s, int len);

/* Texts are read only for a value element: the handler is set here, and
 * unset when the element ends or another starts (ins_capture_stop). */
static void ins_capture(ins_reader *r, int kind, uint64_t key) {
  if (r->text_kind == INS_T_NONE) XML_SetCharacterDataHandler(r->parser, ins_on_text);
  r->text_kind = kind;
  r->text_depth = r->depth;
  r->text_key = key;
  r->text_len = 0;
}

static void ins_capture_stop(ins_reader *r) {
  if (r->text_kind == INS_T_NONE) return;
  r->text_kind = INS_T_NONE;
  XML_SetCharacterDataHandler(r->parser, NULL);
}

/* A hex number as strtoll(s, NULL, 16) reads it: "0x" and up to 15
 * digits here, any other form by strtoll. */
static int64_t ins_hex(const char *s) {
  if (s[0] == '0' && s[1] == 'x') {
    uint64_t v = 0;
    const char *p = s + 2;
    for (; p - s < 17; p++) {
      unsigned c = (unsigned char)*p, d = c - '0', l = (c | 32) - 'a';
      if (d < 10) v = v << 4 | d;
      else if (l < 6) v = v << 4 | (l + 10);
      else break;
    }
    if (p > s + 2 && !*p) return (int64_t)v;
  }
  return strtoll(s, NULL, 16);
}

/* ---- element starts ---- */

static void ins_start_thread(ins_reader *r, const char **attrs) {
  uint64_t key, value;
  int k = ins_lookup(r, attrs, INS_K_THREAD, &key, &value);
  if (k < 0) return;
  if (k == 0) {
    r->row.thread = (uint32_t)value;
    return;
  }
  const char *fmt = ins_attr(attrs, "fmt");
  ins_thread t = {0, INS_NONE, fmt ? ins_intern(r, fmt) : STRING_NULL, 0, 0};
  if (VEC_PUSH(r->st->threads, t)) return ins_nomem(r);
  r->new_thread = r->row.thread = (uint32_t)(r->st->threads.len - 1);
  ins_define(r, key, r->new_thread);
}

static void ins_start_process(ins_reader *r, const char **attrs) {
  uint64_t key, value;
  int k = ins_lookup(r, attrs, INS_K_PROCESS, &key, &value);
  if (k < 0) return;
  uint32_t process = (uint32_t)value;
  if (k != 0) {
    const char *fmt = ins_attr(attrs, "fmt");
    ins_process p = {0, fmt ? ins_intern(r, fmt) : STRING_NULL};
    if (VEC_PUSH(r->st->processes, p)) return ins_nomem(r);
    r->new_process = process = (uint32_t)(r->st->processes.len - 1);
    ins_define(r, key, process);
  }
  if (r->new_thread != INS_NONE) r->st->threads.data[r->new_thread].process = process;
}

static void ins_start_value(ins_reader *r, const char **attrs, int kind, int text) {
  uint64_t key, value;
  int k = ins_lookup(r, attrs, kind, &key, &value);
  if (k < 0) return;
  if (k != 0) return ins_capture(r, text, key);
  if (kind == INS_K_CORE) r->row.cpu = (int64_t)value;
  else r->row.ts = (int64_t)value;
}

static void ins_start_backtrace(ins_reader *r, const char **attrs) {
  uint64_t key, value;
  int k = ins_lookup(r, attrs, INS_K_BACKTRACE, &key, &value);
  if (k < 0) return;
  if (k == 0) {
    r->row.backtrace = (uint32_t)value;
    return;
  }
  ins_backtrace b = {(uint32_t)r->st->frame_pool.len, 0};
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

static void ins_start_frame(ins_reader *r, const char **attrs) {
  uint64_t key, value;
  int k = ins_lookup(r, attrs, INS_K_FRAME, &key, &value);
  if (k < 0) return;
  uint32_t frame = (uint32_t)value;
  if (k != 0) {
    const char *addr = ins_attr(attrs, "addr"), *name = ins_attr(attrs, "name");
    ins_frame fr = {addr ? ins_hex(addr) : 0, ins_intern(r, name ? name : ""),
                    INS_NONE};
    if (VEC_PUSH(r->st->frames, fr)) return ins_nomem(r);
    r->new_frame = frame = (uint32_t)(r->st->frames.len - 1);
    ins_define(r, key, frame);
  }
  ins_backtrace_add(r, frame);
}

/* The UUID's hex digits, lowercase (its dashes dropped). */
static string_id ins_uuid(ins_reader *r, const char *uuid) {
  char hex[128];
  size_t n = 0;
  for (const char *p = uuid; *p && n + 1 < sizeof hex; p++) {
    char c = *p >= 'A' && *p <= 'F' ? (char)(*p + 32) : *p;
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) hex[n++] = c;
  }
  hex[n] = '\0';
  return ins_intern(r, hex);
}

static void ins_start_binary(ins_reader *r, const char **attrs) {
  if (r->new_frame == INS_NONE) return; /* only a frame being defined has one */
  uint64_t key, value;
  int k = ins_lookup(r, attrs, INS_K_BINARY, &key, &value);
  if (k < 0) return;
  uint32_t binary = (uint32_t)value;
  if (k != 0) {
    const char *path = ins_attr(attrs, "path"), *uuid = ins_attr(attrs, "UUID");
    const char *load = ins_attr(attrs, "load-addr");
    ins_binary b = {ins_intern(r, path ? path : ""), ins_uuid(r, uuid ? uuid : ""),
                    load ? ins_hex(load) : 0, 0};
    b.max_addr = b.load_addr;
    if (VEC_PUSH(r->st->binaries, b)) return ins_nomem(r);
    binary = (uint32_t)(r->st->binaries.len - 1);
    ins_define(r, key, binary);
  }
  r->st->frames.data[r->new_frame].binary = binary;
}

/* The INS_E_ of an element's name: its first byte picks the names to
 * compare. */
static int ins_element(const char *name) {
  switch (name[0]) {
  case 'r': return strcmp(name, "row") ? INS_E_OTHER : INS_E_ROW;
  case 't': return !strcmp(name, "thread") ? INS_E_THREAD
                   : !strcmp(name, "tid")  ? INS_E_TID
                                           : INS_E_OTHER;
  case 'p': return !strcmp(name, "process") ? INS_E_PROCESS
                   : !strcmp(name, "pid")    ? INS_E_PID
                                             : INS_E_OTHER;
  case 'c': return strcmp(name, "core") ? INS_E_OTHER : INS_E_CORE;
  case 's': return strcmp(name, "sample-time") ? INS_E_OTHER : INS_E_TIME;
  case 'e': return strcmp(name, "event-time") ? INS_E_OTHER : INS_E_TIME;
  case 'b': return !strcmp(name, "backtrace") ? INS_E_BACKTRACE
                   : !strcmp(name, "binary")  ? INS_E_BINARY
                                              : INS_E_OTHER;
  case 'f': return strcmp(name, "frame") ? INS_E_OTHER : INS_E_FRAME;
  default: return INS_E_OTHER;
  }
}

static void XMLCALL ins_on_start(void *user, const char *name, const char **attrs) {
  ins_reader *r = user;
  if (r->failed) return;
  if (++r->depth > INS_MAX_DEPTH) return ins_fail(r, WEFT_ELIMIT, "elements nested too deep", "");
  ins_capture_stop(r);
  int element = ins_element(name);
  r->open[r->depth] = (unsigned char)element;
  switch (element) {
  case INS_E_ROW: r->row = (ins_sample){0, INS_NONE, INS_NONE, 0}; break;
  case INS_E_THREAD: ins_start_thread(r, attrs); break;
  case INS_E_PROCESS: ins_start_process(r, attrs); break;
  case INS_E_CORE: ins_start_value(r, attrs, INS_K_CORE, INS_T_CORE); break;
  case INS_E_TIME: ins_start_value(r, attrs, INS_K_TIME, INS_T_TIME); break;
  case INS_E_TID:
    if (r->new_thread != INS_NONE) ins_capture(r, INS_T_TID, 0);
    break;
  case INS_E_PID:
    if (r->new_process != INS_NONE) ins_capture(r, INS_T_PID, 0);
    break;
  case INS_E_BACKTRACE: ins_start_backtrace(r, attrs); break;
  case INS_E_FRAME: ins_start_frame(r, attrs); break;
  case INS_E_BINARY: ins_start_binary(r, attrs); break;
  default: break;
  }
}

/* ---- texts and element ends ---- */

static void XMLCALL ins_on_text(void *user, const char *s, int len) {
  ins_reader *r = user;
  if (r->failed || r->text_kind == INS_T_NONE || r->depth != r->text_depth) return;
  if (r->text_len + (size_t)len > INS_MAX_TEXT)
    return ins_fail(r, WEFT_ELIMIT, "value text longer than 256 bytes", "");
  memcpy(r->text + r->text_len, s, (size_t)len);
  r->text_len += (size_t)len;
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

static void XMLCALL ins_on_end(void *user, const char *name) {
  (void)name;
  ins_reader *r = user;
  if (r->failed) return;
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

static void XMLCALL ins_on_entity(void *user, const XML_Char *name, int is_param,
                                  const XML_Char *value, int value_len, const XML_Char *base,
                                  const XML_Char *system_id, const XML_Char *public_id,
                                  const XML_Char *notation) {
  (void)is_param, (void)value, (void)value_len, (void)base, (void)system_id;
  (void)public_id, (void)notation;
  ins_fail(user, WEFT_EPARSE, "entity declarations are not supported: ", name);
}

/* ---- the document ---- */

#define INS_CHUNK ((size_t)1 << 20)
/* An element defining an id takes at least 11 bytes (<a id="1"/>); an
 * export's ids are numbered in order, so its ids are about below this. */
#define INS_BYTES_PER_ID 16
#define INS_IDS_RESERVED_MAX ((size_t)1 << 24) /* past this, the array grows as ids come */

/* Feeds the document to expat a chunk at a time; a syntax error fails
 * naming its line. */
static void ins_parse_chunks(ins_reader *r, const char *data, size_t len) {
  size_t off = 0;
  do {
    size_t n = len - off < INS_CHUNK ? len - off : INS_CHUNK;
    int last = off + n == len;
    if (XML_Parse(r->parser, data + off, (int)n, last) == XML_STATUS_ERROR && !r->failed) {
      base_error_set(r->err, WEFT_EPARSE, "instruments XML line %lu: %s",
                     (unsigned long)XML_GetCurrentLineNumber(r->parser),
                     XML_ErrorString(XML_GetErrorCode(r->parser)));
      r->failed = 1;
    }
    off += n;
  } while (!r->failed && off < len);
}

int instruments_read_xml(import_file *f, ins_state *st, base_error *err) {
  ins_reader r = {.f = f, .st = st, .err = err};
  r.new_thread = r.new_process = r.new_frame = INS_NONE;
  r.row = (ins_sample){0, INS_NONE, INS_NONE, 0}; /* elements outside a row belong to none */
  size_t ids = f->len / INS_BYTES_PER_ID;
  if (ins_ids_reserve(&st->ids, ids < INS_IDS_RESERVED_MAX ? ids : INS_IDS_RESERVED_MAX))
    return base_error_nomem(err);
  r.parser = XML_ParserCreate(NULL);
  if (!r.parser) return base_error_nomem(err);
  XML_SetUserData(r.parser, &r);
  XML_SetElementHandler(r.parser, ins_on_start, ins_on_end);
  XML_SetEntityDeclHandler(r.parser, ins_on_entity);
  ins_parse_chunks(&r, (const char *)f->data, f->len);
  XML_ParserFree(r.parser);
  return r.failed ? (err->code ? err->code : WEFT_EPARSE) : WEFT_OK;
}
