/* io/stored: finding stored zip/tar members in place (and giving their
 * pages back as their CRC is checked); io/archive: deflated zip members
 * inflated in place or deferred, gzip members. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <libdeflate.h>

#include "base/base.h"
#include "check.h"
#include "core/input.h"
#include "import/importer.h"
#include "io/io_internal.h"

#include "input_pages.h"

/* ---- io/stored ---- */

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }

/* A zip local header for `name` followed by `data`; returns the data
 * offset. extra_len bytes of extra field. */
static size_t zip_member(uint8_t *out, const char *name, const char *data, uint32_t method,
                         uint32_t flags, uint32_t extra_len) {
  size_t n = strlen(name), len = strlen(data);
  memset(out, 0, 30);
  put32(out, 0x04034b50);
  put16(out + 6, flags);
  put16(out + 8, method);
  put32(out + 14, (uint32_t)crc32(0, (const Bytef *)data, (uInt)len));
  put32(out + 18, (uint32_t)len);
  put32(out + 22, (uint32_t)len);
  put16(out + 26, (uint32_t)n);
  put16(out + 28, extra_len);
  memcpy(out + 30, name, n);
  memset(out + 30 + n, 'E', extra_len);
  memcpy(out + 30 + n + extra_len, data, len);
  return 30 + n + extra_len;
}

static void test_stored_zip(void) {
  uint8_t buf[512];
  const char *data = "{\"traceEvents\":[]}";
  size_t size = strlen(data);
  size_t at = zip_member(buf, "a.json", data, 0, 0, 7);
  size_t total = at + size;
  CHECK(io_stored_zip(buf, total, at, "a.json", size) == buf + at);
  CHECK(io_stored_zip(buf, total, at, "b.json", size) == NULL); /* name */
  CHECK(io_stored_zip(buf, total, at, "a.json", size - 1) == NULL); /* size */
  CHECK(io_stored_zip(buf, total, at - 1, "a.json", size) == NULL); /* offset */
  CHECK(io_stored_zip(buf, total - 1, at, "a.json", size) == NULL); /* past the map */
  CHECK(io_stored_zip(buf, total, at, "a.json", 0) == NULL);
  buf[at + 3] ^= 1; /* CRC mismatch: left to libarchive */
  CHECK(io_stored_zip(buf, total, at, "a.json", size) == NULL);
  at = zip_member(buf, "a.json", data, 8, 0, 0);
  CHECK(io_stored_zip(buf, at + size, at, "a.json", size) == NULL); /* deflated */
  at = zip_member(buf, "a.json", data, 0, 0x0008, 0);
  CHECK(io_stored_zip(buf, at + size, at, "a.json", size) == NULL); /* descriptor */
  at = zip_member(buf, "a.json", data, 0, 0x0001, 0);
  CHECK(io_stored_zip(buf, at + size, at, "a.json", size) == NULL); /* encrypted */
  /* A second member right after the first: found by its own header. */
  size_t at1 = zip_member(buf, "a.json", data, 0, 0, 0);
  size_t at2 = at1 + size + zip_member(buf + at1 + size, "bb", "xyz", 0, 0, 3);
  CHECK(io_stored_zip(buf, at2 + 3, at2, "bb", 3) == buf + at2);
  CHECK(io_stored_zip(buf, at2 + 3, at1, "a.json", size) == buf + at1);
}

/* A large stored member's CRC check gives its pages back as it goes: every
 * whole page of the data is given back (so the member is never resident all
 * at once), the header's page and the partial page at the data's end stay. */
static void test_stored_zip_gives_back(void) {
  const size_t pages = ((size_t)10 << 20) / page;
  uint8_t *arena = arena_new(pages);
  CHECK(arena != NULL);
  if (!arena) return;
  const size_t at = 30 + 1, size = (pages - 1) * page + 100 - at; /* ends in the last page */
  for (size_t i = 0; i < size; i++) arena[at + i] = (uint8_t)(i * 2654435761u >> 13);
  memset(arena, 0, 30);
  put32(arena, 0x04034b50);
  put32(arena + 14, (uint32_t)crc32(0, arena + at, (uInt)size));
  put32(arena + 18, (uint32_t)size);
  put32(arena + 22, (uint32_t)size);
  put16(arena + 26, 1);
  arena[30] = 'm';
  CHECK(io_stored_zip(arena, at + size, at, "m", size) == arena + at);
  size_t given = 0;
  for (size_t i = 1; i + 1 < pages; i++) given += page_given(arena, i);
  CHECK_EQ_INT(given, pages - 2);
  CHECK(!page_given(arena, 0));
  CHECK(!page_given(arena, pages - 1));
  munmap(arena, pages * page);
}

