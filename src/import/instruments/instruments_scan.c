/* instruments_scan: the XML tokenizer (see instruments_scan.h).
 *
 * The document is read in place: memchr finds the next '<' of the content
 * and the closing quote of an attribute value; the bytes between are read
 * once, through a table, for the references and characters that need a
 * look. A value or text without them is its own decoded form, so most
 * tokens copy nothing. Lines are counted only for an error message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/instruments/instruments_scan.h"

enum { SCAN_PROLOG, SCAN_CONTENT, SCAN_EPILOG };

/* Byte classes: name start, name character, space (tab, LF, CR, ' '), a
 * byte of text that needs a look ('&', CR, a control character but tab and
 * LF), and one of an attribute value ('&', '<', any control character). */
enum { C_START = 1, C_NAME = 2, C_SPACE = 4, C_TEXT = 8, C_VALUE = 16 };

static const unsigned char scan_class[256] = {
    24, 24, 24, 24, 24, 24, 24, 24, 24, 20, 20, 24, 24, 28, 24, 24,
    24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24,
    4, 0, 0, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 2, 2, 0,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 0, 16, 0, 0, 0,
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 3,
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
};

#define CLASS(c) scan_class[(unsigned char)(c)]

void ins_scan_init(ins_scan *s, const char *data, size_t len) {
  memset(s, 0, offsetof(ins_scan, attrs));
  s->scratch = NULL;
  s->scratch_cap = s->scratch_len = 0;
  s->begin = s->p = data;
  s->end = data + len;
  if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) s->p += 3; /* UTF-8 byte order mark */
}

void ins_scan_free(ins_scan *s) {
  base_free(s->scratch);
  s->scratch = NULL;
  s->scratch_cap = 0;
}

unsigned long ins_scan_line(const ins_scan *s, size_t offset) {
  unsigned long line = 1;
  const char *p = s->begin, *stop = s->begin + offset;
  if (stop > s->end) stop = s->end;
  for (; p < stop; p++)
    if (*p == '\n' || (*p == '\r' && (p + 1 == s->end || p[1] != '\n'))) line++;
  return line;
}

static int scan_fail(ins_scan *s, base_error *err, int code, const char *at, const char *what) {
  s->status = code;
  return base_error_set(err, code, "instruments XML line %lu: %s",
                        ins_scan_line(s, (size_t)(at - s->begin)), what);
}

/* ---- references ---- */

