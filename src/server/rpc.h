/* server: the TraceProcessor RPC on one weft instance, independent of the
 * transport (httpd.c carries it over HTTP).
 *
 * /parse streams bytes into one trace file being loaded; /notify_eof ends
 * it and finishes the load; a /parse after that (or after a failed one)
 * starts a new trace, as trace_processor_shell does. /query runs SQL on
 * the loaded trace (finishing a load still open) and answers a
 * QueryResult (rpc_query.h). /restore_initial_tables drops the tables,
 * views and triggers created since the trace was loaded. */
#ifndef WEFT_SERVER_RPC_H
#define WEFT_SERVER_RPC_H

#include <stddef.h>
#include <stdint.h>

#include "rpc_query.h"
#include "rpc_wire.h"
#include "weft/weft.h"

/* The api_version of StatusResult: the TraceProcessor RPC revision whose
 * messages this server speaks (TRACE_PROCESSOR_CURRENT_API_VERSION). */
#define RPC_API_VERSION 14

typedef struct rpc_session {
  weft_options options;
  weft *w;          /* NULL until a trace is given */
  int state;        /* enum rpc_state */
  uint64_t bytes_parsed;
  char trace_name[256];
  char parse_error[512]; /* of the /parse being received */
  char load_error[512];  /* why the trace failed to load (RPC_FAILED) */
  char **initial_objects; /* sqlite_master names when the load finished */
  size_t initial_count;
  uint64_t generation; /* changes whenever w is replaced or dropped */
} rpc_session;

/* A session over `preloaded` (a loaded instance, or NULL) named `name`;
 * new instances for /parse are opened with `options`. The session owns
 * preloaded from here. */
void rpc_session_init(rpc_session *s, const weft_options *options,
                      weft *preloaded, const char *name);
void rpc_session_free(rpc_session *s);
/* 1 if the session holds a loaded trace to query. */
int rpc_session_ready(const rpc_session *s);
/* Replaces the session's trace by `loaded` (a loaded instance, owned from
 * here) named `name`, as a re-merge does. */
void rpc_session_replace(rpc_session *s, weft *loaded, const char *name);

/* Drops the session's trace (TPM_RESET_TRACE_PROCESSOR): the next
 * append starts a new one. */
void rpc_session_reset(rpc_session *s);
/* Why the trace failed to load, or NULL if it did not fail. */
const char *rpc_session_error(const rpc_session *s);

/* One /parse request: begin, bytes (any number of pieces), then the
 * AppendTraceDataResult into out. */
void rpc_parse_begin(rpc_session *s);
void rpc_parse_bytes(rpc_session *s, const void *data, size_t len);
/* Fails the /parse being received with `message` (say, an oversized
 * request): the trace is dropped, and queries answer the message until a
 * new /parse starts another. */
void rpc_parse_fail(rpc_session *s, const char *message);
void rpc_parse_reply(rpc_session *s, rpc_buf *out);

void rpc_notify_eof(rpc_session *s);
void rpc_status(rpc_session *s, rpc_buf *out);
void rpc_restore_initial_tables(rpc_session *s);

/* Runs the QueryArgs in body[0..len) writing the QueryResult to out.
 * Returns -1 only if out failed (memory or disk). */
int rpc_query(rpc_session *s, const uint8_t *body, size_t len, rpc_spool *out);

/* Decodes a QueryArgs: the sql_query as a NUL-terminated copy to free()
 * (empty if absent), or NULL with *error set for malformed input. */
char *rpc_decode_query_args(const uint8_t *body, size_t len, const char **error);

#endif