/* Raw deflate of n bytes into out (cap bytes); returns the length. */
static size_t raw_deflate(const uint8_t *in, size_t n, uint8_t *out, size_t cap) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)n;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  int rc = deflate(&z, Z_FINISH);
  size_t len = rc == Z_STREAM_END ? z.total_out : 0;
  deflateEnd(&z);
  return len;
}

/* A deflated member's local header: method 8, sizes and CRC of `plain`. */
static size_t zip_deflated_member(uint8_t *out, const char *name, const uint8_t *plain,
                                  size_t n, size_t cap) {
  size_t name_len = strlen(name);
  size_t comp = raw_deflate(plain, n, out + 30 + name_len, cap - 30 - name_len);
  memset(out, 0, 30);
  put32(out, 0x04034b50);
  put16(out + 8, 8);
  put32(out + 14, (uint32_t)crc32(0, plain, (uInt)n));
  put32(out + 18, (uint32_t)comp);
  put32(out + 22, (uint32_t)n);
  put16(out + 26, (uint32_t)name_len);
  memcpy(out + 30, name, name_len);
  return 30 + name_len + comp;
}

static void test_deflated_zip_in_place(void) {
  static uint8_t plain[20000], zip[30000], out[20000];
  for (size_t i = 0; i < sizeof plain; i++) plain[i] = (uint8_t)("trace "[i % 6] + (i >> 10));
  size_t total = zip_deflated_member(zip, "a.json", plain, sizeof plain, sizeof zip);
  size_t at = 30 + 6, size = sizeof plain;
  uint64_t comp = 0;
  uint32_t crc = 0;
  const uint8_t *in = io_deflated_zip(zip, total, at, "a.json", size, &comp, &crc);
  CHECK(in == zip + at);
  CHECK_EQ_INT(comp, total - at);
  CHECK_EQ_INT(crc, crc32(0, plain, (uInt)size));
  struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
  CHECK(d != NULL);
  CHECK_EQ_INT(io_inflate_exact(d, in, (size_t)comp, out, size, crc), 0);
  CHECK(memcmp(out, plain, size) == 0);
  /* Wrong CRC, a size one short or long, a truncated or corrupt stream. */
  CHECK_EQ_INT(io_inflate_exact(d, in, (size_t)comp, out, size, crc ^ 1), -1);
  CHECK_EQ_INT(io_inflate_exact(d, in, (size_t)comp, out, size - 1, crc), -1);
  static uint8_t big[20001];
  CHECK_EQ_INT(io_inflate_exact(d, in, (size_t)comp, big, size + 1, crc), -1);
  CHECK_EQ_INT(io_inflate_exact(d, in, (size_t)comp / 2, out, size, crc), -1);
  zip[at + comp / 2] ^= 0x55;
  CHECK_EQ_INT(io_inflate_exact(d, in, (size_t)comp, out, size, crc), -1);
  libdeflate_free_decompressor(d);
  /* The header must check out, as for a stored member. */
  CHECK(io_deflated_zip(zip, total, at, "b.json", size, &comp, &crc) == NULL);
  CHECK(io_deflated_zip(zip, total, at, "a.json", size + 1, &comp, &crc) == NULL);
  CHECK(io_deflated_zip(zip, total - 1, at, "a.json", size, &comp, &crc) == NULL);
  CHECK(io_stored_zip(zip, total, at, "a.json", size) == NULL); /* not stored */
  put16(zip + 6, 0x0008); /* a data descriptor: sizes may be zero */
  CHECK(io_deflated_zip(zip, total, at, "a.json", size, &comp, &crc) == NULL);
  put16(zip + 6, 0);
  put16(zip + 8, 0); /* stored */
  CHECK(io_deflated_zip(zip, total, at, "a.json", size, &comp, &crc) == NULL);
  put16(zip + 8, 8);
  put32(zip + 18, 0); /* no compressed bytes */
  CHECK(io_deflated_zip(zip, total, at, "a.json", size, &comp, &crc) == NULL);
}

