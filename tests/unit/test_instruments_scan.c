/* Tests for the Instruments XML tokenizer (import/instruments/instruments_scan):
 * valid documents as token transcripts, and every malformed case. */
#include <stdlib.h>

#include "check.h"
#include "import/instruments/instruments_scan.h"

static char transcript[8192];
static base_error last_err;
static int last_rc;

static void put(const char *fmt_prefix, const char *p, size_t n) {
  size_t used = strlen(transcript);
  snprintf(transcript + used, sizeof transcript - used, "%s%.*s", fmt_prefix, (int)n, p);
}

/* The tokens of doc[0, len) as "<name a='v'>", "</name>", "[text]", "EOF"
 * or "ERR: message". */
static const char *scan_n(const char *doc, size_t len) {
  ins_scan s;
  ins_tok tok;
  transcript[0] = '\0';
  base_error_clear(&last_err);
  ins_scan_init(&s, doc, len);
  for (int guard = 0; guard < 1000; guard++) {
    last_rc = ins_scan_next(&s, &tok, &last_err);
    if (last_rc) {
      put("ERR: ", last_err.message, strlen(last_err.message));
      /* the failure is sticky */
      CHECK_EQ_INT(ins_scan_next(&s, &tok, &last_err), last_rc);
      break;
    }
    if (tok.type == INS_TOK_EOF) {
      put("EOF", "", 0);
      CHECK_EQ_INT(ins_scan_next(&s, &tok, &last_err), 0);
      CHECK_EQ_INT(tok.type, INS_TOK_EOF);
      break;
    }
    if (tok.type == INS_TOK_START) {
      put("<", tok.name.p, tok.name.len);
      for (size_t i = 0; i < tok.attr_count; i++) {
        put(" ", tok.attrs[i].name.p, tok.attrs[i].name.len);
        put("='", tok.attrs[i].value.p, tok.attrs[i].value.len);
        put("'", "", 0);
      }
      put(">", "", 0);
    } else if (tok.type == INS_TOK_END) {
      put("</", tok.name.p, tok.name.len);
      put(">", "", 0);
    } else {
      char text[256];
      size_t n = 0;
      CHECK_EQ_INT(ins_scan_text_decode(&tok, text, sizeof text, &n), 0);
      if (tok.text_plain) CHECK(n == tok.text.len && !memcmp(text, tok.text.p, n));
      put("[", text, n);
      put("]", "", 0);
    }
  }
  ins_scan_free(&s);
  return transcript;
}

static const char *scan(const char *doc) { return scan_n(doc, strlen(doc)); }

static void test_elements_and_attributes(void) {
  CHECK_EQ_STR(scan("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a x=\"1\" y='two'>"
                    "<b/><c  z = \"3\" /></a>\n"),
               "<a x='1' y='two'><b></b><c z='3'></c></a>EOF");
  CHECK_EQ_STR(scan("<row><tid id=\"3\">100</tid>\n</row>"),
               "<row><tid id='3'>[100]</tid>[\n]</row>EOF");
  CHECK_EQ_STR(scan("\xEF\xBB\xBF<a:b c.d-e_f=\"\"/>"), "<a:b c.d-e_f=''></a:b>EOF");
  CHECK_EQ_STR(scan("<a q='say \"hi\"' r=\"it's\"/>"), "<a q='say \"hi\"' r='it's'></a>EOF");
}

static void test_references(void) {
  CHECK_EQ_STR(scan("<a v=\"&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#xe9;&#x1F600;\">"
                    "x&amp;y&#10;&#x263A;</a>"),
               "<a v='<>&\"'AB\xC3\xA9\xF0\x9F\x98\x80'>[x&y\n\xE2\x98\xBA]</a>EOF");
  /* a value's tab, CR LF and LF become spaces; a reference keeps its byte */
  CHECK_EQ_STR(scan("<a v=\"1\t2\r\n3\n4\r5&#9;6 7\"/>"), "<a v='1 2 3 4 5\t6 7'></a>EOF");
  /* a character reference may have any number of leading zeros */
  CHECK_EQ_STR(scan("<a v='&#x000000000000000000000000000000000000000041;'>"
                    "&#00000000000000000000000000000000000000000000000066;</a>"),
               "<a v='A'>[B]</a>EOF");
  /* text's CR LF and CR become LF */
  CHECK_EQ_STR(scan("<a>1\r\n2\r3</a>"), "<a>[1\n2\n3]</a>EOF");
}

