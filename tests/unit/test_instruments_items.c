/* Tests for the Instruments item batches (import/instruments/instruments_items):
 * a long document read as items says what its tokens say, batch after
 * batch, and a tokenizer error ends the last batch after the items before
 * it. The file has no load here, so every batch is filled on this thread. */
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"
#include "check.h"
#include "import/instruments/instruments_items.h"

static import_file file_for(const char *doc, size_t len) {
  import_file f;
  memset(&f, 0, sizeof f);
  f.data = (const uint8_t *)doc;
  f.len = len;
  f.name = "test.xml";
  return f;
}

/* A document of n rows; row i's frame name is "f-i-", its dashes
 * written as references when i is odd, and thread 2 has no fmt, thread 3 an empty one. */
static char *make_doc(int n, size_t *len) {
  base_buf b;
  base_buf_init(&b, SIZE_MAX);
  base_buf_appendf(&b, "<?xml version=\"1.0\"?>\n<trace-query-result><node>\n");
  base_buf_appendf(&b, "<row><thread id=\"2\"/><thread id=\"3\" fmt=\"\"/></row>\n");
  for (int i = 0; i < n; i++)
    base_buf_appendf(&b,
                     "<row><sample-time id=\"%d\">%d</sample-time><thread ref=\"2\"/>"
                     "<backtrace id=\"%d\"><frame id=\"%d\" name=\"%s%d%s\" addr=\"0x%x\"/>"
                     "</backtrace><other>text</other></row>\n",
                     4 * i + 10, 1000 + i, 4 * i + 11, 4 * i + 12, i % 2 ? "f&#45;" : "f-",
                     i, i % 2 ? "&#45;" : "-", 0x100 + i);
  base_buf_appendf(&b, "</node></trace-query-result>\n");
  *len = b.len;
  return b.data;
}

/* Items over f's document (f must outlive them); err cleared. */
static ins_items *open_items(import_file *f, base_error *err) {
  ins_items *it = NULL;
  base_error_clear(err);
  CHECK_EQ_INT(ins_items_open(f, &it, err), 0);
  return it;
}

static int span_is(ins_item_span s, const char *want) {
  return s.p && s.len == strlen(want) && memcmp(s.p, want, s.len) == 0;
}

/* Checks the start of row i's frame. */
static void check_frame(const ins_item *item, int i) {
  char name[32];
  snprintf(name, sizeof name, "f-%d-", i);
  CHECK_EQ_INT(item->key, INS_KEY_ID);
  CHECK_EQ_INT((int)item->id, 4 * i + 12);
  CHECK_EQ_INT((int)item->number, 0x100 + i);
  CHECK(span_is(item->span[0], name));
}

static void test_items_say_what_tokens_say(void) {
  size_t len;
  char *doc = make_doc(5000, &len);
  import_file f = file_for(doc, len);
  base_error err;
  ins_items *it = open_items(&f, &err);
  ins_scan s;
  ins_scan_init(&s, doc, len);
  int batches = 0, frames = 0, texts = 0, closed = 0, value_open = 0;
  const ins_batch *b;
  while (!ins_items_next(it, &b, &err) && b) {
    batches++;
    CHECK_EQ_INT(b->status, 0);
    for (size_t k = 0; k < b->count; k++) {
      const ins_item *item = &b->items[k];
      ins_tok tok;
      do { /* the texts no element reads are left out */
        CHECK_EQ_INT(ins_scan_next(&s, &tok, &err), 0);
      } while (tok.type == INS_TOK_TEXT && !value_open);
      CHECK_EQ_INT(item->type, tok.type);
      CHECK_EQ_INT((long)item->offset, (long)tok.offset);
      if (tok.type == INS_TOK_TEXT) {
        texts++;
        CHECK(item->span[0].p == tok.text.p && item->span[0].len == tok.text.len);
        continue;
      }
      int start = tok.type == INS_TOK_START;
      if (start && item->element == INS_E_FRAME) check_frame(item, frames++);
      if (start && item->element == INS_E_THREAD && item->key == INS_KEY_ID)
        CHECK(item->id == 2 ? item->span[0].p == NULL : span_is(item->span[0], ""));
      if (start && item->element == INS_E_THREAD && item->key == INS_KEY_REF)
        CHECK(item->id == 2 && span_is(item->span[0], "2"));
      CHECK_EQ_INT(item->closed, start && tok.self_closing);
      if (item->closed) { /* its END is folded in */
        CHECK_EQ_INT(ins_scan_next(&s, &tok, &err), 0);
        CHECK_EQ_INT(tok.type, INS_TOK_END);
        closed++;
      }
      value_open = start && !item->closed && item->element == INS_E_TIME;
    }
    if (b->last) break;
  }
  ins_tok tok;
  CHECK_EQ_INT(ins_scan_next(&s, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, INS_TOK_EOF);
  CHECK_EQ_INT(frames, 5000);
  CHECK_EQ_INT(texts, 5000);
  CHECK_EQ_INT(closed, 2 + 2 * 5000); /* the first row's threads; each row's thread and frame */
  CHECK(batches > 3);
  CHECK_EQ_INT(ins_items_next(it, &b, &err), 0);
  CHECK(b == NULL);
  ins_scan_free(&s);
  ins_items_close(it);
  free(doc);
}

static void test_an_error_ends_the_last_batch(void) {
  size_t len;
  char *doc = make_doc(3000, &len);
  /* a mismatched end tag in row 2000 */
  char *row = strstr(doc, "name=\"f-2000-\"");
  CHECK(row != NULL);
  char *other = strstr(row, "</other>");
  memcpy(other, "</othxr>", 8);
  import_file f = file_for(doc, len);
  base_error err;
  ins_items *it = open_items(&f, &err);
  const ins_batch *b;
  size_t last_offset = 0;
  int batches = 0;
  while (!ins_items_next(it, &b, &err) && b) {
    batches++;
    if (b->count) last_offset = b->items[b->count - 1].offset;
    if (b->last) break;
  }
  CHECK(b != NULL && b->status == WEFT_EPARSE);
  CHECK(strstr(b->err.message, "instruments XML line 2004: mismatched tag") != NULL);
  /* the last item is <other>'s start: the text in it is read by nothing */
  CHECK_EQ_INT((long)last_offset, (long)(strstr(row, "<other>") - doc));
  CHECK(batches > 1);
  CHECK_EQ_INT(ins_items_next(it, &b, &err), 0);
  CHECK(b == NULL);
  ins_items_close(it);
  free(doc);
}

static void test_close_before_the_end(void) {
  size_t len;
  char *doc = make_doc(3000, &len);
  import_file f = file_for(doc, len);
  base_error err;
  ins_items *it = open_items(&f, &err);
  const ins_batch *b;
  CHECK_EQ_INT(ins_items_next(it, &b, &err), 0);
  CHECK(b != NULL && !b->last && b->count > 0);
  ins_items_close(it);
  free(doc);
}

int main(void) {
  RUN_TEST(test_items_say_what_tokens_say);
  RUN_TEST(test_an_error_ends_the_last_batch);
  RUN_TEST(test_close_before_the_end);
  return CHECK_SUMMARY();
}
