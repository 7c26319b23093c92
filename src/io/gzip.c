/* io/gzip: gzip (incl. concatenated members) and ctrace streams via zlib,
 * yielded as one member named NULL (see archive.h). A lone gzip member
 * whose trailer's size passes the limits (checked on that size against
 * the whole stream, as for a deflated zip member) is inflated by
 * libdeflate in one call instead, which is faster; anything else,
 * including every damaged stream, takes zlib's path and its messages.
 * With IO_EACH_DEFER_INFLATE such a member is not inflated here but
 * yielded as io_member.deflated, for the caller's io_deflated_inflate. */
#include <libdeflate.h>
#include <zlib.h>

#include "io/io_internal.h"

#define IO_INFLATE_CHUNK ((size_t)1 << 18)
#define IO_INFLATE_MAX_IN ((size_t)1 << 30)

static voidpf io_zalloc(voidpf opaque, uInt items, uInt size) {
  (void)opaque;
  if (size != 0 && items > SIZE_MAX / size) return Z_NULL;
  return base_malloc((size_t)items * size);
}

static void io_zfree(voidpf opaque, voidpf p) {
  (void)opaque;
  base_free(p);
}

typedef struct io_inflater {
  z_stream zs;
  const uint8_t *in;
  size_t in_len;
  size_t in_pos; /* bytes handed to zlib so far */
  io_sink out;
  const io_limits *limits;
  const char *what;
} io_inflater;

static bool all_zero(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (p[i] != 0) return false;
  }
  return true;
}

/* Feeds more input when zlib has consumed what it had. */
static void inflater_feed(io_inflater *f) {
  if (f->zs.avail_in != 0 || f->in_pos >= f->in_len) return;
  size_t n = f->in_len - f->in_pos;
  if (n > IO_INFLATE_MAX_IN) n = IO_INFLATE_MAX_IN;
  f->zs.next_in = (Bytef *)(uintptr_t)(f->in + f->in_pos);
  f->zs.avail_in = (uInt)n;
  f->in_pos += n;
}

static size_t inflater_remaining(const io_inflater *f) {
  return (f->in_len - f->in_pos) + f->zs.avail_in;
}

/* After a stream end: 1 = another gzip member follows (stream reset),
 * 0 = clean end, <0 = trailing garbage. */
static int inflater_next_member(io_inflater *f, bool gzip_only) {
  size_t rest = inflater_remaining(f);
  const uint8_t *p = f->in + (f->in_len - rest);
  if (rest == 0 || all_zero(p, rest)) return 0;
  if (!gzip_only || rest < 2 || p[0] != 0x1f || p[1] != 0x8b) return -1;
  return inflateReset(&f->zs) == Z_OK ? 1 : -1;
}

/* One inflate call into fresh sink space; returns the zlib code or a WEFT
 * error (negative, below Z_ codes' range is not guaranteed: use *werr). */
static int inflater_step(io_inflater *f, int *zret, base_error *err) {
  int rc = io_sink_reserve(&f->out, IO_INFLATE_CHUNK, f->limits->max_member_bytes);
  if (rc != WEFT_OK) return base_error_set(err, rc, "%s: out of memory", f->what);
  size_t space = f->out.cap - f->out.len - 1;
  if (space > IO_INFLATE_CHUNK) space = IO_INFLATE_CHUNK;
  inflater_feed(f);
  f->zs.next_out = f->out.data + f->out.len;
  f->zs.avail_out = (uInt)space;
  *zret = inflate(&f->zs, Z_NO_FLUSH);
  f->out.len += space - f->zs.avail_out;
  uint64_t consumed = f->in_len - inflater_remaining(f);
  return io_check_limits(f->limits, f->out.len, f->out.len,
                         consumed > 0 ? consumed : 1, f->what, err);
}

/* Runs the whole stream. Returns WEFT_OK, WEFT_ELIMIT/ENOMEM (nothing to
 * yield) or WEFT_EPARSE (partial output to yield as truncated). */
