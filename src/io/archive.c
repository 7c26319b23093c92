/* io/archive: zip, tar and zstd via libarchive reading from memory or from a
 * file (stored members of a mapped file in place); dispatch of
 * io_archive_each (see archive.h). */
#include <archive.h>
#include <archive_entry.h>
#include <libdeflate.h>
#include <limits.h>
#include <zlib.h>

#include "io/io_internal.h"

#define IO_READ_CHUNK ((size_t)1 << 16)
#define IO_PRESIZE_MAX ((uint64_t)16 << 20)

typedef struct io_walk {
  struct archive *a;
  const char *kind; /* "zip", "tar", "zstd" */
  io_trace_type type;
  size_t in_len;
  const uint8_t *view; /* the archive file mapped whole, or NULL */
  const io_limits *limits;
  uint64_t total_out; /* decompressed bytes over all members */
  struct libdeflate_decompressor *inflater; /* for walk_inflate, or NULL */
  unsigned flags;     /* IO_EACH_* */
  int64_t only;       /* >= 0: yield only the entry of this index */
  io_member_fn fn;
  void *ctx;
} io_walk;

static const char *arc_msg(struct archive *a) {
  const char *m = archive_error_string(a);
  return m ? m : "unknown libarchive error";
}

/* Opens the walk over a memory buffer, or over the file at `path` (read in
 * blocks as the walk goes) when path is set. */
static int walk_open(io_walk *w, io_trace_type type, const uint8_t *data,
                     size_t len, const char *path, base_error *err) {
  w->a = archive_read_new();
  if (w->a == NULL) return base_error_nomem(err);
  int r = ARCHIVE_OK;
  if (type == IO_TRACE_ZIP) {
    r = archive_read_support_format_zip(w->a);
  } else if (type == IO_TRACE_TAR) {
    r = archive_read_support_format_tar(w->a);
  } else {
    r = archive_read_support_filter_zstd(w->a);
    if (r == ARCHIVE_OK) r = archive_read_support_format_raw(w->a);
  }
  if (r != ARCHIVE_OK) {
    return base_error_set(err, WEFT_EUNSUPPORTED, "%s: not supported by this "
                          "libarchive: %s", w->kind, arc_msg(w->a));
  }
  int opened = path ? archive_read_open_filename(w->a, path, IO_READ_CHUNK)
                    : archive_read_open_memory(w->a, data, len);
  if (opened != ARCHIVE_OK) {
    return base_error_set(err, WEFT_EPARSE, "%s: not a valid archive: %s",
                          w->kind, arc_msg(w->a));
  }
  return WEFT_OK;
}

static const char *entry_name(struct archive_entry *e) {
  const char *n = archive_entry_pathname(e);
  if (n == NULL) n = archive_entry_pathname_utf8(e);
  return n ? n : "";
}

static bool entry_skipped(struct archive_entry *e, const char *name) {
  mode_t ft = archive_entry_filetype(e);
  if (ft != 0 && ft != AE_IFREG) return true;
  size_t n = strlen(name);
  if (n > 0 && name[n - 1] == '/') return true;
  return io_is_hidden_path(name);
}