static void tar_header(uint8_t *h, const char *name, size_t size, char type) {
  memset(h, 0, 512);
  memcpy(h, name, strlen(name));
  memcpy(h + 100, "0000644", 7);
  snprintf((char *)h + 124, 12, "%011zo", size);
  h[156] = (uint8_t)type;
  memcpy(h + 257, "ustar", 6);
  memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (size_t i = 0; i < 512; i++) sum += h[i];
  snprintf((char *)h + 148, 8, "%06o", sum);
}

static void test_stored_tar(void) {
  static uint8_t buf[2048];
  tar_header(buf, "a.txt", 11, '0');
  memcpy(buf + 512, "hello world", 11);
  CHECK(io_stored_tar(buf, sizeof buf, 512, 11) == buf + 512);
  CHECK(io_stored_tar(buf, sizeof buf, 512, 12) == NULL);   /* size */
  CHECK(io_stored_tar(buf, sizeof buf, 511, 11) == NULL);   /* unaligned */
  CHECK(io_stored_tar(buf, sizeof buf, 0, 11) == NULL);     /* no header */
  CHECK(io_stored_tar(buf, 520, 512, 11) == NULL);          /* past the map */
  buf[10] ^= 1;                                            /* checksum */
  CHECK(io_stored_tar(buf, sizeof buf, 512, 11) == NULL);
  tar_header(buf, "d", 11, '5');
  CHECK(io_stored_tar(buf, sizeof buf, 512, 11) == NULL);   /* not a file */
}

/* The header check's window: the 2 MiB-aligned blocks from the farthest a
 * zip header can start before data_off to data_off, clipped to the mapping
 * [m, m + len) inside a larger arena whose other pages stay. */
static void test_stored_header_done(void) {
  const size_t mib2 = (size_t)2 << 20, pages = (5 * mib2) / page;
  uint8_t *arena = arena_new(pages);
  CHECK(arena != NULL);
  if (!arena) return;
  /* The mapping starts one page in and ends one page early. */
  uint8_t *m = arena + page;
  size_t len = (pages - 2) * page;
  uintptr_t a0 = (uintptr_t)arena;
  /* data_off in the middle of the third 2 MiB block of the address space. */
  uintptr_t block = ((a0 + 2 * mib2) & ~(uintptr_t)(mib2 - 1));
  uint64_t data_off = (uint64_t)(block + mib2 / 2 - (uintptr_t)m);
  io_stored_header_done(m, len, data_off);
  size_t first = (block - a0) / page, last = (block + mib2 - a0) / page; /* [first, last) */
  size_t kept = 0, given = 0;
  for (size_t i = 0; i < pages; i++) {
    int in = i >= first && i < last;
    if (in) given += page_given(arena, i);
    else kept += !page_given(arena, i);
  }
  CHECK_EQ_INT(given, last - first);
  CHECK_EQ_INT(kept, pages - (last - first));
  /* A header just past a block boundary before data_off: both blocks. */
  memset(arena, 0xAB, pages * page);
  data_off = (uint64_t)(block + 100 - (uintptr_t)m);
  io_stored_header_done(m, len, data_off);
  CHECK(page_given(arena, (block - mib2 - a0) / page));
  CHECK(page_given(arena, (block - a0) / page));
  CHECK(!page_given(arena, (block + mib2 - a0) / page));
  /* Near the ends: clipped to the mapping, never its neighbours. */
  memset(arena, 0xAB, pages * page);
  io_stored_header_done(m, len, 0);
  io_stored_header_done(m, len, len);
  io_stored_header_done(m, len, len + 1); /* out of range: nothing */
  CHECK(!page_given(arena, 0));
  CHECK(!page_given(arena, pages - 1));
  CHECK(page_given(arena, 1));
  CHECK(page_given(arena, pages - 2));
  munmap(arena, pages * page);
}