static int inflater_run(io_inflater *f, bool gzip_only, base_error *err) {
  for (;;) {
    int zret = Z_OK;
    int rc = inflater_step(f, &zret, err);
    if (rc != WEFT_OK) return rc;
    if (zret == Z_STREAM_END) {
      int next = inflater_next_member(f, gzip_only);
      if (next == 0) return WEFT_OK;
      if (next < 0) {
        return base_error_set(err, WEFT_EPARSE,
                              "%s: invalid data after end of compressed "
                              "stream (ERR:tp-corrupt)", f->what);
      }
      continue;
    }
    if (zret == Z_BUF_ERROR && inflater_remaining(f) == 0) {
      return base_error_set(err, WEFT_EPARSE,
                            "%s: compressed stream incomplete, trace is likely "
                            "truncated (ERR:tp-corrupt)", f->what);
    }
    if (zret != Z_OK && zret != Z_BUF_ERROR) {
      return base_error_set(err, WEFT_EPARSE,
                            "%s: corrupt compressed data: %s (ERR:tp-corrupt)",
                            f->what, f->zs.msg ? f->zs.msg : "inflate failed");
    }
  }
}

int io_inflate_head(const uint8_t *in, uint64_t in_len, int window_bits, uint8_t *head,
                    size_t want) {
  z_stream z;
  memset(&z, 0, sizeof z);
  z.zalloc = io_zalloc;
  z.zfree = io_zfree;
  if (inflateInit2(&z, window_bits) != Z_OK) return 0;
  z.next_in = (Bytef *)(uintptr_t)in;
  z.avail_in = in_len < UINT_MAX ? (uInt)in_len : UINT_MAX;
  z.next_out = head;
  z.avail_out = (uInt)want;
  int rc = Z_OK;
  while (rc == Z_OK && z.avail_out > 0) rc = inflate(&z, Z_SYNC_FLUSH);
  int ok = z.avail_out == 0 && (rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR);
  inflateEnd(&z);
  return ok;
}

static int inflate_each(const uint8_t *data, size_t len, int window_bits,
                        const char *what, const io_limits *l, io_member_fn fn,
                        void *ctx, base_error *err) {
  io_inflater f;
  memset(&f, 0, sizeof f);
  f.in = data;
  f.in_len = len;
  f.limits = l;
  f.what = what;
  f.zs.zalloc = io_zalloc;
  f.zs.zfree = io_zfree;
  if (inflateInit2(&f.zs, window_bits) != Z_OK) {
    return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", what);
  }
  int rc = inflater_run(&f, window_bits == 16 + MAX_WBITS, err);
  inflateEnd(&f.zs);
  if (rc == WEFT_OK || rc == WEFT_EPARSE) {
    base_error saved = {0};
    if (rc != WEFT_OK && err != NULL) saved = *err;
    int crc = io_yield(&f.out, NULL, 0, rc != WEFT_OK, fn, ctx, err);
    if (crc != WEFT_OK) return crc;
    if (rc != WEFT_OK && err != NULL) *err = saved;
    return rc;
  }
  io_sink_free(&f.out);
  return rc;
}

/* The size a lone gzip member's trailer gives, when it is one the
 * one-call path may read: 0 when zlib's path is to read the stream (too
 * short, no gzip magic, an empty or too large size, past the limits). */