/* Reads the current entry's data into out, enforcing limits. */
static int walk_read_data(io_walk *w, struct archive_entry *e, io_sink *out,
                          const char *what, base_error *err) {
  const io_limits *l = w->limits;
  if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0) {
    uint64_t declared = (uint64_t)archive_entry_size(e);
    int rc = io_check_limits(l, declared, 0, w->in_len, what, err);
    if (rc != WEFT_OK) return rc;
    uint64_t pre = declared < IO_PRESIZE_MAX ? declared : IO_PRESIZE_MAX;
    if (io_sink_reserve(out, (size_t)pre, l->max_member_bytes) != WEFT_OK)
      return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", what);
  }
  for (;;) {
    size_t space = out->cap > out->len + 1 ? out->cap - out->len - 1 : 0;
    la_ssize_t n;
    if (space == 0) {
      /* Full, typically at exactly the declared size: probe for more data
       * before growing, so a member costs its size and no slack. */
      uint8_t probe[512];
      n = archive_read_data(w->a, probe, sizeof probe);
      if (n > 0 && io_sink_reserve(out, IO_READ_CHUNK, l->max_member_bytes) != WEFT_OK)
        return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", what);
      if (n > 0) {
        size_t room = out->cap - out->len - 1;
        if ((size_t)n > room) n = (la_ssize_t)room; /* at the hard limit */
        memcpy(out->data + out->len, probe, (size_t)n);
      }
    } else {
      n = archive_read_data(w->a, out->data + out->len, space);
    }
    if (n < 0) {
      return base_error_set(err, WEFT_EPARSE, "%s: truncated or corrupt data: "
                            "%s", what, arc_msg(w->a));
    }
    if (n == 0) return WEFT_OK;
    out->len += (size_t)n;
    w->total_out += (uint64_t)n;
    int rc = io_check_limits(l, out->len, w->total_out, w->in_len, what, err);
    if (rc != WEFT_OK) return rc;
  }
}

/* One header: 1 = entry ready, 0 = end of archive, <0 = error. */
static int walk_next(io_walk *w, uint32_t count, struct archive_entry **e,
                     base_error *err) {
  int r = archive_read_next_header(w->a, e);
  if (r == ARCHIVE_EOF) return 0;
  if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
    return base_error_set(err, WEFT_EPARSE,
                          "%s: truncated or corrupt archive after %u entries: "
                          "%s", w->kind, count, arc_msg(w->a));
  }
  if (count >= w->limits->max_members) {
    return base_error_set(err, WEFT_ELIMIT,
                          "%s: archive has more than %u members (limit)",
                          w->kind, w->limits->max_members);
  }
  return 1;
}

/* 1 if the member's data may be read from the mapping: sets *at (where it
 * starts in the archive) and *size (the entry's, not 0). */
static int walk_mapped_data(io_walk *w, struct archive_entry *e, uint64_t *at,
                            uint64_t *size) {
  if (!w->view || archive_filter_count(w->a) != 1 || !archive_entry_size_is_set(e) ||
      archive_entry_size(e) <= 0 || archive_entry_sparse_count(e) > 0)
    return 0;
  la_int64_t start = archive_filter_bytes(w->a, 0);
  if (start < 0) return 0;
  *at = (uint64_t)start;
  *size = (uint64_t)archive_entry_size(e);
  return 1;
}

/* A stored member's bytes in the mapping, verified; NULL: read them. */
static const uint8_t *walk_view(io_walk *w, struct archive_entry *e, const char *name) {
  uint64_t at, size;
  if (!walk_mapped_data(w, e, &at, &size)) return NULL;
  const uint8_t *view = w->type == IO_TRACE_ZIP
                            ? io_stored_zip(w->view, w->in_len, at, name, size)
                            : io_stored_tar(w->view, w->in_len, at, size);
  io_stored_header_done(w->view, w->in_len, at);
  return view;
}

/* Yields a stored member in place, under the same limits as a copy. */
static int walk_yield_view(io_walk *w, const uint8_t *view, size_t len,
                           const char *name, uint32_t index, const char *what,
                           base_error *err) {
  w->total_out += len;
  int rc = io_check_limits(w->limits, len, w->total_out, w->in_len, what, err);
  if (rc != WEFT_OK) return rc;
  io_member m = {name, NULL, view, len, index, false, NULL, NULL, 0};
  return w->fn(w->ctx, &m, err);
}

/* A deflated zip member inflated straight from the archive's mapping with
 * libdeflate (several times faster than libarchive's zlib stream, and no
 * copy through its buffers), when its local header checks out
 * (io_deflated_zip) and it fits the limits: 1 with *out filled, 0 when it
 * must be read through libarchive instead, which then also reports a
 * corrupt stream or a limit in its usual words. */
