/* core/spill: members written to an unlinked file and mapped back, at
 * page-aligned offsets; memory-only file systems, missing directories and
 * WEFT_SPILL off leave the bytes on the heap. Through the public API: the
 * large deflated member of a zip is spilled, the small one is not, a large
 * gzip stream is inflated into the spill file, and the tables are the same
 * with spilling off or refused. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include "check.h"
#include "core/spill.h"
#include "weft/weft.h"

/* An empty directory for the spill file on a disk-backed file system: in
 * the working directory (the tests' sources) or else /var/tmp. */
static char spill_dir[64];

static int make_disk_dir(void) {
  const char *parents[] = {".", "/var/tmp"};
  for (int i = 0; i < 2; i++) {
    snprintf(spill_dir, sizeof spill_dir, "%s/spill-test-XXXXXX", parents[i]);
    if (!mkdtemp(spill_dir)) continue;
    int fd = open(spill_dir, O_RDONLY | O_DIRECTORY);
    int memory = fd < 0 || spill_fd_is_memory(fd);
    if (fd >= 0) close(fd);
    if (!memory) return 1;
    rmdir(spill_dir);
  }
  return 0;
}

static size_t dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  size_t n = 0;
  if (!d) return (size_t)-1;
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

static uint8_t *pattern(size_t len, unsigned seed) {
  uint8_t *p = malloc(len);
  for (size_t i = 0; p && i < len; i++) p[i] = (uint8_t)(i * 31u + seed * 7u + (i >> 9));
  return p;
}

static void test_members_map_back_at_page_offsets(void) {
  spill_file s;
  spill_init(&s, spill_dir, 1);
  CHECK_EQ_INT(s.state, SPILL_UNTRIED);
  size_t lens[] = {1, 4096, 70000, 123457, 4095};
  void *maps[5];
  size_t map_lens[5];
  const uint8_t *datas[5];
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < 5; i++) {
    uint8_t *bytes = pattern(lens[i], (unsigned)i);
    uint64_t before = s.size;
    maps[i] = spill_member(&s, bytes, lens[i], &datas[i], &map_lens[i]);
    CHECK(maps[i] != NULL);
    CHECK_EQ_INT(s.size % page, 0);
    CHECK_EQ_INT(s.size - before, (lens[i] + page - 1) / page * page);
    if (maps[i]) CHECK(memcmp(datas[i], bytes, lens[i]) == 0);
    free(bytes);
  }
  CHECK_EQ_INT(s.state, SPILL_OPEN);
  CHECK_EQ_INT(dir_entries(spill_dir), 0); /* unlinked at once */
  spill_close(&s);
  CHECK_EQ_INT(s.fd, -1);
  for (int i = 0; i < 5; i++) { /* readable after close, then unmapped */
    uint8_t *bytes = pattern(lens[i], (unsigned)i);
    if (maps[i]) CHECK(memcmp(datas[i], bytes, lens[i]) == 0);
    if (maps[i]) munmap(maps[i], map_lens[i]);
    free(bytes);
  }
  const uint8_t *data;
  size_t map_len;
  uint8_t one = 1;
  CHECK(spill_member(&s, &one, 1, &data, &map_len) == NULL); /* closed: off */
}

static void test_off_or_unusable_keeps_the_heap(void) {
  uint8_t bytes[100] = {1, 2, 3};
  const uint8_t *data;
  size_t map_len;
  spill_file s;
  spill_init(&s, spill_dir, 0); /* WEFT_SPILL=0 */
  CHECK(spill_member(&s, bytes, sizeof bytes, &data, &map_len) == NULL);
  CHECK_EQ_INT(s.state, SPILL_OFF);
  spill_init(&s, "spill-test-no-such-directory", 1);
  CHECK(spill_member(&s, bytes, sizeof bytes, &data, &map_len) == NULL);
  CHECK_EQ_INT(s.state, SPILL_OFF);
  CHECK(spill_member(&s, bytes, sizeof bytes, &data, &map_len) == NULL); /* stays off */
  spill_close(&s);
  spill_init(&s, spill_dir, 1);
  CHECK(spill_member(&s, bytes, 0, &data, &map_len) == NULL); /* nothing to spill */
  CHECK_EQ_INT(s.state, SPILL_UNTRIED);
  spill_close(&s);
}