/* Member i of the deferral tests: `len` bytes that compress. */
static uint8_t *deferral_member(int i, size_t len) {
  uint8_t *p = malloc(len ? len : 1);
  for (size_t k = 0; p && k < len; k++) p[k] = (uint8_t)("{\"a\":1}\n"[k % 8] + (k / 5000) + i);
  return p;
}

static const size_t deferral_lens[3] = {100000, 10, 4096};
static const char *const deferral_names[3] = {"big.json", "tiny.json", "edge.json"};

/* A zip of the three members, deflated, at path: local headers with
 * their sizes (no data descriptors), a central directory and its end. */
static int deferral_zip(const char *path) {
  static uint8_t zip[300000];
  uint8_t *central = malloc(3 * (46 + 16) + 22);
  size_t at = 0, cd = 0;
  for (int i = 0; central && i < 3; i++) {
    uint8_t *data = deferral_member(i, deferral_lens[i]);
    size_t name_len = strlen(deferral_names[i]), offset = at;
    if (!data) break;
    at += zip_deflated_member(zip + at, deferral_names[i], data, deferral_lens[i],
                              sizeof zip - at);
    free(data);
    uint8_t *c = central + cd;
    memset(c, 0, 46);
    put32(c, 0x02014b50);
    put16(c + 4, 20);
    put16(c + 6, 20);
    memcpy(c + 10, zip + offset + 8, 18); /* method .. sizes, as in the local header */
    put16(c + 28, (uint32_t)name_len);
    put32(c + 42, (uint32_t)offset);
    memcpy(c + 46, deferral_names[i], name_len);
    cd += 46 + name_len;
  }
  if (!central) return 0;
  uint8_t *end = central + cd;
  memset(end, 0, 22);
  put32(end, 0x06054b50);
  put16(end + 8, 3);
  put16(end + 10, 3);
  put32(end + 12, (uint32_t)cd);
  put32(end + 16, (uint32_t)at);
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(zip, 1, at, f) == at && fwrite(central, 1, cd + 22, f) == cd + 22;
  if (f) ok = fclose(f) == 0 && ok;
  free(central);
  return ok;
}

/* What the walk yielded, checked as it goes. */
typedef struct deferral_seen {
  int members, deferred, data;
  io_deflated d[3];
} deferral_seen;

static int deferral_collect(void *user, io_member *m, base_error *err) {
  (void)err;
  deferral_seen *s = user;
  int i = (int)m->index;
  CHECK(i >= 0 && i < 3);
  if (i < 0 || i >= 3) return WEFT_OK;
  s->members++;
  uint8_t *want = deferral_member(i, deferral_lens[i]);
  CHECK_EQ_INT(m->len, deferral_lens[i]);
  if (m->deflated) {
    s->deferred++;
    s->d[i] = *m->deflated;
    CHECK(m->data == NULL && m->view == NULL);
    size_t head = m->len < IO_SNIFF_PREFIX_BYTES ? m->len : IO_SNIFF_PREFIX_BYTES;
    CHECK_EQ_INT(m->head_len, head);
    CHECK(memcmp(m->head, want, head) == 0);
  } else if (m->data) {
    s->data++;
    CHECK(memcmp(m->data, want, m->len) == 0);
  }
  free(want);
  return WEFT_OK;
}

/* With IO_EACH_DEFER_INFLATE deflated members come uninflated, with their
 * first bytes; io_deflated_inflate gives their bytes, or WEFT_EPARSE when
 * they are damaged; io_archive_member_file reads one member alone, and
 * fails in libarchive's words on the damage. */
