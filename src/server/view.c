/* The web view's endpoints (view.h, docs/view.md). Every reply is JSON;
 * a malformed request is answered 400 with {"error": message}. */
#include "view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "view_index.h"
#include "view_json.h"
#include "view_sql.h"
#include "view_summary.h"

#define VIEW_MAX_REPLY (256u << 20)
#define VIEW_MAX_TRACK_LIST 100000u
#define VIEW_MAX_SELECT_ROWS 1000u

struct view_state {
  view_host host;
  view_index ix;
  int built;
  uint64_t generation; /* of the session trace ix was built from */
  size_t last_summary; /* bytes of the last summary, to reserve the next */
  double index_ms;     /* how long ix took to build */
};

static double view_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

view_state *view_create(const view_host *host) {
  view_state *v = calloc(1, sizeof *v);
  if (v && host) v->host = *host;
  return v;
}

void view_free(view_state *v) {
  if (!v) return;
  if (v->built) view_index_free(&v->ix);
  free(v);
}

static void view_fail(view_reply *r, unsigned status, const char *message) {
  r->status = status;
  view_json_error(&r->body, message);
}

/* ---- request arguments ---- */

/* An integer argument: 0 and *out, or -1 (reply set to 400). */
static int view_arg_i64(const view_request *req, view_reply *r, const char *key,
                        int64_t *out) {
  const char *s = req->arg(req->arg_ctx, key);
  char *end = NULL;
  errno = 0;
  long long v = s ? strtoll(s, &end, 10) : 0;
  if (!s || !*s || *end || errno) {
    char msg[128];
    snprintf(msg, sizeof msg, "bad or missing '%s' (an integer)", key);
    view_fail(r, 400, msg);
    return -1;
  }
  *out = v;
  return 0;
}

/* A window argument pair start < end. */
static int view_arg_window(const view_request *req, view_reply *r, int64_t *start,
                           int64_t *end) {
  if (view_arg_i64(req, r, "start", start) || view_arg_i64(req, r, "end", end)) return -1;
  if (*end <= *start) {
    view_fail(r, 400, "'end' must be after 'start'");
    return -1;
  }
  return 0;
}

/* "tracks=1,2,3": the list (to free()), *count; NULL with *count 0 when
 * absent; -1 in *count (reply set) when malformed. */
static uint32_t *view_arg_tracks(const view_request *req, view_reply *r, size_t limit,
                                 size_t *count) {
  const char *s = req->arg(req->arg_ctx, "tracks");
  *count = 0;
  if (!s) return NULL;
  uint32_t *list = malloc((strlen(s) / 2 + 1) * sizeof *list);
  for (const char *p = s; list && *p;) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(p, &end, 10);
    if (end == p || errno || v >= limit || (*end && *end != ',') || *p == '-') {
      free(list);
      view_fail(r, 400, "bad 'tracks' (comma-separated track numbers of /view/tracks)");
      *count = (size_t)-1;
      return NULL;
    }
    list[(*count)++] = (uint32_t)v;
    p = *end ? end + 1 : end;
  }
  if (!list) view_fail(r, 500, "out of memory");
  return list;
}

/* ---- the index ---- */

static int view_ready(view_state *v, rpc_session *s, view_reply *r) {
  if (!rpc_session_ready(s)) {
    view_fail(r, 400, "no trace is loaded");
    return -1;
  }
  if (v->built && v->generation == s->generation) return 0;
  if (v->built) view_index_free(&v->ix);
  v->built = 0;
  char err[512];
  double begun = view_now_ms();
  if (view_index_build(&v->ix, s->w, err, sizeof err) != 0) {
    view_fail(r, 500, err);
    return -1;
  }
  v->built = 1;
  v->generation = s->generation;
  v->index_ms = view_now_ms() - begun;
  return 0;
}

void view_settle(view_state *v) {
  if (v) view_index_settle(&v->ix);
}

void view_prepare(view_state *v, rpc_session *s) {
  view_reply r;
  memset(&r, 0, sizeof r);
  r.body.cap = VIEW_MAX_REPLY;
  (void)view_ready(v, s, &r); /* a failure is answered on the first request */
  rpc_buf_free(&r.body);
}

static void view_labels_json(rpc_buf *b, const char *key, const view_index *ix,
                             const view_label *l, size_t n) {
  view_json_add(b, ",\"%s\":[", key);
  for (size_t i = 0; i < n; i++) {
    view_json_add(b, "%s{\"id\":%lld,\"parent\":%lld,\"machine\":%lld,\"name\":", i ? "," : "",
                  (long long)l[i].id, (long long)l[i].parent, (long long)l[i].machine);
    view_json_cstr(b, ix->names.text[l[i].text]);
    view_json_add(b, "}");
  }
  view_json_add(b, "]");
}