/* Reservations filled through their mapping, between written members:
 * each at its own page-aligned range, readable after the seal and after
 * close. On a file system spill_reserve does not use, it gives nothing
 * and spill_member still works. */
static void test_reservations_are_filled_in_place(void) {
  spill_file s;
  spill_init(&s, spill_dir, 1);
  size_t lens[] = {5000, 1, 3 * 4096, 70001};
  void *maps[4];
  size_t map_lens[4];
  const uint8_t *datas[4];
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < 4; i++) {
    uint8_t *bytes = pattern(lens[i], (unsigned)i + 10);
    uint64_t before = s.size;
    uint8_t *room = NULL;
    maps[i] = i % 2 ? NULL : spill_reserve(&s, lens[i], &room, &map_lens[i]);
    if (i == 0 && !maps[i]) {
      CHECK(!s.allocates);
      fprintf(stderr, "skip: spill_reserve unused on this file system\n");
    }
    if (maps[i]) {
      CHECK(s.allocates);
      CHECK_EQ_INT(map_lens[i], (lens[i] + page - 1) / page * page);
      memcpy(room, bytes, lens[i]);
      spill_seal(maps[i], map_lens[i]);
      datas[i] = room;
    } else {
      maps[i] = spill_member(&s, bytes, lens[i], &datas[i], &map_lens[i]);
      CHECK(maps[i] != NULL);
    }
    CHECK_EQ_INT(s.size - before, (lens[i] + page - 1) / page * page);
    free(bytes);
  }
  spill_close(&s);
  for (int i = 0; i < 4; i++) {
    uint8_t *bytes = pattern(lens[i], (unsigned)i + 10);
    if (maps[i]) CHECK(memcmp(datas[i], bytes, lens[i]) == 0);
    if (maps[i]) munmap(maps[i], map_lens[i]);
    free(bytes);
  }
  uint8_t *room;
  size_t map_len;
  CHECK(spill_reserve(&s, 10, &room, &map_len) == NULL); /* closed: off */
  spill_init(&s, "/dev/shm", 1);
  CHECK(spill_reserve(&s, 10, &room, &map_len) == NULL); /* memory: off */
  spill_close(&s);
}

/* /dev/shm is tmpfs on Linux: spilling there would save no memory. */
static void test_memory_file_systems_are_refused(void) {
  struct stat st;
  if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "skip: no /dev/shm\n");
    return;
  }
  uint8_t bytes[100] = {1};
  const uint8_t *data;
  size_t map_len;
  spill_file s;
  spill_init(&s, "/dev/shm", 1);
  CHECK(spill_member(&s, bytes, sizeof bytes, &data, &map_len) == NULL);
  CHECK_EQ_INT(s.state, SPILL_OFF);
  spill_close(&s);
  int fd = open("/dev/shm", O_RDONLY | O_DIRECTORY);
  CHECK(fd >= 0 && spill_fd_is_memory(fd));
  if (fd >= 0) close(fd);
  fd = open(spill_dir, O_RDONLY | O_DIRECTORY);
  CHECK(fd >= 0 && !spill_fd_is_memory(fd));
  if (fd >= 0) close(fd);
}

/* A JSON trace of n complete slices. */
static char *json_slices(size_t n, size_t *len) {
  size_t cap = 64 + n * 80, at = 0;
  char *p = malloc(cap);
  if (!p) return NULL;
  at += (size_t)snprintf(p + at, cap - at, "[");
  for (size_t i = 0; i < n; i++)
    at += (size_t)snprintf(p + at, cap - at,
                           "%s{\"ph\":\"X\",\"ts\":%zu,\"dur\":3,\"pid\":1,"
                           "\"tid\":%zu,\"name\":\"s%zu\"}",
                           i ? "," : "", i * 10, 1 + i % 4, i % 50);
  at += (size_t)snprintf(p + at, cap - at, "]");
  *len = at;
  return p;
}

/* Writes a zip of a large JSON member (*big_len bytes) and a small one,
 * both deflated. */
