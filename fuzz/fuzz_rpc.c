/* RPC request decoder (src/server/): the input is a request body as /query
 * receives it. The QueryArgs decoder either refuses it with a message or
 * returns the SQL, which encoded again decodes to the same text; every
 * field of the input, and of the messages nested in it, is walked with
 * the wire reader, which stays inside the input. */
#include "fuzz_common.h"

#include "server/rpc.h"
#include "server/rpc_wire.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_rpc_walk(data, size, 0);
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