static void view_tracks(view_state *v, view_reply *r) {
  static const char *const kinds[] = {"slices", "cpu", "counter"};
  const view_index *ix = &v->ix;
  rpc_buf *b = &r->body;
  view_json_add(b, "{\"start\":%lld,\"end\":%lld,\"index_ms\":%.1f", (long long)ix->start,
                (long long)ix->end, v->index_ms);
  view_labels_json(b, "machines", ix, ix->machines, ix->machine_count);
  view_labels_json(b, "processes", ix, ix->processes, ix->process_count);
  view_labels_json(b, "threads", ix, ix->threads, ix->thread_count);
  view_json_add(b, ",\"tracks\":[");
  for (size_t i = 0; i < ix->track_count; i++) {
    const view_track *t = &ix->tracks[i];
    view_json_add(b, "%s{\"vid\":%zu,\"kind\":\"%s\",\"id\":%lld,\"machine\":%lld,"
                     "\"upid\":%lld,\"utid\":%lld,\"cpu\":%lld,\"count\":%zu,"
                     "\"max_depth\":%u,\"name\":",
                  i ? "," : "", i, kinds[t->kind], (long long)t->source_id,
                  (long long)t->machine, (long long)t->upid, (long long)t->utid,
                  (long long)t->cpu, t->count, t->max_depth);
    view_json_cstr(b, ix->names.text[t->name]);
    view_json_add(b, "}");
  }
  view_json_add(b, "]}");
}

static void view_summary(view_state *v, const view_request *req, view_reply *r) {
  int64_t start, end, px;
  if (view_arg_window(req, r, &start, &end) || view_arg_i64(req, r, "px", &px)) return;
  if (px < 1 || px > VIEW_MAX_PX) {
    view_fail(r, 400, "'px' must be between 1 and 16384");
    return;
  }
  size_t n;
  uint32_t *vids = view_arg_tracks(req, r, v->ix.track_count, &n);
  if (n == (size_t)-1 || (!vids && r->status != 200)) return;
  /* Growing a reply of tens of MiB by doubling costs more in copies and
   * fresh pages than making it: start at the size of the last one. */
  size_t hint = v->last_summary + v->last_summary / 4;
  if (hint > 4096 && hint < r->body.cap && (r->body.data = malloc(hint)))
    r->body.alloc = hint;
  const char *exact = req->arg(req->arg_ctx, "exact");
  v->ix.exact = exact && !strcmp(exact, "1"); /* for benchmarks: no levels of detail */
  int rc = view_summary_json(&v->ix, start, end, (uint32_t)px, vids, vids ? n : 0, &r->body);
  if (rc == -2)
    view_fail(r, 500, "out of memory");
  else if (rc)
    view_fail(r, 413, "the summary is too big: ask for fewer tracks or pixels");
  else
    v->last_summary = r->body.len;
  free(vids);
}

/* ---- SQL endpoints ---- */

static void view_sql_reply(weft *w, const char *sql, size_t max_rows, view_reply *r) {
  char err[1024];
  if (view_sql_json(w, sql, max_rows, &r->body, err, sizeof err)) view_fail(r, 400, err);
}

static void view_slice_details(rpc_session *s, const view_request *req, view_reply *r) {
  int64_t id;
  if (view_arg_i64(req, r, "id", &id)) return;
  char slice_sql[768], args_sql[256], err[1024];
  snprintf(slice_sql, sizeof slice_sql,
           "select s.id, s.ts, s.dur, s.name, s.category, s.depth, s.track_id, "
           "s.parent_id, s.arg_set_id, t.name as track_name, th.tid, th.name as "
           "thread_name, p.pid, p.name as process_name from slice s "
           "left join track t on t.id = s.track_id "
           "left join thread_track tt on tt.id = s.track_id "
           "left join thread th on th.utid = tt.utid "
           "left join process p on p.upid = th.upid where s.id = %lld",
           (long long)id);
  snprintf(args_sql, sizeof args_sql,
           "select key, display_value from args where arg_set_id = "
           "(select arg_set_id from slice where id = %lld) order by key", (long long)id);
  view_json_add(&r->body, "{\"slice\":");
  if (view_sql_json(s->w, slice_sql, 1, &r->body, err, sizeof err) == 0) {
    view_json_add(&r->body, ",\"args\":");
    if (view_sql_json(s->w, args_sql, 1000, &r->body, err, sizeof err) == 0) {
      view_json_add(&r->body, "}");
      return;
    }
  }
  view_fail(r, 400, err);
}