static int write_zip(const char *path, size_t *big_len) {
  size_t lens[2];
  char *datas[2] = {json_slices(20000, &lens[0]), json_slices(10, &lens[1])};
  const char *names[2] = {"big.json", "small.json"};
  struct archive *a = archive_write_new();
  int ok = datas[0] && datas[1] && a && archive_write_set_format_zip(a) == ARCHIVE_OK &&
           archive_write_set_options(a, "zip:compression=deflate") == ARCHIVE_OK &&
           archive_write_open_filename(a, path) == ARCHIVE_OK;
  for (int i = 0; ok && i < 2; i++) {
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, names[i]);
    archive_entry_set_size(e, (la_int64_t)lens[i]);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    ok = archive_write_header(a, e) == ARCHIVE_OK &&
         archive_write_data(a, datas[i], lens[i]) == (la_ssize_t)lens[i];
    archive_entry_free(e);
  }
  if (a) ok = archive_write_close(a) == ARCHIVE_OK && ok;
  archive_write_free(a);
  free(datas[0]);
  free(datas[1]);
  *big_len = lens[0];
  return ok;
}

static int count_row(void *user, int statement, int ncols, const weft_cell *cells) {
  (void)statement;
  if (ncols == 1 && cells[0].type == WEFT_CELL_INT) *(int64_t *)user = cells[0].i;
  return 0;
}

/* Loads path with the environment as set; returns the bytes spilled and
 * sets *slices and *sum_ts. */
static uint64_t load_zip(const char *path, int64_t *slices, int64_t *sum_ts) {
  weft *w = NULL;
  weft_load_progress p = {0};
  *slices = *sum_ts = -1;
  if (weft_open(&w, NULL) == WEFT_OK && weft_load_path(w, path) == WEFT_OK &&
      weft_load_finish(w) == WEFT_OK) {
    weft_query_callbacks cb = {0};
    cb.on_row = count_row;
    cb.user = slices;
    weft_query(w, "select count(*) from slice", &cb);
    cb.user = sum_ts;
    weft_query(w, "select sum(ts + dur) from slice", &cb);
    weft_get_progress(w, &p);
  } else {
    fprintf(stderr, "load failed: %s\n", weft_errmsg(w));
  }
  weft_close(w);
  return p.bytes_spilled;
}

/* Loads path spilling into spill_dir (want_spilled bytes spilled, `slices`
 * slices), then with spilling off and refused (tmpfs): nothing spilled,
 * the same slices. */
static void check_spilled_loads(const char *path, uint64_t want_spilled, int64_t slices) {
  int64_t n, sum, n0, sum0;
  setenv("TMPDIR", spill_dir, 1);
  CHECK_EQ_INT(load_zip(path, &n, &sum), want_spilled);
  CHECK_EQ_INT(n, slices);
  setenv("WEFT_SPILL", "0", 1);
  CHECK_EQ_INT(load_zip(path, &n0, &sum0), 0);
  CHECK(n0 == n && sum0 == sum);
  unsetenv("WEFT_SPILL");
  setenv("TMPDIR", "/dev/shm", 1);
  CHECK_EQ_INT(load_zip(path, &n0, &sum0), 0);
  CHECK(n0 == n && sum0 == sum);
  unsetenv("TMPDIR");
}

static void test_loader_spills_large_deflated_members(void) {
  char deflated[96];
  size_t big = 0;
  snprintf(deflated, sizeof deflated, "%s/d.zip", spill_dir);
  CHECK(write_zip(deflated, &big));
  CHECK(big >= SPILL_MIN_BYTES);
  check_spilled_loads(deflated, big, 20010); /* the small member is not spilled */
  CHECK_EQ_INT(dir_entries(spill_dir), 1); /* the zip: no spill file left */
  unlink(deflated);
}

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xffff), put16(p + 2, v >> 16); }

/* Writes a zip of one deflated member whose local header carries its sizes
 * and CRC (no data descriptor, unlike libarchive's writer): the kind the
 * archive walk defers to a pool job. */
