/* io/stored: where a stored (uncompressed) zip or tar member's bytes are in
 * a mapping of its archive, verified before they are used in place (see
 * io_archive_each_file_view in archive.h). */
#include <sys/mman.h>
#include <unistd.h>
#include <libdeflate.h>

#include "io/io_internal.h"

#define ZIP_LOCAL_HEADER 30u
#define ZIP_FLAG_ENCRYPTED 0x0001u
#define ZIP_FLAG_DESCRIPTOR 0x0008u
#define ZIP_FLAG_STRONG 0x0040u
#define TAR_BLOCK 512u

static uint32_t stored_u16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

static uint32_t stored_u32(const uint8_t *p) {
  return stored_u16(p) | stored_u16(p + 2) << 16;
}

/* The local header that ends exactly at data_off (nearest first), or -1. */
static int64_t stored_zip_header(const uint8_t *map, uint64_t data_off) {
  if (data_off < ZIP_LOCAL_HEADER) return -1;
  uint64_t lowest = data_off > ZIP_LOCAL_HEADER + 2u * 65535u
                        ? data_off - ZIP_LOCAL_HEADER - 2u * 65535u : 0;
  for (uint64_t h = data_off - ZIP_LOCAL_HEADER + 1; h-- > lowest;) {
    const uint8_t *p = map + h;
    if (p[0] != 'P' || p[1] != 'K' || p[2] != 3 || p[3] != 4) continue;
    if (h + ZIP_LOCAL_HEADER + stored_u16(p + 26) + stored_u16(p + 28) == data_off)
      return (int64_t)h;
  }
  return -1;
}

/* The zip CRC-32 of n bytes (libdeflate's is zlib's, computed faster). */
static uint32_t stored_crc32(const uint8_t *p, uint64_t n) {
  return libdeflate_crc32(0, p, (size_t)n);
}

/* The local header ending at data_off if it is for `name`, neither
 * encrypted nor followed by a data descriptor, with `method` and the
 * uncompressed size `size`; NULL otherwise. */
static const uint8_t *stored_zip_local(const uint8_t *map, uint64_t map_len,
                                       uint64_t data_off, const char *name, uint64_t size,
                                       uint32_t method) {
  if (size == 0 || data_off > map_len) return NULL;
  int64_t h = stored_zip_header(map, data_off);
  if (h < 0) return NULL;
  const uint8_t *p = map + h;
  uint32_t flags = stored_u16(p + 6), n = stored_u16(p + 26);
  if (flags & (ZIP_FLAG_ENCRYPTED | ZIP_FLAG_DESCRIPTOR | ZIP_FLAG_STRONG)) return NULL;
  if (stored_u16(p + 8) != method || stored_u32(p + 22) != size) return NULL;
  if (!name || strlen(name) != n || memcmp(p + ZIP_LOCAL_HEADER, name, n) != 0)
    return NULL;
  return p;
}

static uintptr_t stored_page_size(void) {
  long ps = sysconf(_SC_PAGESIZE);
  return ps > 0 ? (uintptr_t)ps : 4096;
}

/* Gives back the whole pages inside [data, data + len) of the mapping. */
static void stored_give_back(const uint8_t *data, uint64_t len) {
  uintptr_t page = stored_page_size();
  uintptr_t a = ((uintptr_t)data + page - 1) & ~(page - 1);
  uintptr_t b = ((uintptr_t)data + (uintptr_t)len) & ~(page - 1);
  if (a < b) madvise((void *)a, b - a, MADV_DONTNEED);
}

/* The CRC-32 of n mapped bytes, giving back the whole pages of each
 * window (aligned in the address space) once it is summed. */
#define STORED_CRC_WINDOW ((uintptr_t)4 << 20)

static uint32_t stored_crc32_giving_back(const uint8_t *p, uint64_t n) {
  uint32_t crc = 0;
  while (n) {
    uintptr_t next = ((uintptr_t)p | (STORED_CRC_WINDOW - 1)) + 1;
    uint64_t take = next - (uintptr_t)p < n ? next - (uintptr_t)p : n;
    crc = libdeflate_crc32(crc, p, (size_t)take);
    stored_give_back(p, take);
    p += take;
    n -= take;
  }
  return crc;
}

const uint8_t *io_stored_zip(const uint8_t *map, uint64_t map_len, uint64_t data_off,
                             const char *name, uint64_t size) {
  const uint8_t *p = stored_zip_local(map, map_len, data_off, name, size, 0);
  if (!p || size > map_len - data_off || stored_u32(p + 18) != size) return NULL;
  if (stored_crc32_giving_back(map + data_off, size) != stored_u32(p + 14)) return NULL;
  return map + data_off;
}

