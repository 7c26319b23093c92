/* Chrome JSON clock-sync markers: "ph": "c" events whose args carry the
 * sync_id a system trace's "trace_event_clock_sync: name=ID" line repeats
 * (catapult's clock sync), and issue_ts, when the sync was requested. */
#include "import/json/json_internal.h"

/* args.sync_id (string, or a number's text) and args.issue_ts of the args
 * object whose '{' the tokenizer just read. */
static int json_clock_sync_args(json_tokenizer *tk, json_token *id, json_time *issue,
                                base_error *err) {
  json_token k, v;
  for (;;) {
    int rc = json_next(tk, &k, err);
    if (rc || k.type == JSON_TOK_OBJECT_END) return rc;
    if ((rc = json_next(tk, &v, err))) return rc;
    if (json_is_container(&v)) {
      if ((rc = json_skip_container(tk, err))) return rc;
    } else if (json_key_is(&k, "sync_id") && (v.type == JSON_TOK_STRING ||
                                              v.type == JSON_TOK_NUMBER)) {
      *id = v;
    } else if (json_key_is(&k, "issue_ts")) {
      issue->present = 1;
      issue->valid = json_time_from(&v, &issue->ns) == 0;
    }
  }
}

/* The marker of the "c" event p, if it has a sync_id. */
static int json_clock_sync_event(import_file *f, const json_pending *p, uint32_t clock,
                                 base_error *err) {
  json_event e;
  memset(&e, 0, sizeof e);
  int rc = json_read_event(f, p->offset, &e, err);
  size_t args = e.args_offset;
  json_event_free(&e);
  if (rc || !args) return rc;
  const json_state *st = f->state;
  json_tokenizer tk;
  json_token open, id = {.type = JSON_TOK_NULL};
  json_time issue = {0};
  rc = json_trace_tokenizer_init(&tk, (const char *)f->data + args, f->len - args,
                                 &st->limits, err);
  if (!rc) rc = json_next(&tk, &open, err);
  if (!rc) rc = json_clock_sync_args(&tk, &id, &issue, err);
  if (!rc && id.type != JSON_TOK_NULL && id.len && !id.has_escapes) {
    int64_t at = issue.valid ? (int64_t)(((__int128)issue.ns + p->ts) / 2) : p->ts;
    rc = import_clock_sync_named(f, clock, id.ptr, id.len, at);
    if (rc) base_error_alloc(err, rc);
  }
  json_tokenizer_free(&tk);
  return rc;
}

int json_clock_sync_markers(import_file *f, const json_scan *scan, uint32_t clock,
                            base_error *err) {
  int rc = import_clock_sync_trace_event_clock(f, clock);
  if (rc) return base_error_alloc(err, rc);
  for (size_t i = 0; i < scan->clock_syncs.len; i++) {
    rc = json_clock_sync_event(f, &scan->clock_syncs.data[i], clock, err);
    if (rc) return rc;
  }
  return WEFT_OK;
}
