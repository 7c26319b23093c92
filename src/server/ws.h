/* server: the WebSocket protocol (RFC 6455) pieces the RPC's /websocket
 * endpoint needs: the handshake's accept key (SHA-1 and base64), and
 * reading and writing frames. No I/O here: httpd_ws.c drives a socket
 * with these.
 *
 * Frames from a client must be masked, have no RSV bits, a known opcode,
 * and control frames (close, ping, pong) must be whole (FIN) with at most
 * 125 bytes of payload; anything else is a protocol error (close code
 * 1002). A payload over the reader's limit is close code 1009. */
#ifndef WEFT_SERVER_WS_H
#define WEFT_SERVER_WS_H

#include <stddef.h>
#include <stdint.h>

enum {
  WS_OP_CONTINUATION = 0,
  WS_OP_TEXT = 1,
  WS_OP_BINARY = 2,
  WS_OP_CLOSE = 8,
  WS_OP_PING = 9,
  WS_OP_PONG = 10
};

enum {
  WS_CLOSE_NORMAL = 1000,
  WS_CLOSE_PROTOCOL = 1002,
  WS_CLOSE_UNSUPPORTED = 1003,
  WS_CLOSE_TOO_BIG = 1009,
  WS_CLOSE_INTERNAL = 1011
};

/* The longest frame header: 2 bytes, 8 of length, 4 of mask. */
#define WS_MAX_HEADER 14

/* SHA-1 of data[0..len) into out. */
void ws_sha1(const void *data, size_t len, uint8_t out[20]);
/* Standard base64 (with padding) of data[0..len) into out, NUL-terminated;
 * out holds 4 * ((len + 2) / 3) + 1 bytes. */
void ws_base64(const uint8_t *data, size_t len, char *out);
/* The Sec-WebSocket-Accept value for a Sec-WebSocket-Key (28 characters
 * and a NUL). */
void ws_accept_key(const char *key, char out[29]);

typedef struct ws_frame {
  int fin;
  int opcode;
  uint8_t *payload; /* unmasked in place, inside the bytes given */
  size_t len;
} ws_frame;

/* Reads the client frame at data[0..avail): the bytes it takes (its
 * payload unmasked in place), 0 if more bytes are needed, or -1 with the
 * close code in *close_code. */
long ws_frame_read(uint8_t *data, size_t avail, size_t max_payload, ws_frame *out,
                   int *close_code);
/* A server frame's header (unmasked, FIN set) into out: its size. */
size_t ws_frame_header(uint8_t out[WS_MAX_HEADER], int opcode, uint64_t len);

#endif