static void view_flows(rpc_session *s, const view_request *req, view_reply *r) {
  int64_t start, end;
  if (view_arg_window(req, r, &start, &end)) return;
  char sql[1024];
  snprintf(sql, sizeof sql,
           "select f.id, so.id as out_id, so.track_id as out_track, so.depth as "
           "out_depth, so.ts + max(so.dur, 0) as out_ts, si.id as in_id, si.track_id "
           "as in_track, si.depth as in_depth, si.ts as in_ts from flow f "
           "join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in "
           "where (so.ts < %lld and so.ts + max(so.dur, 0) >= %lld) or "
           "(si.ts < %lld and si.ts >= %lld)",
           (long long)end, (long long)start, (long long)end, (long long)start);
  view_sql_reply(s->w, sql, 5000, r);
}

/* Box select: the slices of the chosen tracks overlapping the window. */
static void view_select(view_state *v, rpc_session *s, const view_request *req,
                        view_reply *r) {
  int64_t start, end;
  if (view_arg_window(req, r, &start, &end)) return;
  size_t n;
  uint32_t *vids = view_arg_tracks(req, r, v->ix.track_count, &n);
  if (n == (size_t)-1) return;
  rpc_buf ids = {0};
  for (size_t k = 0; k < n; k++) {
    const view_track *t = &v->ix.tracks[vids[k]];
    if (t->kind == VIEW_TRACK_SLICES)
      view_json_add(&ids, "%s%lld", ids.len ? "," : "", (long long)t->source_id);
  }
  free(vids);
  rpc_buf sql = {0};
  view_json_add(&sql, "select count(*) as count, coalesce(sum(max(dur, 0)), 0) as total_dur "
                      "from slice where ts < %lld and ts + max(dur, 0) >= %lld and "
                      "track_id in (%.*s); ",
                (long long)end, (long long)start, (int)ids.len, ids.data ? (char *)ids.data : "");
  size_t totals_len = sql.len;
  view_json_add(&sql, "select id, ts, dur, name, track_id, depth from slice where ts < %lld "
                      "and ts + max(dur, 0) >= %lld and track_id in (%.*s) order by ts",
                (long long)end, (long long)start, (int)ids.len, ids.data ? (char *)ids.data : "");
  rpc_buf_append(&sql, "", 1);
  char err[1024];
  if (!sql.failed) {
    char *totals = (char *)sql.data;
    char saved = totals[totals_len];
    totals[totals_len] = '\0';
    view_json_add(&r->body, "{\"totals\":");
    int rc = view_sql_json(s->w, totals, 1, &r->body, err, sizeof err);
    totals[totals_len] = saved;
    if (rc == 0) view_json_add(&r->body, ",\"slices\":");
    if (rc == 0) rc = view_sql_json(s->w, totals + totals_len, VIEW_MAX_SELECT_ROWS,
                                    &r->body, err, sizeof err);
    if (rc == 0) view_json_add(&r->body, "}");
    else view_fail(r, 400, err);
  } else {
    view_fail(r, 500, "out of memory");
  }
  rpc_buf_free(&ids);
  rpc_buf_free(&sql);
}

static void view_query(rpc_session *s, const view_request *req, view_reply *r) {
  if (!req->body || !req->body_len) {
    view_fail(r, 400, "POST the SQL as the request body");
    return;
  }
  if (memchr(req->body, '\0', req->body_len)) {
    view_fail(r, 400, "the SQL holds a NUL byte");
    return;
  }
  view_sql_reply(s->w, req->body, VIEW_SQL_MAX_ROWS, r);
}

/* The merge panel: weft_placement when the trace has it, else trace_file. */
static void view_files(view_state *v, rpc_session *s, view_reply *r) {
  char err[1024];
  rpc_buf *b = &r->body;
  view_json_add(b, "{\"placement\":true,\"table\":");
  char placement_err[512] = "";
  if (view_sql_json(s->w, "select * from weft_placement", 1000, b, placement_err,
                    sizeof placement_err)) {
    b->len = 0;
    b->failed = 0;
    view_json_add(b, "{\"placement\":false,\"placement_error\":");
    view_json_cstr(b, placement_err);
    view_json_add(b, ",\"table\":");
    if (view_sql_json(s->w,
                      "select id as trace_file_id, name as file_name, trace_type, "
                      "null as machine_name, null as clock_name, null as rule, "
                      "null as offset_ns from trace_file where not is_container and "
                      "trace_type != 'perfetto_manifest' order by id",
                      1000, b, err, sizeof err)) {
      view_fail(r, 500, err);
      return;
    }
  }
  char *inputs = v->host.inputs_json ? v->host.inputs_json(v->host.user) : NULL;
  view_json_add(b, ",\"can_remerge\":%s,\"inputs\":", v->host.remerge ? "true" : "false");
  if (inputs) rpc_buf_append(b, inputs, strlen(inputs));
  else view_json_add(b, "[]");
  view_json_add(b, "}");
  free(inputs);
}

