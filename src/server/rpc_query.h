/* server: a query's result as TraceProcessor's QueryResult messages.
 *
 * The rows of the last statement that returns columns are cut into
 * batches of whole rows (at most RPC_CELLS_PER_BATCH cells, or about
 * RPC_BATCH_BYTES of payload) in the CellsBatch encoding: one cell-type
 * byte per cell, integers as packed varints, doubles as packed fixed64
 * (placed at an 8-byte-aligned offset of their message with a padding
 * field 7 before them), strings joined by NUL in string_cells, blobs one
 * field each. Each batch is one QueryResult message (the first also
 * carries column_names); the last batch has is_last_batch, followed by
 * error and elapsed_time_ms. The first batch's message also carries
 * statement_count, statement_with_output_count and last_statement_sql. A client that concatenates them reads one
 * QueryResult.
 *
 * The messages go to a spool: memory up to RPC_SPOOL_MEMORY bytes, then an
 * unlinked temporary file, so a large result costs bounded memory. */
#ifndef WEFT_SERVER_RPC_QUERY_H
#define WEFT_SERVER_RPC_QUERY_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "rpc_wire.h"
#include "weft/weft.h"

#define RPC_CELLS_PER_BATCH 50000u
#define RPC_BATCH_BYTES (128u * 1024u)
#define RPC_SPOOL_MEMORY (8u * 1024u * 1024u)

typedef struct rpc_spool {
  rpc_buf mem;
  FILE *file;         /* the part after mem, once mem is full */
  uint64_t file_len;
  int failed;
} rpc_spool;

void rpc_spool_write(rpc_spool *s, const void *data, size_t len);
/* Drops everything written. */
void rpc_spool_reset(rpc_spool *s);
uint64_t rpc_spool_size(const rpc_spool *s);
/* Up to max bytes from offset pos: the count, 0 at the end, -1 on error. */
ssize_t rpc_spool_read(rpc_spool *s, uint64_t pos, void *buf, size_t max);
void rpc_spool_free(rpc_spool *s);

typedef struct rpc_query_result rpc_query_result;

/* A serializer writing to `out`; NULL when out of memory. */
rpc_query_result *rpc_query_result_new(rpc_spool *out);
void rpc_query_result_free(rpc_query_result *r);
/* The SQL's statement count and last statement (rpc_sql.h), for the
 * first message's statement_count and last_statement_sql (kept by
 * pointer until the result is finished). statement_with_output_count is
 * counted from the statements that return columns, but for one column
 * named suppress_query_output. On an error all three are 0 or empty. */
void rpc_query_result_statements(rpc_query_result *r, uint32_t count, const char *last_sql,
                                 size_t last_len);
/* Callbacks for weft_query that feed the serializer. */
weft_query_callbacks rpc_query_result_callbacks(rpc_query_result *r);
/* Ends the result: the last batch, then `error` (NULL: none; the rows
 * written so far are dropped) and the elapsed time. Returns -1 if the
 * spool failed (out of memory or disk). */
int rpc_query_result_finish(rpc_query_result *r, const char *error,
                            double elapsed_ms);

#endif