static void test_deferred_deflated_members(void) {
  char path[] = "/tmp/weft_test_defer_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  close(fd);
  CHECK(deferral_zip(path));
  /* Read in place from a file mapping, as the loader does: the walk gives
   * pages of it back. */
  fd = open(path, O_RDONLY);
  struct stat st;
  size_t size = fd >= 0 && fstat(fd, &st) == 0 ? (size_t)st.st_size : 0;
  void *map = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  if (fd >= 0) close(fd);
  CHECK(map != MAP_FAILED);
  if (map == MAP_FAILED) return;
  io_limits limits;
  io_limits_default(&limits);
  base_error err = {0};
  deferral_seen plain = {0}, deferred = {0};
  CHECK_EQ_INT(io_archive_each_file_view(IO_TRACE_ZIP, path, map, size, 0, &limits,
                                         deferral_collect, &plain, &err), WEFT_OK);
  CHECK_EQ_INT(plain.data, 3);
  CHECK_EQ_INT(plain.deferred, 0);
  CHECK_EQ_INT(io_archive_each_file_view(IO_TRACE_ZIP, path, map, size, IO_EACH_DEFER_INFLATE,
                                         &limits, deferral_collect, &deferred, &err), WEFT_OK);
  CHECK_EQ_INT(deferred.deferred, 3);
  for (int i = 0; i < 3 && deferred.deferred == 3; i++) {
    uint8_t *got = NULL, *want = deferral_member(i, deferral_lens[i]);
    CHECK_EQ_INT(io_deflated_inflate(&deferred.d[i], &got), WEFT_OK);
    CHECK(got && memcmp(got, want, deferral_lens[i]) == 0 && got[deferral_lens[i]] == 0);
    base_free(got);
    free(want);
  }
  /* One member alone, through libarchive. */
  deferral_seen one = {0};
  CHECK_EQ_INT(io_archive_member_file(IO_TRACE_ZIP, path, size, 2, &limits, deferral_collect,
                                      &one, &err), WEFT_OK);
  CHECK_EQ_INT(one.members, 1);
  CHECK_EQ_INT(one.data, 1);
  CHECK(io_archive_member_file(IO_TRACE_ZIP, path, size, 7, &limits, deferral_collect, &one,
                               &err) != WEFT_OK);
  /* Damage in the middle of the big member's stream (past its head). */
  if (deferred.deferred == 3) {
    io_deflated d = deferred.d[0];
    uint8_t *zip = malloc(size);
    CHECK(zip != NULL);
    if (!zip) return;
    memcpy(zip, map, size);
    zip[d.at + d.compressed / 2] ^= 0x10;
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(zip, 1, size, f) == size);
    if (f) fclose(f);
    free(zip);
    fd = open(path, O_RDONLY);
    void *damaged = fd >= 0 ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    if (fd >= 0) close(fd);
    CHECK(damaged != MAP_FAILED);
    if (damaged == MAP_FAILED) return;
    d.map = damaged;
    uint8_t *got = (uint8_t *)1;
    CHECK_EQ_INT(io_deflated_inflate(&d, &got), WEFT_EPARSE);
    CHECK(got == NULL);
    munmap(damaged, size);
    err = (base_error){0};
    CHECK(io_archive_member_file(IO_TRACE_ZIP, path, size, 0, &limits, deferral_collect, &one,
                                 &err) != WEFT_OK);
    CHECK(strstr(err.message, "zip member 'big.json'") != NULL);
  }
  munmap(map, size);
  unlink(path);
}

/* ---- gzip: one call for a lone member, zlib for the rest ---- */

typedef struct gz_got {
  uint8_t *data;
  size_t len;
  int calls, truncated;
  int deferred; /* yielded as io_member.deflated */
  io_deflated deflated;
} gz_got;

static int gz_collect(void *ctx, io_member *m, base_error *err) {
  (void)err;
  gz_got *g = ctx;
  g->calls++;
  g->truncated = m->truncated;
  g->len = m->len;
  if (m->deflated) {
    g->deferred = 1;
    g->deflated = *m->deflated;
    CHECK(m->head_len == (m->len < IO_SNIFF_PREFIX_BYTES ? m->len : IO_SNIFF_PREFIX_BYTES));
    g->data = NULL;
    return WEFT_OK;
  }
  g->data = malloc(m->len ? m->len : 1);
  memcpy(g->data, m->data, m->len);
  return WEFT_OK;
}

static size_t gz_member(const uint8_t *in, size_t len, uint8_t *out, size_t cap) {
  struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
  size_t n = libdeflate_gzip_compress(c, in, len, out, cap);
  libdeflate_free_compressor(c);
  CHECK(n > 0);
  return n;
}

/* What io_archive_each yields for gzip bytes: status, and the bytes. Also
 * read as the loader does, with IO_EACH_DEFER_INFLATE, inflating what is
 * deferred (and reading again without the flag when that fails): the
 * same status and bytes. got->deferred: whether that read deferred. */
