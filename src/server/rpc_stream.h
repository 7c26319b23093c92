/* server: the TraceProcessor RPC as a byte stream, the form the Perfetto
 * UI's websocket, the stdio server and the unix-socket server speak.
 *
 * Each side sends a sequence of TraceProcessorRpc messages, each preceded
 * by the tag of field 1 (length-delimited) and its size, so the stream
 * reads as a TraceProcessorRpcStream. The bytes may arrive cut anywhere;
 * the stream keeps what is not yet a whole message.
 *
 * A request names its method (`request`) and carries its arguments; each
 * answer has the method in `response` and its own `seq` (0, 1, 2, ... on
 * this stream). A query is answered by one or more messages, each a
 * QueryResult holding some batches, the last with is_last_batch; a method
 * weft does not have is answered with `invalid_request`. A request whose
 * `seq` is neither 0 (a restart) nor one more than the last is a fatal
 * error, as is a framing error (a tag other than field 1's, a message
 * over RPC_STREAM_MAX_MESSAGE, a malformed TraceProcessorRpc): the answer
 * is a message with `fatal_error`, and the peer is to be disconnected. */
#ifndef WEFT_SERVER_RPC_STREAM_H
#define WEFT_SERVER_RPC_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "rpc.h"
#include "rpc_wire.h"

#define RPC_STREAM_MAX_MESSAGE (64u << 20)

/* TraceProcessorRpc.TraceProcessorMethod values. */
enum {
  RPC_TPM_APPEND_TRACE_DATA = 1,
  RPC_TPM_FINALIZE_TRACE_DATA = 2,
  RPC_TPM_QUERY_STREAMING = 3,
  RPC_TPM_COMPUTE_METRIC = 5,
  RPC_TPM_RESTORE_INITIAL_TABLES = 7,
  RPC_TPM_ENABLE_METATRACE = 8,
  RPC_TPM_DISABLE_AND_READ_METATRACE = 9,
  RPC_TPM_GET_STATUS = 10,
  RPC_TPM_RESET_TRACE_PROCESSOR = 11
};

/* Sends bytes to the peer: 0, or -1 if it cannot (the stream then stops). */
typedef int (*rpc_stream_send_fn)(void *user, const void *data, size_t len);

typedef struct rpc_stream {
  rpc_session *session;
  rpc_stream_send_fn send;
  void *user;
  rpc_buf rx;      /* bytes received and not yet read as messages */
  size_t rx_pos;   /* where the next message starts in rx */
  int64_t rx_seq;  /* of the last request */
  int64_t tx_seq;  /* of the next answer */
  int failed;      /* a fatal error was answered or a send failed */
} rpc_stream;

void rpc_stream_init(rpc_stream *s, rpc_session *session, rpc_stream_send_fn send,
                     void *user);
void rpc_stream_free(rpc_stream *s);
/* Takes bytes from the peer and answers every whole request among them.
 * Returns 0, or -1 once the peer is to be disconnected. */
int rpc_stream_feed(rpc_stream *s, const void *data, size_t len);

#endif