const uint8_t *io_deflated_zip(const uint8_t *map, uint64_t map_len, uint64_t data_off,
                               const char *name, uint64_t size, uint64_t *compressed,
                               uint32_t *crc) {
  const uint8_t *p = stored_zip_local(map, map_len, data_off, name, size, 8);
  if (!p) return NULL;
  uint64_t n = stored_u32(p + 18);
  if (n == 0 || n > map_len - data_off) return NULL;
  *compressed = n;
  *crc = stored_u32(p + 14);
  return map + data_off;
}

int io_inflate_exact(struct libdeflate_decompressor *d, const uint8_t *in, size_t in_len,
                     uint8_t *out, size_t size, uint32_t crc) {
  size_t got = 0;
  if (libdeflate_deflate_decompress(d, in, in_len, out, size, &got) != LIBDEFLATE_SUCCESS)
    return -1;
  return got == size && stored_crc32(out, size) == crc ? 0 : -1;
}

int io_deflated_inflate_into(const io_deflated *d, uint8_t *out) {
  if (d->size >= SIZE_MAX || d->compressed > SIZE_MAX) return WEFT_EPARSE;
  if (d->gzip) return io_gzip_inflate_exact(d->map + d->at, (size_t)d->compressed, out,
                                            (size_t)d->size);
  struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
  if (!inflater) return WEFT_ENOMEM;
  int ok = io_inflate_exact(inflater, d->map + d->at, (size_t)d->compressed, out,
                            (size_t)d->size, d->crc) == 0;
  libdeflate_free_decompressor(inflater);
  io_stored_window_done(d->map, d->map_len, d->at, d->at + d->compressed);
  return ok ? WEFT_OK : WEFT_EPARSE;
}

int io_deflated_inflate(const io_deflated *d, uint8_t **out) {
  *out = NULL;
  if (d->size >= SIZE_MAX || d->compressed > SIZE_MAX) return WEFT_EPARSE;
  uint8_t *buf = base_malloc((size_t)d->size + 1);
  if (!buf) return WEFT_ENOMEM;
  int rc = io_deflated_inflate_into(d, buf);
  if (rc) {
    base_free(buf);
    return rc;
  }
  buf[d->size] = 0;
  *out = buf;
  return WEFT_OK;
}

/* An octal tar number field (NUL/space padded); -1 if it is not one. */
static int64_t stored_tar_octal(const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n && p[i] == ' ') i++;
  uint64_t v = 0;
  size_t digits = 0;
  for (; i < n && p[i] >= '0' && p[i] <= '7'; i++, digits++) {
    if (v >> 60) return -1;
    v = v << 3 | (uint64_t)(p[i] - '0');
  }
  for (; i < n; i++)
    if (p[i] != ' ' && p[i] != 0) return -1;
  return digits ? (int64_t)v : -1;
}

const uint8_t *io_stored_tar(const uint8_t *map, uint64_t map_len, uint64_t data_off,
                             uint64_t size) {
  if (size == 0 || data_off < TAR_BLOCK || data_off % TAR_BLOCK != 0 ||
      data_off > map_len || size > map_len - data_off)
    return NULL;
  const uint8_t *p = map + data_off - TAR_BLOCK;
  if (p[156] != '0' && p[156] != 0 && p[156] != '7') return NULL; /* regular file */
  if (stored_tar_octal(p + 124, 12) != (int64_t)size) return NULL;
  uint64_t sum = 0;
  for (size_t i = 0; i < TAR_BLOCK; i++) sum += (i >= 148 && i < 156) ? ' ' : p[i];
  if (stored_tar_octal(p + 148, 8) != (int64_t)sum) return NULL;
  stored_give_back(map + data_off, size);
  return map + data_off;
}

#define STORED_FOLIO_MAX ((uint64_t)2 << 20)

void io_stored_window_done(const uint8_t *map, uint64_t map_len, uint64_t lo, uint64_t hi) {
  if (!map || lo >= hi || lo >= map_len) return;
  if (hi > map_len) hi = map_len;
  uint64_t base = (uint64_t)(uintptr_t)map, page = stored_page_size();
  uint64_t a = (base + lo) & ~(STORED_FOLIO_MAX - 1);
  uint64_t b = (base + hi + STORED_FOLIO_MAX - 1) & ~(STORED_FOLIO_MAX - 1);
  uint64_t start = base & ~(page - 1), end = (base + map_len + page - 1) & ~(page - 1);
  if (a < start) a = start;
  if (b > end) b = end;
  if (a < b) madvise((void *)(uintptr_t)a, (size_t)(b - a), MADV_DONTNEED);
}

void io_stored_header_done(const uint8_t *map, uint64_t map_len, uint64_t data_off) {
  uint64_t header_max = ZIP_LOCAL_HEADER + 2u * 65535u; /* >= a tar block */
  io_stored_window_done(map, map_len, data_off > header_max ? data_off - header_max : 0,
                        data_off + 1);
}