static int walk_inflate(io_walk *w, struct archive_entry *e, const char *name,
                        const char *what, io_sink *out) {
  uint64_t at, size, compressed = 0;
  uint32_t crc = 0;
  if (w->type != IO_TRACE_ZIP || !walk_mapped_data(w, e, &at, &size)) return 0;
  const uint8_t *in = io_deflated_zip(w->view, w->in_len, at, name, size, &compressed, &crc);
  if (!in || size >= SIZE_MAX ||
      io_check_limits(w->limits, size, w->total_out + size, w->in_len, what, NULL) != WEFT_OK)
    return 0;
  if (!w->inflater && !(w->inflater = libdeflate_alloc_decompressor())) return 0;
  if (io_sink_reserve(out, (size_t)size, w->limits->max_member_bytes) != WEFT_OK) return 0;
  int ok = io_inflate_exact(w->inflater, in, (size_t)compressed, out->data, (size_t)size,
                            crc) == 0;
  /* Read once: the header's and the compressed bytes' pages go back. */
  io_stored_header_done(w->view, w->in_len, at);
  io_stored_window_done(w->view, w->in_len, at, at + compressed);
  if (!ok) {
    io_sink_free(out);
    return 0;
  }
  out->len = (size_t)size;
  w->total_out += size;
  return 1;
}

/* With IO_EACH_DEFER_INFLATE, a deflated member that walk_inflate would
 * inflate is yielded as io_member.deflated instead: 1 (*rc the callback's
 * status), or 0 to read it as usual. */
static int walk_defer(io_walk *w, struct archive_entry *e, const char *name,
                      uint32_t index, const char *what, int *rc, base_error *err) {
  uint64_t at, size, compressed = 0;
  uint32_t crc = 0;
  if (!(w->flags & IO_EACH_DEFER_INFLATE) || w->type != IO_TRACE_ZIP ||
      !walk_mapped_data(w, e, &at, &size))
    return 0;
  const uint8_t *in = io_deflated_zip(w->view, w->in_len, at, name, size, &compressed, &crc);
  if (!in || size >= SIZE_MAX ||
      io_check_limits(w->limits, size, w->total_out + size, w->in_len, what, NULL) != WEFT_OK)
    return 0;
  uint8_t head[IO_SNIFF_PREFIX_BYTES];
  size_t want = size < sizeof head ? (size_t)size : sizeof head;
  int ok = io_inflate_head(in, compressed, -15, head, want);
  io_stored_header_done(w->view, w->in_len, at);
  if (!ok) return 0;
  w->total_out += size;
  io_deflated d = {w->view, w->in_len, at, compressed, size, crc, 0};
  io_member m = {name, NULL, NULL, (size_t)size, index, false, &d, head, want};
  *rc = w->fn(w->ctx, &m, err);
  return 1;
}

static int walk_entry(io_walk *w, struct archive_entry *e, uint32_t index,
                      bool stream, base_error *err) {
  const char *name = stream ? NULL : entry_name(e);
  if (!stream && entry_skipped(e, name)) return WEFT_OK;
  char what[256];
  io_describe(what, sizeof what, w->kind, name);
  const uint8_t *view = stream ? NULL : walk_view(w, e, name);
  if (view)
    return walk_yield_view(w, view, (size_t)archive_entry_size(e), name, index, what, err);
  int rc;
  if (!stream && walk_defer(w, e, name, index, what, &rc, err)) return rc;
  io_sink out = {0};
  if (!stream && walk_inflate(w, e, name, what, &out))
    return io_yield(&out, name, index, false, w->fn, w->ctx, err);
  rc = walk_read_data(w, e, &out, what, err);
  if (rc == WEFT_EPARSE && stream) {
    base_error saved = {0};
    if (err != NULL) saved = *err;
    int crc = io_yield(&out, NULL, index, true, w->fn, w->ctx, err);
    if (crc != WEFT_OK) return crc;
    if (err != NULL) *err = saved;
    return rc;
  }
  if (rc != WEFT_OK) {
    io_sink_free(&out);
    return rc;
  }
  return io_yield(&out, name, index, false, w->fn, w->ctx, err);
}