static int write_deferred_zip(const char *path, const char *name, const char *data,
                              size_t len) {
  uLong bound = compressBound((uLong)len) + 64;
  uint8_t *packed = malloc(bound);
  z_stream z;
  memset(&z, 0, sizeof z);
  int ok = packed && deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  z.next_in = (Bytef *)(uintptr_t)data;
  z.avail_in = (uInt)len;
  z.next_out = packed;
  z.avail_out = (uInt)bound;
  ok = ok && deflate(&z, Z_FINISH) == Z_STREAM_END;
  size_t packed_len = z.total_out;
  deflateEnd(&z);
  uint32_t crc = (uint32_t)crc32(0, (const Bytef *)data, (uInt)len);
  size_t n = strlen(name);
  uint8_t local[30] = {'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0}, central[46] = {'P', 'K', 1, 2, 20, 0,
                                                                          20, 0, 0, 0, 8, 0};
  uint8_t end[22] = {'P', 'K', 5, 6};
  put32(local + 14, crc), put32(local + 18, (uint32_t)packed_len), put32(local + 22, (uint32_t)len);
  put16(local + 26, (uint32_t)n);
  put32(central + 16, crc), put32(central + 20, (uint32_t)packed_len);
  put32(central + 24, (uint32_t)len), put16(central + 28, (uint32_t)n);
  put16(end + 8, 1), put16(end + 10, 1), put32(end + 12, (uint32_t)(46 + n));
  put32(end + 16, (uint32_t)(30 + n + packed_len));
  FILE *f = ok ? fopen(path, "wb") : NULL;
  ok = f && fwrite(local, 1, 30, f) == 30 && fwrite(name, 1, n, f) == n &&
       fwrite(packed, 1, packed_len, f) == packed_len && fwrite(central, 1, 46, f) == 46 &&
       fwrite(name, 1, n, f) == n && fwrite(end, 1, 22, f) == 22;
  if (f) ok = fclose(f) == 0 && ok;
  free(packed);
  return ok;
}

/* A deflated member the walk defers is inflated by a pool job, which
 * spills it (the job's path, not the loading thread's). */
static void test_deferred_member_spilled_by_its_job(void) {
  char path[96];
  snprintf(path, sizeof path, "%s/deferred.zip", spill_dir);
  size_t len = 0;
  char *json = json_slices(5000, &len);
  CHECK(json && len >= SPILL_MIN_BYTES && write_deferred_zip(path, "a.json", json, len));
  free(json);
  check_spilled_loads(path, len, 5000);
  unlink(path);
}

/* A gzip stream above the size from which jobs inflate straight into a
 * reservation of the spill file (unpack.c: 32 MiB): 2,000 slices, then
 * white space. The same tables with spilling off and refused. */
static void test_loader_inflates_large_gzip_in_place(void) {
  char path[96];
  snprintf(path, sizeof path, "%s/big.json.gz", spill_dir);
  size_t len = 0, pad = (size_t)33 << 20;
  char *json = json_slices(2000, &len);
  gzFile gz = json ? gzopen(path, "wb1") : NULL;
  char *spaces = malloc(pad);
  int ok = gz && spaces && gzwrite(gz, json, (unsigned)(len - 1)) == (int)(len - 1);
  if (spaces) memset(spaces, ' ', pad);
  ok = ok && gzwrite(gz, spaces, (unsigned)pad) == (int)pad && gzwrite(gz, "]", 1) == 1;
  if (gz) ok = gzclose(gz) == Z_OK && ok;
  CHECK(ok);
  free(json);
  free(spaces);
  check_spilled_loads(path, len + pad, 2000);
  unlink(path);
}

int main(void) {
  if (!make_disk_dir()) { /* every candidate is tmpfs: nothing to test */
    fprintf(stderr, "skip: no disk-backed directory (. and /var/tmp are in memory)\n");
    return 0;
  }
  RUN_TEST(test_members_map_back_at_page_offsets);
  RUN_TEST(test_off_or_unusable_keeps_the_heap);
  RUN_TEST(test_reservations_are_filled_in_place);
  RUN_TEST(test_memory_file_systems_are_refused);
  RUN_TEST(test_loader_spills_large_deflated_members);
  RUN_TEST(test_deferred_member_spilled_by_its_job);
  RUN_TEST(test_loader_inflates_large_gzip_in_place);
  rmdir(spill_dir);
  return CHECK_SUMMARY();
}
