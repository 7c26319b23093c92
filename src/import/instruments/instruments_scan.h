/* instruments_scan: the XML tokenizer the Instruments importer reads its
 * exports with. A pull tokenizer over one complete in-memory document (the
 * mapped file): no DOM, no recursion, no allocation per token.
 *
 * Owns: the stack of open element names (spans into the document, at most
 * INS_MAX_DEPTH) and one scratch buffer for attribute values that need
 * decoding (at most INS_SCAN_MAX_SCRATCH bytes per tag). Tokens point into
 * the document or the scratch and last until the next call.
 *
 * What it yields: start tags with their attributes in document order (a
 * self-closing tag is a start followed by its end), end tags, and text.
 * Text is given raw (a span of the document, or of a CDATA section) with
 * ins_scan_text_decode to decode it; attribute values come decoded: the
 * five predefined entities and &#N; / &#xN; character references, line
 * ends normalized (CR LF and CR to LF) and, in attribute values, tab, CR
 * and LF turned to spaces, as an XML processor does. It skips the XML
 * declaration, a DOCTYPE without an internal subset, comments, processing
 * instructions and a UTF-8 byte order mark.
 *
 * What it checks (a failure is WEFT_EPARSE, or WEFT_ELIMIT for a limit,
 * with "instruments XML line N: what"; the tokenizer then stays failed):
 * tags are well formed (names, quoted attribute values without '<', a
 * space between attributes, no attribute repeated), every end tag matches
 * its start tag, there is exactly one root element and nothing but
 * whitespace, comments and PIs after it, text only inside it, references
 * are one of the forms above and name a character XML allows, no control
 * characters but tab, LF and CR, comments contain no "--", an `<?xml`
 * declaration only at the start, and the document is complete. A DOCTYPE
 * with an internal subset is refused (entity declarations are not
 * supported, so no entity is ever expanded).
 *
 * Not checked: that the bytes are valid UTF-8 and that names use only the
 * characters XML allows beyond ASCII (any byte >= 0x80 is taken as a name
 * character), "]]>" in text, the contents of the XML declaration and of
 * a DOCTYPE without an internal subset, and any encoding but UTF-8. */
#ifndef WEFT_IMPORT_INSTRUMENTS_SCAN_H
#define WEFT_IMPORT_INSTRUMENTS_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

#define INS_SCAN_MAX_DEPTH 256                   /* open elements */
#define INS_SCAN_MAX_ATTRS 128                   /* attributes of one tag */
#define INS_SCAN_MAX_SCRATCH ((size_t)16 << 20)  /* decoded attribute bytes of one tag */

typedef enum ins_tok_type {
  INS_TOK_EOF = 0, /* the root element has ended and only whitespace,
                      comments and PIs follow (returned repeatedly) */
  INS_TOK_START,
  INS_TOK_END,
  INS_TOK_TEXT
} ins_tok_type;

typedef struct ins_span {
  const char *p;
  size_t len;
} ins_span;

typedef struct ins_attr {
  ins_span name, value; /* value decoded */
} ins_attr;

typedef struct ins_tok {
  ins_tok_type type;
  size_t offset;  /* of the token's first byte ('<' of a tag, of a CDATA section) */
  ins_span name;  /* START, END: the element's name */
  ins_attr *attrs; /* START: attrs[0 .. attr_count) */
  size_t attr_count;
  int self_closing; /* START: <name/>, its END the next token */
  ins_span text;  /* TEXT: raw bytes (a CDATA section's content) */
  int text_cdata; /* TEXT: from a CDATA section: no references in it */
  int text_plain; /* TEXT: the raw bytes are the decoded text (no '&', no CR) */
} ins_tok;

typedef struct ins_scan {
  const char *begin, *p, *end;
  ins_span open[INS_SCAN_MAX_DEPTH]; /* names of the open elements */
  size_t depth;
  int state;   /* private: prolog, content, epilog */
  int pending_end; /* private: a self-closing tag's end is next */
  int status;  /* 0 or the sticky error code */
  ins_attr attrs[INS_SCAN_MAX_ATTRS];
  char *scratch;
  size_t scratch_cap, scratch_len;
} ins_scan;

void ins_scan_init(ins_scan *s, const char *data, size_t len);
void ins_scan_free(ins_scan *s);

/* Reads the next token. Returns WEFT_OK (INS_TOK_EOF at the end),
 * WEFT_EPARSE, WEFT_ELIMIT or WEFT_ENOMEM with err set. */
int ins_scan_next(ins_scan *s, ins_tok *tok, base_error *err);

/* Decodes a TEXT token's text into dst (room for cap bytes). Returns 0 and
 * *out_len, or -1 when the decoded text is longer than cap. Decoding never
 * makes a text longer. */
int ins_scan_text_decode(const ins_tok *tok, char *dst, size_t cap, size_t *out_len);

/* The 1-based line of `offset` (LF, CR LF and a lone CR end a line),
 * counted by reading the document up to it. */
unsigned long ins_scan_line(const ins_scan *s, size_t offset);

#endif