static int walk_all(io_walk *w, bool stream, base_error *err) {
  for (uint32_t index = 0;; index++) {
    struct archive_entry *e = NULL;
    int rc = walk_next(w, index, &e, err);
    if (rc == 0 && w->only >= 0)
      return base_error_set(err, WEFT_EPARSE, "%s: no member number %lld", w->kind,
                            (long long)w->only);
    if (rc <= 0) return rc;
    if (w->only >= 0 && index != w->only) continue;
    rc = walk_entry(w, e, index, stream, err);
    if (rc != WEFT_OK) return rc;
    if (stream || w->only >= 0) return WEFT_OK;
  }
}

static int libarchive_each(io_trace_type type, const uint8_t *data,
                           size_t len, const char *path, const uint8_t *view,
                           unsigned flags, int64_t only, const io_limits *l,
                           io_member_fn fn, void *ctx, base_error *err) {
  io_walk w = {0};
  w.kind = io_trace_type_name(type);
  w.type = type;
  w.view = path ? view : NULL;
  w.in_len = len;
  w.limits = l;
  w.flags = flags;
  w.only = only;
  w.fn = fn;
  w.ctx = ctx;
  int rc = walk_open(&w, type, data, len, path, err);
  if (rc == WEFT_OK) rc = walk_all(&w, type == IO_TRACE_ZSTD, err);
  if (w.a != NULL) archive_read_free(w.a);
  libdeflate_free_decompressor(w.inflater);
  return rc;
}

int io_archive_each(io_trace_type type, const uint8_t *data, size_t len, unsigned flags,
                    const io_limits *limits, io_member_fn fn, void *ctx,
                    base_error *err) {
  if ((data == NULL && len != 0) || limits == NULL || fn == NULL) {
    return base_error_set(err, WEFT_EINVAL, "io_archive_each: bad arguments");
  }
  static const uint8_t empty[1] = {0};
  if (data == NULL) data = empty;
  switch (type) {
    case IO_TRACE_GZIP:
      return io_gzip_each(data, len, flags, limits, fn, ctx, err);
    case IO_TRACE_CTRACE:
      return io_ctrace_each(data, len, limits, fn, ctx, err);
    case IO_TRACE_ZIP:
    case IO_TRACE_TAR:
    case IO_TRACE_ZSTD:
      return libarchive_each(type, data, len, NULL, NULL, 0, -1, limits, fn, ctx, err);
    default:
      return base_error_set(err, WEFT_EINVAL, "%s is not a container type",
                            io_trace_type_name(type));
  }
}

int io_archive_each_file(io_trace_type type, const char *path, uint64_t size,
                         const io_limits *limits, io_member_fn fn, void *ctx,
                         base_error *err) {
  return io_archive_each_file_view(type, path, NULL, size, 0, limits, fn, ctx, err);
}

int io_archive_member_file(io_trace_type type, const char *path, uint64_t size,
                           uint32_t index, const io_limits *limits, io_member_fn fn,
                           void *ctx, base_error *err) {
  if (path == NULL || limits == NULL || fn == NULL || size > SIZE_MAX ||
      !io_archive_streams_from_file(type))
    return base_error_set(err, WEFT_EINVAL, "io_archive_member_file: bad arguments");
  return libarchive_each(type, NULL, (size_t)size, path, NULL, 0, index, limits, fn, ctx,
                         err);
}

int io_archive_each_file_view(io_trace_type type, const char *path,
                              const uint8_t *view, uint64_t size, unsigned flags,
                              const io_limits *limits, io_member_fn fn, void *ctx,
                              base_error *err) {
  if (path == NULL || limits == NULL || fn == NULL || size > SIZE_MAX)
    return base_error_set(err, WEFT_EINVAL, "io_archive_each_file: bad arguments");
  if (!io_archive_streams_from_file(type))
    return base_error_set(err, WEFT_EINVAL, "%s is not read from files",
                          io_trace_type_name(type));
  return libarchive_each(type, NULL, (size_t)size, path, view, flags, -1, limits, fn, ctx,
                         err);
}

bool io_archive_streams_from_file(io_trace_type type) {
  return type == IO_TRACE_ZIP || type == IO_TRACE_TAR;
}