static uint64_t gzip_whole_size(const uint8_t *data, size_t len, const io_limits *l) {
  if (len < 18 || data[0] != 0x1f || data[1] != 0x8b) return 0;
  const uint8_t *t = data + len - 4;
  uint64_t size = (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 |
                  (uint64_t)t[3] << 24;
  base_error unused = {0};
  if (size == 0 || size >= SIZE_MAX - 1 ||
      io_check_limits(l, size, size, len, "gzip stream", &unused) != WEFT_OK)
    return 0;
  return size;
}

int io_gzip_inflate_exact(const uint8_t *in, size_t in_len, uint8_t *out, size_t size) {
  struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
  if (!d) return WEFT_ENOMEM;
  size_t used = 0, got = 0;
  int ok = libdeflate_gzip_decompress_ex(d, in, in_len, out, size, &used, &got) ==
               LIBDEFLATE_SUCCESS &&
           used == in_len && got == size;
  libdeflate_free_decompressor(d);
  return ok ? WEFT_OK : WEFT_EPARSE;
}

/* The one-call path: 1 with the stream's bytes in *out, 0 when zlib's path
 * is to read it (several members, data after the member, a size past
 * 4 GiB or the limits, a damaged stream, no memory): the bytes it would
 * give are the same, as libdeflate checks the trailer's CRC and size. */
static int gzip_inflate_whole(const uint8_t *data, size_t len, const io_limits *l,
                              io_sink *out) {
  uint64_t size = gzip_whole_size(data, len, l);
  uint8_t *buf = size ? base_malloc((size_t)size + 1) : NULL;
  if (!buf || io_gzip_inflate_exact(data, len, buf, (size_t)size) != WEFT_OK) {
    base_free(buf);
    return 0;
  }
  *out = (io_sink){buf, (size_t)size, (size_t)size + 1};
  return 1;
}

int io_gzip_deferred(const uint8_t *data, size_t len, const io_limits *l, io_deflated *out,
                     uint8_t *head, size_t *head_len) {
  uint64_t size = gzip_whole_size(data, len, l);
  size_t want = size < IO_SNIFF_PREFIX_BYTES ? (size_t)size : IO_SNIFF_PREFIX_BYTES;
  if (!size || !io_inflate_head(data, len, 16 + MAX_WBITS, head, want)) return 0;
  *out = (io_deflated){data, len, 0, len, size, 0, 1};
  *head_len = want;
  return 1;
}

/* With IO_EACH_DEFER_INFLATE, a stream the one-call path may read is
 * yielded as io_member.deflated (gzip set): 1 (*rc the callback's status),
 * or 0 to read it now. */
static int gzip_defer(const uint8_t *data, size_t len, const io_limits *l, io_member_fn fn,
                      void *ctx, int *rc, base_error *err) {
  io_deflated d;
  uint8_t head[IO_SNIFF_PREFIX_BYTES];
  size_t want;
  if (!io_gzip_deferred(data, len, l, &d, head, &want)) return 0;
  io_member m = {NULL, NULL, NULL, (size_t)d.size, 0, false, &d, head, want};
  *rc = fn(ctx, &m, err);
  return 1;
}

int io_gzip_each(const uint8_t *data, size_t len, unsigned flags, const io_limits *l,
                 io_member_fn fn, void *ctx, base_error *err) {
  int rc;
  if ((flags & IO_EACH_DEFER_INFLATE) && gzip_defer(data, len, l, fn, ctx, &rc, err)) return rc;
  io_sink whole;
  if (gzip_inflate_whole(data, len, l, &whole)) return io_yield(&whole, NULL, 0, false, fn, ctx, err);
  return inflate_each(data, len, 16 + MAX_WBITS, "gzip stream", l, fn, ctx,
                      err);
}

/* ctrace: "<anything>TRACE:\n" followed by a zlib (or gzip) stream. */
int io_ctrace_each(const uint8_t *data, size_t len, const io_limits *l,
                   io_member_fn fn, void *ctx, base_error *err) {
  static const char marker[] = "TRACE:\n";
  size_t m = sizeof marker - 1;
  for (size_t i = 0; i + m <= len; i++) {
    if (memcmp(data + i, marker, m) == 0) {
      return inflate_each(data + i + m, len - i - m, 32 + MAX_WBITS,
                          "ctrace stream", l, fn, ctx, err);
    }
  }
  return base_error_set(err, WEFT_EPARSE,
                        "ctrace stream: no \"TRACE:\" marker found");
}
