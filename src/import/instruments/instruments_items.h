/* instruments_items: the first half of reading an Instruments export, the
 * part that needs no state of the import: the XML tokenized
 * (instruments_scan.h) into items, each the facts instruments_xml.c needs
 * of one token, with numbers and ids already parsed.
 *
 * Owns: the tokenizer over the document and a ring of batches of items.
 * Batches are filled on one of the load's workers (import_task_submit)
 * while the reader reads the ones before them, so tokenizing overlaps the
 * reading; without workers, the reader's thread fills them. The items,
 * the order of batches and the error a batch ends with are the same
 * either way.
 *
 * Invariants: batches come in document order; a batch's items are the
 * document's tokens in order, less the texts that no element can read (a
 * text is kept only right after the start of a value element: time, core,
 * tid, pid) and the ends of self-closing tags (their START says `closed`); a batch that ends with an error (status != 0) or at the end
 * of the document is the last. Spans stay valid until the next
 * ins_items_next: they point into the document or the batch's bytes. */
#ifndef WEFT_IMPORT_INSTRUMENTS_ITEMS_H
#define WEFT_IMPORT_INSTRUMENTS_ITEMS_H

#include "import/importer.h"
#include "import/instruments/instruments_scan.h"

/* The elements read (INS_E_OTHER: any other). */
enum {
  INS_E_OTHER, INS_E_ROW, INS_E_THREAD, INS_E_PROCESS, INS_E_CORE, INS_E_TIME, INS_E_TID,
  INS_E_PID, INS_E_BACKTRACE, INS_E_FRAME, INS_E_BINARY
};

/* What a start tag's first attribute is. */
enum {
  INS_KEY_NONE, /* neither id= nor ref= (or no attribute) */
  INS_KEY_ID,   /* id=N: item.id */
  INS_KEY_REF,  /* ref=N: item.id, span[0] = N as written */
  INS_KEY_BAD   /* id= or ref= with a value that is no id: span[0] */
};

/* An attribute value or a text: `p` NULL when the attribute is absent. */
typedef struct ins_item_span {
  const char *p;
  size_t len;
} ins_item_span;

/* One token. START: element, key, id, and for an element defined here
 * (key ID or NONE), by element:
 *   THREAD, PROCESS: span[0] = fmt;
 *   FRAME: number = addr (0 when absent), span[0] = name;
 *   BINARY: number = load-addr (0 when absent), span[0] = path, span[1] = UUID.
 * TEXT: span[0] = the raw text, text_cdata/text_plain as in ins_tok.
 * 64 bytes, a cache line (instruments_items.c streams them). */
typedef struct ins_item {
  size_t offset; /* of the token in the document */
  uint64_t id;
  int64_t number;
  ins_item_span span[2];
  uint8_t type; /* ins_tok_type: START, END or TEXT */
  uint8_t element, key;
  uint8_t text_cdata, text_plain;
  uint8_t closed; /* START: a self-closing tag, its END folded in (no END item) */
} ins_item;

typedef struct ins_batch {
  ins_item *items;
  size_t count, cap;
  VEC(char) bytes;      /* decoded attribute values the spans point to */
  int status;           /* the error the batch ends with (0: none) */
  int last;             /* no batch follows */
  base_error err;       /* status's message */
} ins_batch;

typedef struct ins_items ins_items;

/* A reader of f's document. */
int ins_items_open(import_file *f, ins_items **out, base_error *err);
/* The next batch (*out), or NULL after the last. A batch's status is its
 * error, to be reported once its items are read. Returns nonzero only
 * when the pool fails. */
int ins_items_next(ins_items *it, const ins_batch **out, base_error *err);
/* Waits for a batch being filled and frees everything. */
void ins_items_close(ins_items *it);

/* The 1-based line of `offset` in f's document. */
unsigned long ins_items_line(const ins_items *it, size_t offset);

/* Decodes a TEXT item into dst as ins_scan_text_decode does. */
int ins_item_text_decode(const ins_item *item, char *dst, size_t cap, size_t *out_len);

#endif