static int scan_xml_char(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

/* The reference at p ('&'): its character in *c and its length in *n.
 * Returns NULL, or the message of what is wrong with it. It is read byte
 * by byte up to its ';' (leading zeros make a character reference as long
 * as they like), so a run of bad references costs linear time. */
static const char *scan_ref(const char *p, const char *end, uint32_t *c, size_t *n) {
  const char *q = p + 1;
  if (q < end && *q == '#') {
    int hex = q + 1 < end && q[1] == 'x';
    const char *d = q + 1 + hex, *digits = d;
    uint32_t v = 0;
    for (; d < end && *d != ';'; d++) {
      unsigned x = (unsigned char)*d - '0', l = ((unsigned char)*d | 32) - 'a';
      if (x < 10) v = v * (hex ? 16 : 10) + x;
      else if (hex && l < 6) v = v * 16 + l + 10;
      else return "bad character reference";
      if (v > 0x10FFFF) v = 0x110000; /* stays out of range */
    }
    if (d == end || d == digits) return "bad character reference";
    if (!scan_xml_char(v)) return "reference to invalid character number";
    *c = v;
    *n = (size_t)(d + 1 - p);
    return NULL;
  }
  const char *name_end = q;
  if (q < end && (CLASS(*q) & C_START))
    for (name_end++; name_end < end && (CLASS(*name_end) & C_NAME); name_end++) {}
  if (name_end == q || name_end == end || *name_end != ';')
    return "bad reference ('&' starts no entity or character reference)";
  size_t len = (size_t)(name_end - q);
  *n = len + 2;
  static const struct { const char *name; size_t len; char c; } known[] = {
      {"lt", 2, '<'}, {"gt", 2, '>'}, {"amp", 3, '&'}, {"quot", 4, '"'}, {"apos", 4, '\''}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (len == known[i].len && memcmp(q, known[i].name, len) == 0) {
      *c = (uint32_t)known[i].c;
      return NULL;
    }
  return "undefined entity (only the five predefined entities and character references "
         "are read)";
}

static size_t scan_utf8(uint32_t c, char *out) {
  if (c < 0x80) {
    out[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (char)(0xC0 | c >> 6);
    out[1] = (char)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = (char)(0xE0 | c >> 12);
    out[1] = (char)(0x80 | (c >> 6 & 0x3F));
    out[2] = (char)(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | c >> 18);
  out[1] = (char)(0x80 | (c >> 12 & 0x3F));
  out[2] = (char)(0x80 | (c >> 6 & 0x3F));
  out[3] = (char)(0x80 | (c & 0x3F));
  return 4;
}

/* Checks text [p, e) (of a CDATA section: `cdata`): its references and
 * characters. Sets *plain when it is its own decoded form. */
static int scan_check_text(ins_scan *s, const char *p, const char *e, int cdata, int *plain,
                           base_error *err) {
  *plain = 1;
  for (; p < e; p++) {
    if (!(CLASS(*p) & C_TEXT)) continue;
    if (*p == '&' && !cdata) {
      uint32_t c;
      size_t n;
      const char *bad = scan_ref(p, e, &c, &n);
      if (bad) return scan_fail(s, err, WEFT_EPARSE, p, bad);
      p += n - 1;
    } else if (*p != '\r' && *p != '&') {
      return scan_fail(s, err, WEFT_EPARSE, p, "not well-formed (invalid character)");
    }
    *plain = 0;
  }
  return WEFT_OK;
}

int ins_scan_text_decode(const ins_tok *tok, char *dst, size_t cap, size_t *out_len) {
  const char *p = tok->text.p, *e = p + tok->text.len;
  size_t n = 0;
  char buf[4];
  while (p < e) {
    size_t k = 1;
    const char *from = p;
    if (*p == '&' && !tok->text_cdata) {
      uint32_t c;
      size_t used;
      scan_ref(p, e, &c, &used); /* checked when the token was read */
      k = scan_utf8(c, buf);
      from = buf;
      p += used;
    } else if (*p == '\r') {
      from = "\n";
      p += p + 1 < e && p[1] == '\n' ? 2 : 1;
    } else {
      p++;
    }
    if (n + k > cap) return -1;
    memcpy(dst + n, from, k);
    n += k;
  }
  *out_len = n;
  return 0;
}

/* ---- tags ---- */

static const char *scan_name(const char *p, const char *end) {
  if (p >= end || !(CLASS(*p) & C_START)) return NULL;
  for (p++; p < end && (CLASS(*p) & C_NAME); p++) {}
  return p;
}

static const char *scan_spaces(const char *p, const char *end) {
  while (p < end && (CLASS(*p) & C_SPACE)) p++;
  return p;
}

/* Makes room for n more bytes in the scratch (which may move). */
static int scan_scratch_room(ins_scan *s, size_t n, base_error *err, const char *at) {
  if (s->scratch_len + n <= s->scratch_cap) return WEFT_OK;
  if (s->scratch_len + n > INS_SCAN_MAX_SCRATCH)
    return scan_fail(s, err, WEFT_ELIMIT, at, "attribute values with references over 16 MiB "
                                              "in one tag");
  size_t cap = s->scratch_cap ? s->scratch_cap : 4096;
  while (cap < s->scratch_len + n) cap *= 2;
  char *grown = base_realloc(s->scratch, cap);
  if (!grown) {
    s->status = WEFT_ENOMEM;
    return base_error_nomem(err);
  }
  s->scratch = grown;
  s->scratch_cap = cap;
  return WEFT_OK;
}

/* The value [v, q) of attribute a: itself when nothing in it needs
 * decoding, else decoded into the scratch (a->value.p holds the offset
 * there until the tag ends, as the scratch may move). Returns 1 for a
 * scratch value, 0 for an in-place one, <0 on failure. */
static int scan_value(ins_scan *s, ins_attr *a, const char *v, const char *q, base_error *err) {
  const char *p = v;
  while (p < q && !(CLASS(*p) & C_VALUE)) p++;
  if (p == q) {
    a->value = (ins_span){v, (size_t)(q - v)};
    return 0;
  }
  int rc = scan_scratch_room(s, (size_t)(q - v), err, v);
  if (rc) return rc;
  size_t start = s->scratch_len;
  char *out = s->scratch + start;
  memcpy(out, v, (size_t)(p - v));
  out += p - v;
  while (p < q) {
    char c = *p;
    if (c == '<') return scan_fail(s, err, WEFT_EPARSE, p, "'<' in an attribute value");
    if (c == '&') {
      uint32_t cp;
      size_t n;
      const char *bad = scan_ref(p, q, &cp, &n);
      if (bad) return scan_fail(s, err, WEFT_EPARSE, p, bad);
      out += scan_utf8(cp, out);
      p += n;
      continue;
    }
    if (c == '\r' && p + 1 < q && p[1] == '\n') p++;
    if (CLASS(c) & C_SPACE) c = ' ';
    else if (CLASS(c) & C_VALUE)
      return scan_fail(s, err, WEFT_EPARSE, p, "not well-formed (invalid character)");
    *out++ = c;
    p++;
  }
  a->value = (ins_span){(const char *)(uintptr_t)start, (size_t)(out - s->scratch - start)};
  s->scratch_len = (size_t)(out - s->scratch);
  return 1;
}

/* Reads one attribute at *pp (its name's first byte) into attrs[n]. */
static int scan_attr(ins_scan *s, const char **pp, size_t n, uint64_t *in_scratch,
                     base_error *err) {
  const char *p = *pp, *end = s->end;
  const char *name_end = scan_name(p, end);
  if (!name_end) return scan_fail(s, err, WEFT_EPARSE, p, "not well-formed (bad attribute name)");
  if (n == INS_SCAN_MAX_ATTRS)
    return scan_fail(s, err, WEFT_ELIMIT, p, "more than 128 attributes in one tag");
  ins_attr *a = &s->attrs[n];
  a->name = (ins_span){p, (size_t)(name_end - p)};
  for (size_t i = 0; i < n; i++)
    if (s->attrs[i].name.len == a->name.len && !memcmp(s->attrs[i].name.p, p, a->name.len))
      return scan_fail(s, err, WEFT_EPARSE, p, "duplicate attribute");
  p = scan_spaces(name_end, end);
  if (p < end && *p == '=') p = scan_spaces(p + 1, end);
  else if (p < end) return scan_fail(s, err, WEFT_EPARSE, p, "not well-formed ('=' expected)");
  if (p < end && *p != '"' && *p != '\'')
    return scan_fail(s, err, WEFT_EPARSE, p, "not well-formed (attribute value not quoted)");
  const char *q = p + 1 < end ? memchr(p + 1, *p, (size_t)(end - p - 1)) : NULL;
  if (!q) return scan_fail(s, err, WEFT_EPARSE, *pp, "unclosed token (the document ends in a tag)");
  int rc = scan_value(s, a, p + 1, q, err);
  if (rc < 0) return rc;
  if (rc == 1) in_scratch[n / 64] |= (uint64_t)1 << (n % 64);
  *pp = q + 1;
  return WEFT_OK;
}

/* Reads the start tag at s->p ('<' and a name start) into tok. */
static int scan_start_tag(ins_scan *s, ins_tok *tok, base_error *err) {
  const char *lt = s->p, *end = s->end;
  if (s->state == SCAN_EPILOG)
    return scan_fail(s, err, WEFT_EPARSE, lt, "junk after document element");
  if (s->depth == INS_SCAN_MAX_DEPTH)
    return scan_fail(s, err, WEFT_ELIMIT, lt, "elements nested too deep");
  const char *p = scan_name(lt + 1, end);
  ins_span name = {lt + 1, (size_t)(p - lt - 1)};
  uint64_t in_scratch[(INS_SCAN_MAX_ATTRS + 63) / 64] = {0};
  size_t n = 0;
  s->scratch_len = 0;
  for (;;) {
    const char *after = scan_spaces(p, end);
    if (after == end) return scan_fail(s, err, WEFT_EPARSE, lt, "unclosed token (the document "
                                                                "ends in a tag)");
    if (*after == '>' || *after == '/') {
      if (*after == '/' && (after + 1 == end || after[1] != '>'))
        return scan_fail(s, err, WEFT_EPARSE, after, "not well-formed (invalid token)");
      s->pending_end = *after == '/';
      s->p = after + 1 + s->pending_end;
      break;
    }
    if (after == p) return scan_fail(s, err, WEFT_EPARSE, p, "not well-formed (invalid token)");
    p = after;
    int rc = scan_attr(s, &p, n, in_scratch, err);
    if (rc) return rc;
    n++;
  }
  for (size_t i = 0; i < n; i++)
    if (in_scratch[i / 64] >> (i % 64) & 1)
      s->attrs[i].value.p = s->scratch + (uintptr_t)s->attrs[i].value.p;
  s->open[s->depth++] = name;
  s->state = SCAN_CONTENT;
  *tok = (ins_tok){.type = INS_TOK_START, .offset = (size_t)(lt - s->begin), .name = name,
                   .attrs = s->attrs, .attr_count = n, .self_closing = s->pending_end};
  return WEFT_OK;
}

static void scan_pop(ins_scan *s, ins_tok *tok, const char *at) {
  *tok = (ins_tok){.type = INS_TOK_END, .offset = (size_t)(at - s->begin),
                   .name = s->open[--s->depth]};
  if (s->depth == 0) s->state = SCAN_EPILOG;
}

static int scan_end_tag(ins_scan *s, ins_tok *tok, base_error *err) {
  const char *lt = s->p, *end = s->end;
  const char *p = scan_name(lt + 2, end);
  if (!p) return scan_fail(s, err, WEFT_EPARSE, lt, "not well-formed (bad end tag)");
  const char *gt = scan_spaces(p, end);
  if (gt == end) return scan_fail(s, err, WEFT_EPARSE, lt, "unclosed token (the document ends "
                                                           "in a tag)");
  if (*gt != '>') return scan_fail(s, err, WEFT_EPARSE, gt, "not well-formed (bad end tag)");
  size_t len = (size_t)(p - lt - 2);
  if (s->depth == 0) return scan_fail(s, err, WEFT_EPARSE, lt, "end tag outside any element");
  const ins_span *open = &s->open[s->depth - 1];
  if (open->len != len || memcmp(open->p, lt + 2, len))
    return scan_fail(s, err, WEFT_EPARSE, lt, "mismatched tag (the end tag names another "
                                              "element than the open one)");
  s->p = gt + 1;
  scan_pop(s, tok, lt);
  return WEFT_OK;
}

/* ---- markup that is skipped ---- */

static const char *scan_find(const char *p, const char *end, const char *what, size_t n) {
  while (p < end) {
    const char *c = memchr(p, what[0], (size_t)(end - p));
    if (!c || (size_t)(end - c) < n) return NULL;
    if (memcmp(c, what, n) == 0) return c;
    p = c + 1;
  }
  return NULL;
}

static int scan_comment(ins_scan *s, base_error *err) {
  const char *lt = s->p;
  const char *dashes = scan_find(lt + 4, s->end, "--", 2);
  if (!dashes || dashes + 2 == s->end)
    return scan_fail(s, err, WEFT_EPARSE, lt, "unclosed comment at the end of the document");
  if (dashes[2] != '>') return scan_fail(s, err, WEFT_EPARSE, dashes, "'--' in a comment");
  s->p = dashes + 3;
  return WEFT_OK;
}

static int scan_pi(ins_scan *s, base_error *err) {
  const char *lt = s->p;
  const char *p = scan_name(lt + 2, s->end);
  if (!p) return scan_fail(s, err, WEFT_EPARSE, lt, "not well-formed (bad processing "
                                                    "instruction)");
  if (p - lt == 5 && (lt[2] | 32) == 'x' && (lt[3] | 32) == 'm' && (lt[4] | 32) == 'l') {
    size_t bom = s->end - s->begin >= 3 && !memcmp(s->begin, "\xEF\xBB\xBF", 3) ? 3 : 0;
    if (lt != s->begin + bom)
      return scan_fail(s, err, WEFT_EPARSE, lt, "XML declaration not at the start of the "
                                                "document");
  }
  const char *close = scan_find(p, s->end, "?>", 2);
  if (!close) return scan_fail(s, err, WEFT_EPARSE, lt, "unclosed processing instruction at "
                                                        "the end of the document");
  if (close != p && !(CLASS(*p) & C_SPACE))
    return scan_fail(s, err, WEFT_EPARSE, p, "not well-formed (bad processing instruction)");
  s->p = close + 2;
  return WEFT_OK;
}

/* A DOCTYPE: skipped to its '>' (quoted strings may hold one); an internal
 * subset, where entities would be declared, is refused. */
static int scan_doctype(ins_scan *s, base_error *err) {
  const char *lt = s->p, *p = lt + 9, *end = s->end;
  if (s->state != SCAN_PROLOG) return scan_fail(s, err, WEFT_EPARSE, lt, "DOCTYPE after the "
                                                                        "root element's start");
  for (; p < end && *p != '>'; p++) {
    if (*p == '[')
      return scan_fail(s, err, WEFT_EPARSE, p, "entity declarations are not supported (a "
                                               "DOCTYPE with an internal subset)");
    if (*p == '"' || *p == '\'') {
      p = memchr(p + 1, *p, (size_t)(end - p - 1));
      if (!p) break;
    }
  }
  if (!p || p == end) return scan_fail(s, err, WEFT_EPARSE, lt, "unclosed DOCTYPE at the end "
                                                                "of the document");
  s->p = p + 1;
  return WEFT_OK;
}

static int scan_cdata(ins_scan *s, ins_tok *tok, base_error *err) {
  const char *lt = s->p, *p = lt + 9;
  const char *close = scan_find(p, s->end, "]]>", 3);
  if (!close) return scan_fail(s, err, WEFT_EPARSE, lt, "unclosed CDATA section at the end of "
                                                        "the document");
  int plain;
  int rc = scan_check_text(s, p, close, 1, &plain, err);
  if (rc) return rc;
  s->p = close + 3;
  *tok = (ins_tok){.type = INS_TOK_TEXT, .offset = (size_t)(lt - s->begin),
                   .text = {p, (size_t)(close - p)}, .text_cdata = 1, .text_plain = plain};
  return WEFT_OK;
}

/* "<!...": a comment, a CDATA section (a token: returns 1) or a DOCTYPE. */
static int scan_bang(ins_scan *s, ins_tok *tok, base_error *err) {
  const char *lt = s->p;
  size_t left = (size_t)(s->end - lt);
  if (left >= 4 && !memcmp(lt, "<!--", 4)) return scan_comment(s, err);
  if (left >= 9 && !memcmp(lt, "<![CDATA[", 9)) {
    if (s->state != SCAN_CONTENT)
      return scan_fail(s, err, WEFT_EPARSE, lt, "CDATA section outside the root element");
    int rc = scan_cdata(s, tok, err);
    return rc ? rc : 1;
  }
  if (left >= 10 && !memcmp(lt, "<!DOCTYPE", 9) && (CLASS(lt[9]) & C_SPACE))
    return scan_doctype(s, err);
  return scan_fail(s, err, WEFT_EPARSE, lt,
                   left < 4 ? "unclosed token (the document ends in a tag)"
                            : "not well-formed (invalid token)");
}

/* ---- the document ---- */

/* Text at s->p, up to the next '<': a token in the root element, else
 * only spaces may be there. Returns 1 for a token. */
static int scan_text(ins_scan *s, ins_tok *tok, base_error *err) {
  const char *p = s->p, *end = s->end;
  const char *lt = memchr(p, '<', (size_t)(end - p));
  if (!lt) lt = end;
  if (s->state != SCAN_CONTENT) {
    const char *q = scan_spaces(p, lt);
    if (q != lt)
      return scan_fail(s, err, WEFT_EPARSE, q, s->state == SCAN_EPILOG
                                                   ? "junk after document element"
                                                   : "text before the root element");
    s->p = lt;
    return 0;
  }
  int plain;
  int rc = scan_check_text(s, p, lt, 0, &plain, err);
  if (rc) return rc;
  s->p = lt;
  *tok = (ins_tok){.type = INS_TOK_TEXT, .offset = (size_t)(p - s->begin),
                   .text = {p, (size_t)(lt - p)}, .text_plain = plain};
  return 1;
}

static int scan_end_of_input(ins_scan *s, ins_tok *tok, base_error *err) {
  if (s->state == SCAN_EPILOG) {
    *tok = (ins_tok){.type = INS_TOK_EOF, .offset = (size_t)(s->end - s->begin)};
    return WEFT_OK;
  }
  if (s->state == SCAN_PROLOG) return scan_fail(s, err, WEFT_EPARSE, s->end, "no element found");
  char what[96];
  snprintf(what, sizeof what, "no element found (the document ends with %zu element%s open)",
           s->depth, s->depth == 1 ? "" : "s");
  return scan_fail(s, err, WEFT_EPARSE, s->end, what);
}

int ins_scan_next(ins_scan *s, ins_tok *tok, base_error *err) {
  if (s->status) return s->status;
  if (s->pending_end) {
    s->pending_end = 0;
    scan_pop(s, tok, s->p);
    return WEFT_OK;
  }
  for (;;) {
    if (s->p == s->end) return scan_end_of_input(s, tok, err);
    int rc;
    if (*s->p != '<') {
      rc = scan_text(s, tok, err);
      if (rc) return rc < 0 ? rc : WEFT_OK;
      continue;
    }
    char c = s->p + 1 < s->end ? s->p[1] : '\0';
    if (CLASS(c) & C_START) return scan_start_tag(s, tok, err);
    if (c == '/') return scan_end_tag(s, tok, err);
    if (c == '?') rc = scan_pi(s, err);
    else if (c == '!') rc = scan_bang(s, tok, err);
    else if (s->p + 1 == s->end)
      rc = scan_fail(s, err, WEFT_EPARSE, s->p, "unclosed token (the document ends in a tag)");
    else
      rc = scan_fail(s, err, WEFT_EPARSE, s->p, "not well-formed (invalid token)");
    if (rc) return rc < 0 ? rc : WEFT_OK;
  }
}