static void test_skipped_markup_and_cdata(void) {
  CHECK_EQ_STR(scan("<!-- head --><?pi data?><!DOCTYPE a SYSTEM \"x[.dtd\">\n<a>1<!-- c -->2"
                    "<?go?><![CDATA[<b>&amp;]]]></a><!--tail--> <?end?>\n"),
               "<a>[1][2][<b>&amp;]]</a>EOF");
  CHECK_EQ_STR(scan("<!DOCTYPE a><a/>"), "<a></a>EOF");
  CHECK_EQ_STR(scan("<a><![CDATA[x\r\ny]]></a>"), "<a>[x\ny]</a>EOF");
  CHECK_EQ_STR(scan("<?xml-stylesheet href='a'?><a/>"), "<a></a>EOF");
}

static void test_text_decode_bounds(void) {
  ins_scan s;
  ins_tok tok;
  base_error err;
  const char *doc = "<a>&#x263A;xy</a>";
  ins_scan_init(&s, doc, strlen(doc));
  CHECK_EQ_INT(ins_scan_next(&s, &tok, &err), 0);
  CHECK_EQ_INT(ins_scan_next(&s, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, INS_TOK_TEXT);
  char out[8];
  size_t n;
  CHECK_EQ_INT(ins_scan_text_decode(&tok, out, 4, &n), -1);
  CHECK_EQ_INT(ins_scan_text_decode(&tok, out, 5, &n), 0);
  CHECK_EQ_INT(n, 5);
  ins_scan_free(&s);
}

/* Each malformed document fails with the message part given, on the line
 * given. */
static void expect_error(const char *doc, size_t len, const char *what, int line) {
  const char *t = scan_n(doc, len);
  if (!strstr(t, what)) {
    check_failures++;
    fprintf(stderr, "expected \"%s\" for %.60s, got %s\n", what, doc, t);
  }
  char at[64];
  snprintf(at, sizeof at, "instruments XML line %d: ", line);
  CHECK(strstr(t, at) != NULL);
  CHECK(last_rc == WEFT_EPARSE || last_rc == WEFT_ELIMIT);
}

#define ERR(doc, what, line) expect_error(doc, sizeof doc - 1, what, line)

static void test_malformed(void) {
  ERR("", "no element found", 1);
  ERR("  \n<!-- only -->\n", "no element found", 3);
  ERR("<a>\n<b>", "no element found (the document ends with 2 elements open)", 2);
  ERR("<a>\n</b>", "mismatched tag", 2);
  ERR("<a></ab>", "mismatched tag", 1);
  ERR("<a/></a>", "end tag outside any element", 1);
  ERR("<a/><b/>", "junk after document element", 1);
  ERR("<a/>\nx", "junk after document element", 2);
  ERR("x<a/>", "text before the root element", 1);
  ERR("<a x=\"1\" x=\"2\"/>", "duplicate attribute", 1);
  ERR("<a x=1/>", "attribute value not quoted", 1);
  ERR("<a x/>", "'=' expected", 1);
  ERR("<a x=\"1\"y=\"2\"/>", "invalid token", 1);
  ERR("<a =\"1\"/>", "bad attribute name", 1);
  ERR("<a x=\"<\"/>", "'<' in an attribute value", 1);
  ERR("<a x=\"\x01\"/>", "invalid character", 1);
  ERR("<a>\x02</a>", "invalid character", 1);
  ERR("<a x=\"1", "unclosed token", 1);
  ERR("<a x=\"1\"", "unclosed token", 1);
  ERR("<a/", "invalid token", 1);
  ERR("<a></a", "unclosed token", 1);
  ERR("<a></a x>", "bad end tag", 1);
  ERR("<a></>", "bad end tag", 1);
  ERR("<a><", "unclosed token", 1);
  ERR("<a>< b/></a>", "invalid token", 1);
  ERR("<a>&bogus;</a>", "undefined entity", 1);
  ERR("<a x=\"&bogus;\"/>", "undefined entity", 1);
  ERR("<a>a & b</a>", "bad reference", 1);
  ERR("<a>&amp</a>", "bad reference", 1);
  ERR("<a x='&lt'/>", "bad reference", 1);
  ERR("<a>&#;</a>", "bad character reference", 1);
  ERR("<a>&#x;</a>", "bad character reference", 1);
  ERR("<a>&#12a;</a>", "bad character reference", 1);
  ERR("<a>&#0;</a>", "invalid character number", 1);
  ERR("<a>&#xD800;</a>", "invalid character number", 1);
  ERR("<a>&#x110000;</a>", "invalid character number", 1);
  ERR("<a>&#99999999999;</a>", "invalid character number", 1);
  ERR("<a><!-- a -- b --></a>", "'--' in a comment", 1);
  ERR("<a><!-- open", "unclosed comment", 1);
  ERR("<a><?pi open", "unclosed processing instruction", 1);
  ERR("<a><?9?></a>", "bad processing instruction", 1);
  ERR("<a><?pi/?></a>", "bad processing instruction", 1);
  ERR("<a/>\n<?xml version=\"1.0\"?>", "XML declaration not at the start", 2);
  ERR(" <?xml version=\"1.0\"?><a/>", "XML declaration not at the start", 1);
  ERR("<a><![CDATA[open</a>", "unclosed CDATA section", 1);
  ERR("<![CDATA[x]]><a/>", "CDATA section outside the root element", 1);
  ERR("<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>", "entity declarations are not supported", 1);
  ERR("<!DOCTYPE a SYSTEM \"x", "unclosed DOCTYPE", 1);
  ERR("<a><!DOCTYPE a></a>", "DOCTYPE after the root element's start", 1);
  ERR("<a><!bogus></a>", "invalid token", 1);
  ERR("<a>\r\n\r<!xyz></a>", "invalid token", 3);
}

static void test_limits(void) {
  char deep[4096] = "";
  for (int i = 0; i < 300; i++) strcat(deep, "<a>");
  expect_error(deep, strlen(deep), "elements nested too deep", 1);
  CHECK_EQ_INT(last_rc, WEFT_ELIMIT);
  char many[2048] = "<a";
  for (int i = 0; i < 129; i++) snprintf(many + strlen(many), 16, " a%d=''", i);
  strcat(many, "/>");
  expect_error(many, strlen(many), "more than 128 attributes", 1);
  CHECK_EQ_INT(last_rc, WEFT_ELIMIT);
  /* values with references over the scratch's bound, in one tag */
  size_t big = INS_SCAN_MAX_SCRATCH / 3 + 16;
  char *doc = malloc(3 * big + 64);
  if (!doc) return;
  char *p = doc, *after_two = NULL;
  for (int k = 0; k < 3; k++) {
    if (k == 2) after_two = p;
    p += sprintf(p, k ? " v%d=\"" : "<a v%d=\"", k);
    memset(p, 'x', big);
    memcpy(p, "&amp;", 5);
    p += big;
    *p++ = '"';
  }
  p += sprintf(p, "/>");
  expect_error(doc, (size_t)(p - doc), "over 16 MiB in one tag", 1);
  CHECK_EQ_INT(last_rc, WEFT_ELIMIT);
  /* two such values fit, and keep their bytes when the scratch grows */
  strcpy(after_two, "/>");
  ins_scan s;
  ins_tok tok;
  base_error err;
  ins_scan_init(&s, doc, strlen(doc));
  CHECK_EQ_INT(ins_scan_next(&s, &tok, &err), 0);
  CHECK_EQ_INT(tok.attr_count, 2);
  CHECK_EQ_INT(tok.attrs[0].value.len, big - 4);
  CHECK(tok.attrs[0].value.p[0] == '&' && tok.attrs[1].value.p[1] == 'x');
  ins_scan_free(&s);
  free(doc);
}

/* Every prefix of a valid document fails cleanly (never reads past it). */
static void test_every_truncation_fails(void) {
  const char *doc = "<?xml version=\"1.0\"?><!-- c --><a x=\"&amp;1\"><b>t&#65;</b>"
                    "<![CDATA[z]]><c/></a>";
  size_t len = strlen(doc);
  for (size_t n = 0; n < len; n++) {
    char *copy = malloc(n ? n : 1); /* exact size: ASan sees any overread */
    if (!copy) return;
    memcpy(copy, doc, n);
    scan_n(copy, n);
    CHECK(last_rc == WEFT_EPARSE);
    free(copy);
  }
  CHECK_EQ_STR(scan_n(doc, len), "<a x='&1'><b>[tA]</b>[z]<c></c></a>EOF");
}

int main(void) {
  RUN_TEST(test_elements_and_attributes);
  RUN_TEST(test_references);
  RUN_TEST(test_skipped_markup_and_cdata);
  RUN_TEST(test_text_decode_bounds);
  RUN_TEST(test_malformed);
  RUN_TEST(test_limits);
  RUN_TEST(test_every_truncation_fails);
  return CHECK_SUMMARY();
}
