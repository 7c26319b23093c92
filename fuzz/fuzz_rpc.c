/* RPC request decoder (src/server/): the input is a request body as /query
 * receives it. The QueryArgs decoder either refuses it with a message or
 * returns the SQL, which encoded again decodes to the same text; every
 * field of the input, and of the messages nested in it, is walked with
 * the wire reader, which stays inside the input. The same bytes are read
 * as websocket client frames (each frame inside the input, unmasked in
 * place, within the payload limit) and, NUL-terminated, as SQL split into
 * statements (the last statement inside the text). */
#include "fuzz_common.h"

#include "server/rpc.h"
#include "server/rpc_sql.h"
#include "server/rpc_wire.h"
#include "server/ws.h"

#define FUZZ_RPC_MAX_DEPTH 8

static void fuzz_rpc_walk(const uint8_t *data, size_t len, int depth) {
  size_t pos = 0;
  rpc_field f;
  int more;
  while ((more = rpc_wire_next(data, len, &pos, &f)) > 0) {
    FUZZ_CHECK(pos <= len && f.number > 0);
    if (f.wire_type == RPC_WIRE_BYTES) {
      FUZZ_CHECK(f.data >= data && f.data + f.len <= data + len);
      if (depth < FUZZ_RPC_MAX_DEPTH) fuzz_rpc_walk(f.data, f.len, depth + 1);
    }
  }
  FUZZ_CHECK(more == 0 || more == -1);
}

#define FUZZ_WS_MAX_PAYLOAD 4096

static void fuzz_ws_frames(const uint8_t *data, size_t size) {
  uint8_t *copy = malloc(size ? size : 1);
  if (!copy) return;
  if (size) memcpy(copy, data, size);
  size_t pos = 0;
  for (;;) {
    ws_frame f;
    int code = 0;
    long used = ws_frame_read(copy + pos, size - pos, FUZZ_WS_MAX_PAYLOAD, &f, &code);
    if (used < 0) FUZZ_CHECK(code == WS_CLOSE_PROTOCOL || code == WS_CLOSE_TOO_BIG);
    if (used <= 0) break;
    FUZZ_CHECK((size_t)used <= size - pos && f.len <= FUZZ_WS_MAX_PAYLOAD);
    FUZZ_CHECK(f.payload >= copy + pos && f.payload + f.len <= copy + pos + (size_t)used);
    pos += (size_t)used;
  }
  free(copy);
}

static void fuzz_sql_statements(const uint8_t *data, size_t size) {
  char *sql = malloc(size + 1);
  if (!sql) return;
  memcpy(sql, data, size);
  sql[size] = '\0';
  rpc_sql_info info;
  rpc_sql_statements(sql, &info);
  size_t text = strlen(sql);
  FUZZ_CHECK(info.count <= text);
  FUZZ_CHECK(info.count == 0 ? info.last == NULL
                             : info.last >= sql && info.last + info.last_len <= sql + text);
  free(sql);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_rpc_walk(data, size, 0);
  fuzz_ws_frames(data, size);
  fuzz_sql_statements(data, size);
  const char *error = NULL;
  char *sql = rpc_decode_query_args(data, size, &error);
  if (!sql) {
    FUZZ_CHECK(error && error[0]);
    return 0;
  }
  rpc_buf again = {0};
  rpc_buf_field_string(&again, 1, sql);
  FUZZ_CHECK(!again.failed);
  const char *error2 = NULL;
  char *sql2 = rpc_decode_query_args(again.data, again.len, &error2);
  FUZZ_CHECK(sql2 && strcmp(sql, sql2) == 0);
  free(sql2);
  rpc_buf_free(&again);
  free(sql);
  return 0;
}
