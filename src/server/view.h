/* server: the web view of a loaded merge (`weft view`, and `/` of
 * `weft server http`): the page (web/, embedded), and JSON endpoints under
 * /view/ that the page calls. Uses only the public API.
 *
 * view_index.c copies the slices, sched slices and counters of the loaded
 * trace once into per-track arrays sorted by ts; view_summary.c answers a
 * viewport from them with one bucket per pixel; view.c routes the
 * endpoints; view_sql.c runs the SQL behind the details, flows, the
 * console and the merge panel; view_json.c writes JSON. docs/view.md
 * describes the endpoints and the summary. */
#ifndef WEFT_SERVER_VIEW_H
#define WEFT_SERVER_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "rpc.h"
#include "weft/weft.h"

/* A change to one input's placement (/view/remerge). */
typedef struct view_change {
  int file;            /* the input's index */
  int has_offset;
  int64_t offset_ns;   /* the input reads T when its reference reads T+offset */
  int ref;             /* the input to place it against, or -1: unchanged */
  const char *machine; /* the machine to put it on, or NULL: unchanged */
} view_change;

/* What the command that loaded the trace offers the view: re-merging with
 * one input's placement changed, and the manifest of the current merge.
 * Any function may be NULL (`weft server http` has none). */
typedef struct view_host {
  /* Loads the inputs again with the change applied (as --offset, --sync
   * and --machine do): 0 and *out loaded, or -1 and err. */
  int (*remerge)(void *user, const view_change *change, weft **out, char *err,
                 size_t err_cap);
  /* The perfetto_manifest.json of the current merge (to free()), or NULL. */
  char *(*manifest)(void *user);
  /* A JSON array of the inputs: {"index", "path", "offset_ns", "ref",
   * "machine"}
   * (to free()), or NULL. */
  char *(*inputs_json)(void *user);
  void *user;
} view_host;

typedef struct view_state view_state;

/* A value of the request's query string by name, or NULL. */
typedef const char *(*view_arg_fn)(void *ctx, const char *key);

typedef struct view_request {
  const char *path; /* after "/view/" */
  view_arg_fn arg;
  void *arg_ctx;
  const char *body; /* POST body (NUL-terminated), or NULL */
  size_t body_len;
} view_request;

typedef struct view_reply {
  unsigned status;
  rpc_buf body;
  const char *content_type;
  const char *attachment; /* a file name to download as, or NULL */
} view_reply;

view_state *view_create(const view_host *host);
void view_free(view_state *v);
/* Copies the session's trace into the view's index now rather than on
 * the first request (`weft view` does so before it listens, so that the
 * page's first paint does not wait for it). */
void view_prepare(view_state *v, rpc_session *s);
/* Waits for the view's work in the background (the fill that follows a
 * first summary, which reads the session's trace): call it before the
 * trace may change or go. view_handle and view_free call it. */
void view_settle(view_state *v);
/* Answers one /view/ request on the session's trace (a re-merge replaces
 * it). reply->body is to be freed with rpc_buf_free. */
void view_handle(view_state *v, rpc_session *s, const view_request *req,
                 view_reply *reply);

/* The embedded asset at `url` ("/", "/app.js", "/style.css"): 1 and its
 * bytes and content type, or 0. */
int view_asset(const char *url, const uint8_t **data, size_t *len, const char **type);

#endif
