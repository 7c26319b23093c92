/* The web view's page, script and style sheet (web/), embedded at build
 * time by cmake/embed_bytes.cmake. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "view.h"

extern const uint8_t weft_web_index_html[];
extern const size_t weft_web_index_html_len;
extern const uint8_t weft_web_app_js[];
extern const size_t weft_web_app_js_len;
extern const uint8_t weft_web_merge_js[];
extern const size_t weft_web_merge_js_len;
extern const uint8_t weft_web_style_css[];
extern const size_t weft_web_style_css_len;

int view_asset(const char *url, const uint8_t **data, size_t *len, const char **type) {
  static const char html[] = "text/html; charset=utf-8";
  const struct {
    const char *url;
    const uint8_t *data;
    size_t len;
    const char *type;
  } assets[] = {
      {"/", weft_web_index_html, weft_web_index_html_len, html},
      {"/index.html", weft_web_index_html, weft_web_index_html_len, html},
      {"/app.js", weft_web_app_js, weft_web_app_js_len, "text/javascript; charset=utf-8"},
      {"/merge.js", weft_web_merge_js, weft_web_merge_js_len, "text/javascript; charset=utf-8"},
      {"/style.css", weft_web_style_css, weft_web_style_css_len, "text/css; charset=utf-8"},
  };
  for (size_t i = 0; i < sizeof assets / sizeof *assets; i++) {
    if (strcmp(url, assets[i].url) != 0) continue;
    if (data) *data = assets[i].data;
    if (len) *len = assets[i].len;
    if (type) *type = assets[i].type;
    return 1;
  }
  return 0;
}