static int gz_read(const uint8_t *gz, size_t len, gz_got *got, base_error *err) {
  io_limits l = {(uint64_t)1 << 30, 1000, (uint64_t)1 << 20, 1000, 4, 0};
  gz_got later = {0};
  base_error later_err = {0};
  int later_rc = io_archive_each(IO_TRACE_GZIP, gz, len, IO_EACH_DEFER_INFLATE, &l,
                                 gz_collect, &later, &later_err);
  if (later.deferred && later_rc == WEFT_OK) {
    CHECK(later.calls == 1 && later.deflated.gzip && later.deflated.size == later.len);
    uint8_t *bytes = NULL;
    int rc = io_deflated_inflate(&later.deflated, &bytes);
    CHECK(rc == WEFT_OK || rc == WEFT_EPARSE);
    if (rc == WEFT_OK) {
      CHECK(bytes[later.len] == 0);
      later.data = malloc(later.len ? later.len : 1);
      memcpy(later.data, bytes, later.len);
      base_free(bytes);
    }
    if (rc == WEFT_EPARSE) {
      later = (gz_got){.deferred = 1};
      later_rc = io_archive_each(IO_TRACE_GZIP, gz, len, 0, &l, gz_collect, &later, &later_err);
    }
  }
  memset(got, 0, sizeof *got);
  int rc = io_archive_each(IO_TRACE_GZIP, gz, len, 0, &l, gz_collect, got, err);
  CHECK_EQ_INT(later_rc, rc);
  CHECK(later.len == got->len && later.truncated == got->truncated);
  CHECK((!later.data && !got->data) || (later.data && got->data &&
                                         memcmp(later.data, got->data, got->len) == 0));
  if (rc) CHECK(strcmp(later_err.message, err->message) == 0);
  got->deferred = later.deferred;
  free(later.data);
  return rc;
}

static void test_gzip_forms(void) {
  size_t n = 300000, half = n / 2;
  uint8_t *plain = malloc(n), *gz = malloc(2 * n + 1024);
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < n; i++) { /* some repeats, some noise */
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    plain[i] = i % 7 ? (uint8_t)('a' + i % 23) : (uint8_t)x;
  }
  base_error err = {0};
  gz_got got;
  /* one member: the one-call path */
  size_t len = gz_member(plain, n, gz, 2 * n);
  CHECK_EQ_INT(gz_read(gz, len, &got, &err), WEFT_OK);
  CHECK(got.calls == 1 && !got.truncated && got.len == n && memcmp(got.data, plain, n) == 0);
  CHECK(got.deferred);
  free(got.data);
  /* followed by zeros, and two members: zlib's path, the same bytes */
  memset(gz + len, 0, 64);
  CHECK_EQ_INT(gz_read(gz, len + 64, &got, &err), WEFT_OK);
  CHECK(got.len == n && memcmp(got.data, plain, n) == 0);
  free(got.data);
  size_t first = gz_member(plain, half, gz, 2 * n);
  size_t both = first + gz_member(plain + half, n - half, gz + first, 2 * n);
  CHECK_EQ_INT(gz_read(gz, both, &got, &err), WEFT_OK);
  CHECK(got.deferred); /* the last member's size is a lone one's: the inflate refuses */
  CHECK(got.len == n && memcmp(got.data, plain, n) == 0);
  free(got.data);
  /* a wrong CRC: zlib's error, whichever path tried first */
  len = gz_member(plain, n, gz, 2 * n);
  gz[len - 8] ^= 0xff;
  CHECK_EQ_INT(gz_read(gz, len, &got, &err), WEFT_EPARSE);
  CHECK(strstr(err.message, "incorrect data check") != NULL);
  free(got.data);
  free(plain);
  free(gz);
}


int main(void) {
  input_pages_init();
  RUN_TEST(test_stored_zip_gives_back);
  RUN_TEST(test_stored_zip);
  RUN_TEST(test_stored_tar);
  RUN_TEST(test_deflated_zip_in_place);
  RUN_TEST(test_stored_header_done);
  RUN_TEST(test_deferred_deflated_members);
  RUN_TEST(test_gzip_forms);
  return CHECK_SUMMARY();
}