#define VIEW_MAX_MACHINE_NAME 128

/* The optional arguments of a re-merge: offset_ns, ref, machine. */
static int view_change_args(const view_request *req, view_reply *r, view_change *c) {
  const char *offset = req->arg(req->arg_ctx, "offset_ns");
  const char *ref = req->arg(req->arg_ctx, "ref");
  c->machine = req->arg(req->arg_ctx, "machine");
  c->ref = -1;
  if (offset && view_arg_i64(req, r, "offset_ns", &c->offset_ns)) return -1;
  c->has_offset = offset != NULL;
  int64_t ref_index = -1;
  if (ref && (view_arg_i64(req, r, "ref", &ref_index) || ref_index < 0 ||
              ref_index > INT32_MAX || ref_index == c->file)) {
    view_fail(r, 400, "bad 'ref' (the index of another input)");
    return -1;
  }
  c->ref = (int)ref_index;
  if (c->machine && (!*c->machine || strlen(c->machine) > VIEW_MAX_MACHINE_NAME)) {
    view_fail(r, 400, "bad 'machine' (a name of 1 to 128 bytes)");
    return -1;
  }
  if (!offset && !ref && !c->machine) {
    view_fail(r, 400, "nothing to change: give 'offset_ns', 'ref' or 'machine'");
    return -1;
  }
  return 0;
}

static void view_remerge(view_state *v, rpc_session *s, const view_request *req,
                         view_reply *r) {
  int64_t file;
  if (view_arg_i64(req, r, "file", &file)) return;
  if (file < 0 || file > INT32_MAX) {
    view_fail(r, 400, "bad 'file' (an input index of /view/files)");
    return;
  }
  view_change change = {(int)file, 0, 0, -1, NULL};
  if (view_change_args(req, r, &change)) return;
  if (!v->host.remerge) {
    view_fail(r, 400, "this server cannot re-merge (start it with `weft view`)");
    return;
  }
  weft *w = NULL;
  char err[1024];
  if (v->host.remerge(v->host.user, &change, &w, err, sizeof err) != 0) {
    view_fail(r, 400, err);
    return;
  }
  rpc_session_replace(s, w, s->trace_name);
  view_json_add(&r->body, "{\"ok\":true}");
}

static void view_manifest(view_state *v, view_reply *r) {
  char *json = v->host.manifest ? v->host.manifest(v->host.user) : NULL;
  if (!json) {
    view_fail(r, 400, "no manifest: this server was not started by `weft view`");
    return;
  }
  rpc_buf_append(&r->body, json, strlen(json));
  r->attachment = "perfetto_manifest.json";
  free(json);
}

void view_handle(view_state *v, rpc_session *s, const view_request *req,
                 view_reply *r) {
  memset(r, 0, sizeof *r);
  r->status = 200;
  r->content_type = "application/json";
  r->body.cap = VIEW_MAX_REPLY;
  const char *p = req->path;
  if (!strcmp(p, "manifest")) {
    view_manifest(v, r);
    return;
  }
  /* The flows that follow a first summary need no index: they run while
   * its tracks are filled in the background. */
  if (strcmp(p, "flows") != 0) view_settle(v);
  if (view_ready(v, s, r)) return;
  if (!strcmp(p, "tracks")) view_tracks(v, r);
  else if (!strcmp(p, "summary")) view_summary(v, req, r);
  else if (!strcmp(p, "slice")) view_slice_details(s, req, r);
  else if (!strcmp(p, "flows")) view_flows(s, req, r);
  else if (!strcmp(p, "select")) view_select(v, s, req, r);
  else if (!strcmp(p, "query")) view_query(s, req, r);
  else if (!strcmp(p, "files")) view_files(v, s, r);
  else if (!strcmp(p, "remerge")) view_remerge(v, s, req, r);
  else view_fail(r, 404, "no such endpoint under /view/");
  if (r->body.failed) view_fail(r, 413, "the reply is too big");
}
