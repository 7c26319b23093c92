/* core/input: chunk hold counts, page give-back at both unaligned ends,
 * tiling of neighbouring chunks, mapped scan give-back, file mappings.
 * The archive readers' tests are in test_input_archive.c. */
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

static void test_holds_span_chunks(void) {
  uint8_t *arena = arena_new(4);
  CHECK(arena != NULL);
  input_holds h;
  CHECK_EQ_INT(input_holds_init(&h, arena, 4 * page, page_shift, 1), 0);
  CHECK_EQ_INT(h.chunks, 4);
  input_holds_hold(&h, page - 10, 20);          /* chunks 0 and 1 */
  input_holds_hold(&h, 0, 0);                   /* zero length: nothing */
  input_holds_hold(&h, 4 * page + 5, 10);       /* past the end: nothing */
  input_holds_hold(&h, 3 * page + 1, 10 * page); /* clamped to chunk 3 */
  CHECK_EQ_INT(h.counts[0], 1);
  CHECK_EQ_INT(h.counts[1], 1);
  CHECK_EQ_INT(h.counts[2], 0);
  CHECK_EQ_INT(h.counts[3], 1);
  input_holds_tokenized(&h); /* chunk 2 was never held */
  CHECK_EQ_INT(h.given[2], 1);
  CHECK_EQ_INT(h.given_bytes, page);
  input_holds_release(&h, page - 10, 20);
  CHECK_EQ_INT(h.given[0] + h.given[1], 2);
  input_holds_release(&h, 0, 0);
  CHECK_EQ_INT(h.given[3], 0);
  input_holds_release(&h, 3 * page + 1, 10 * page);
  CHECK_EQ_INT(h.given[3], 1);
  CHECK_EQ_INT(h.given_bytes, 4 * page);
  input_holds_release(&h, 0, page); /* an extra release stays harmless */
  for (size_t i = 0; i < 4; i++) CHECK(page_given(arena, i));
  input_holds_free(&h);
  for (size_t i = 0; i < 4; i++) CHECK(page_zero(arena, i));
  munmap(arena, 4 * page);
}

static void test_nothing_before_tokenize(void) {
  uint8_t *arena = arena_new(3);
  input_holds h;
  CHECK_EQ_INT(input_holds_init(&h, arena, 3 * page, page_shift, 1), 0);
  input_holds_hold(&h, 0, 3 * page);
  input_holds_release(&h, 0, 3 * page); /* count 0, but tokenize goes on */
  CHECK_EQ_INT(h.given_bytes, 0);
  input_holds_hold(&h, page, 1);
  input_holds_tokenized(&h);
  CHECK_EQ_INT(h.given[0] + h.given[2], 2);
  CHECK_EQ_INT(h.given[1], 0);
  input_holds_free(&h);
  CHECK(page_given(arena, 0) && !page_given(arena, 1) && page_given(arena, 2));
  munmap(arena, 3 * page);
}

/* Unaligned at both ends: only the whole pages inside the buffer go, and
 * no byte outside it is touched. */
static void test_unaligned_ends(void) {
  uint8_t *arena = arena_new(4);
  const size_t lead = 100, len = 3 * page - 50;
  input_holds h;
  CHECK_EQ_INT(input_holds_init(&h, arena + lead, len, page_shift, 1), 0);
  input_holds_tokenized(&h);
  CHECK_EQ_INT(h.given_bytes, len);
  input_holds_free(&h);
  CHECK(bytes_untouched(arena, page));                 /* page 0: has the lead */
  CHECK(page_given(arena, 1) && page_given(arena, 2)); /* inside */
  CHECK(bytes_untouched(arena + 3 * page, page));      /* page 3: has the tail */
  munmap(arena, 4 * page);
}

/* Chunks straddle pages: a page goes once every chunk over it went, in
 * whichever order. */
static void test_tiling(void) {
  uint8_t *arena = arena_new(6);
  const size_t lead = 100;
  input_holds h;
  CHECK_EQ_INT(input_holds_init(&h, arena + lead, 5 * page, page_shift, 1), 0);
  for (size_t k = 0; k < 5; k++) input_holds_hold(&h, k * page, page);
  input_holds_tokenized(&h);
  input_holds_release(&h, 2 * page, page); /* chunk 2: no whole page of its own */
  CHECK(!page_given(arena, 2) && !page_given(arena, 3));
  input_holds_release(&h, 1 * page, page); /* page 2 = chunks 1 and 2 */
  CHECK(!page_given(arena, 1) && page_given(arena, 2) && !page_given(arena, 3));
  input_holds_release(&h, 3 * page, page); /* page 3 = chunks 2 and 3 */
  CHECK(page_given(arena, 3) && !page_given(arena, 4));
  input_holds_release(&h, 0, page);
  CHECK(page_given(arena, 1));
  input_holds_release(&h, 4 * page, page);
  CHECK(page_given(arena, 4) && page_given(arena, 5) == 0);
  input_holds_free(&h);
  CHECK(bytes_untouched(arena, lead));
  CHECK(bytes_untouched(arena + 5 * page + lead, page - lead));
  munmap(arena, 6 * page);
}

/* Chunks smaller than a page: the page goes with the last of its chunks. */
static void test_small_chunks(void) {
  uint8_t *arena = arena_new(2);
  unsigned shift = page_shift - 2; /* 4 chunks per page */
  size_t chunk = (size_t)1 << shift;
  input_holds h;
  CHECK_EQ_INT(input_holds_init(&h, arena, 2 * page, shift, 1), 0);
  CHECK_EQ_INT(h.chunks, 8);
  for (size_t k = 0; k < 8; k++) input_holds_hold(&h, k * chunk + 1, 1);
  input_holds_tokenized(&h);
  for (size_t k = 0; k < 3; k++) input_holds_release(&h, k * chunk + 1, 1);
  CHECK(!page_given(arena, 0));
  input_holds_release(&h, 3 * chunk + 1, 1);
  CHECK(page_given(arena, 0) && !page_given(arena, 1));
  input_holds_release(&h, 4 * chunk, 4 * chunk); /* one call, four chunks */
  CHECK(page_given(arena, 1));
  input_holds_free(&h);
  munmap(arena, 2 * page);
}

/* A file smaller than a chunk (and than a page): one chunk, no page. */
static void test_small_file(void) {
  uint8_t *arena = arena_new(1);
  input_holds h;
  CHECK_EQ_INT(input_holds_init(&h, arena + 10, 100, INPUT_CHUNK_SHIFT_DEFAULT, 1), 0);
  CHECK_EQ_INT(h.chunks, 1);
  input_holds_hold(&h, 10, 5);
  input_holds_hold(&h, 90, 50);
  input_holds_tokenized(&h);
  input_holds_release(&h, 10, 5);
  CHECK_EQ_INT(h.given_bytes, 0);
  input_holds_release(&h, 90, 50);
  CHECK_EQ_INT(h.given_bytes, 100);
  input_holds_free(&h);
  CHECK(bytes_untouched(arena, page));
  munmap(arena, page);

  input_holds empty;
  CHECK_EQ_INT(input_holds_init(&empty, NULL, 0, page_shift, 1), 0);
  input_holds_hold(&empty, 0, 10);
  input_holds_tokenized(&empty);
  input_holds_release(&empty, 0, 10);
  CHECK_EQ_INT(empty.given_bytes, 0);
  input_holds_free(&empty);
}

/* A heap buffer: given back chunk by chunk, still usable and freeable. */
static void test_heap_buffer(void) {
  size_t len = (3u << 20) + 7;
  uint8_t *buf = base_malloc(len);
  CHECK(buf != NULL);
  if (!buf) return;
  memset(buf, 'x', len);
  input_holds h;
  CHECK_EQ_INT(input_holds_init(&h, buf, len, 16, 1), 0);
  for (size_t off = 0; off < len; off += 1000) input_holds_hold(&h, off, 1500);
  input_holds_tokenized(&h);
  CHECK_EQ_INT(h.given_bytes, 0);
  for (size_t off = 0; off < len; off += 1000) input_holds_release(&h, off, 1500);
  CHECK_EQ_INT(h.given_bytes, len);
  input_holds_free(&h);
  memset(buf, 'y', len); /* writable again: the pages come back */
  CHECK_EQ_INT(buf[len - 1], 'y');
  base_free(buf);
}

static void test_no_give_back(void) {
  uint8_t *arena = arena_new(2);
  input_holds h;
  CHECK_EQ_INT(input_holds_init(&h, arena, 2 * page, page_shift, 0), 0);
  input_holds_set_mapped(&h);
  input_holds_hold(&h, 0, 1);
  input_holds_hold(&h, page + 1, 1);
  input_holds_tokenized(&h);
  input_holds_release(&h, 0, 1);
  input_holds_release(&h, page + 1, 1);
  CHECK_EQ_INT(h.given_bytes, 0);
  input_holds_free(&h);
  CHECK(bytes_untouched(arena, 2 * page));
  munmap(arena, 2 * page);
}

/* A mapping: tokenize's holds give back the pages more than one chunk
 * behind them (counts untouched; a file mapping faults them back). */
static void test_mapped_scan(void) {
  uint8_t *arena = arena_new(6);
  input_holds h;
  CHECK_EQ_INT(input_holds_init(&h, arena, 6 * page, page_shift, 1), 0);
  input_holds_set_mapped(&h);
  input_holds_hold(&h, 0, 10);
  input_holds_hold(&h, page, 10);
  CHECK(!page_given(arena, 0));
  input_holds_hold(&h, 3 * page, 10);
  CHECK(page_given(arena, 0) && page_given(arena, 1) && !page_given(arena, 2));
  CHECK_EQ_INT(h.counts[0], 1);
  CHECK_EQ_INT(h.given[0], 0);
  input_holds_tokenized(&h);
  CHECK_EQ_INT(h.given[2] + h.given[4] + h.given[5], 3);
  CHECK_EQ_INT(h.given[0] + h.given[1] + h.given[3], 0);
  input_holds_free(&h);
  munmap(arena, 6 * page);
}

/* A large file's pages go in runs: 256 one-page chunks batch 4 pages (1/64
 * of the file) per give-back; a release out of order flushes the run, and
 * the last chunk flushes whatever is pending. */
static void test_batched_runs(void) {
  const size_t pages = 256;
  uint8_t *arena = arena_new(pages);
  CHECK(arena != NULL);
  if (!arena) return;
  input_holds h;
  CHECK_EQ_INT(input_holds_init(&h, arena, pages * page, page_shift, 1), 0);
  CHECK_EQ_INT(h.pending_max, 4 * page);
  for (size_t k = 0; k < pages; k++) input_holds_hold(&h, k * page, 1);
  input_holds_tokenized(&h);
  for (size_t k = 0; k < 3; k++) input_holds_release(&h, k * page, 1);
  CHECK(!page_given(arena, 0) && !page_given(arena, 2)); /* pending */
  CHECK_EQ_INT(h.given_bytes, 3 * page);                 /* counted already */
  input_holds_release(&h, 3 * page, 1);                  /* a run of four */
  for (size_t k = 0; k < 4; k++) CHECK(page_given(arena, k));
  input_holds_release(&h, 10 * page, 1);
  CHECK(!page_given(arena, 10));
  input_holds_release(&h, 4 * page, 1); /* breaks the run: page 10 goes */
  CHECK(page_given(arena, 10) && !page_given(arena, 4));
  for (size_t k = 5; k < pages; k++)
    if (k != 10) input_holds_release(&h, k * page, 1);
  for (size_t k = 0; k < pages; k++) CHECK(page_given(arena, k)); /* all flushed */
  input_holds_free(&h);
  munmap(arena, pages * page);
}

/* Mapped, during tokenize, a large file gives pages back a run at a time. */
static void test_mapped_scan_runs(void) {
  const size_t pages = 256;
  uint8_t *arena = arena_new(pages);
  CHECK(arena != NULL);
  if (!arena) return;
  input_holds h;
  CHECK_EQ_INT(input_holds_init(&h, arena, pages * page, page_shift, 1), 0);
  input_holds_set_mapped(&h);
  for (size_t k = 0; k < 5; k++) input_holds_hold(&h, k * page, 1);
  CHECK(!page_given(arena, 0));
  input_holds_hold(&h, 5 * page, 1); /* five chunks behind: four pages go */
  for (size_t k = 0; k < 4; k++) CHECK(page_given(arena, k));
  CHECK(!page_given(arena, 4));
  input_holds_free(&h);
  munmap(arena, pages * page);
}

static void test_give_back_pages(void) {
  uint8_t *arena = arena_new(3);
  input_give_back_pages(arena + 1, arena + 3 * page - 1);
  CHECK(bytes_untouched(arena, page) && page_given(arena, 1) &&
        bytes_untouched(arena + 2 * page, page));
  input_give_back_pages(arena + 5, arena + 6); /* no whole page: nothing */
  CHECK(bytes_untouched(arena, page));
  munmap(arena, 3 * page);
}

static void test_init_alloc_failure(void) {
  static uint8_t buf[1 << 12];
  input_holds h;
  base_alloc_fail_after(2);
  CHECK_EQ_INT(input_holds_init(&h, buf, sizeof buf, 8, 1), WEFT_ENOMEM);
  base_alloc_fail_after(0);
  input_holds_free(&h);
}

/* A scan walking a mapped file gives back the whole pages more than
 * IMPORT_SCAN_LAG behind it, in aligned windows; with give_back off, none. */
static void test_scan_passed(void) {
  const size_t pages = ((size_t)20 << 20) / page;
  uint8_t *arena = arena_new(pages);
  CHECK(arena != NULL);
  if (!arena) return;
  const uint8_t *data = arena + 100; /* not page-aligned */
  size_t len = pages * page - 100, given = 0;
  import_scan_input off = {data, len, NULL, 0, 0, 0};
  for (size_t at = 0; at <= len; at += 65536) import_scan_passed(&off, &given, at);
  import_scan_passed(&off, &given, len);
  CHECK_EQ_INT(given, 0);
  for (size_t i = 0; i < pages; i++) CHECK(!page_given(arena, i));
  import_scan_input in = {data, len, NULL, 1, 0, 0};
  import_scan_passed(&in, &given, len + 1); /* past the end: nothing */
  CHECK_EQ_INT(given, 0);
  for (size_t at = 0; at <= len; at += 65536) import_scan_passed(&in, &given, at);
  import_scan_passed(&in, &given, len);
  uintptr_t edge = ((uintptr_t)(data + len) - IMPORT_SCAN_LAG) & ~(uintptr_t)(IMPORT_SCAN_LAG - 1);
  CHECK_EQ_INT(given, edge - (uintptr_t)data);
  CHECK(!page_given(arena, 0)); /* shared with the bytes before data */
  size_t first_kept = (edge - (uintptr_t)arena) / page;
  for (size_t i = 1; i < pages; i++) CHECK_EQ_INT(page_given(arena, i), i < first_kept);
  munmap(arena, pages * page);
}

/* The VmFlags line of the /proc/self/smaps entry starting at `addr`. */
static int smaps_flags_of(const void *addr, char *flags, size_t cap) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return 0;
  char line[512], want[32];
  snprintf(want, sizeof want, "%lx-", (unsigned long)(uintptr_t)addr);
  int in = 0, found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    if (strchr(line, '-') && strncmp(line, want, strlen(want)) == 0) in = 1;
    else if (in && strncmp(line, "VmFlags:", 8) == 0) {
      snprintf(flags, cap, "%.200s", line + 8);
      found = 1;
    }
  }
  fclose(f);
  return found;
}

/* Input mappings ask for small pages (VmFlags "nh": MADV_NOHUGEPAGE). */
static void test_map_file_small_pages(void) {
  char path[] = "/tmp/weft_test_input_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  size_t len = (size_t)4 << 20;
  CHECK_EQ_INT(ftruncate(fd, (off_t)len), 0);
  uint8_t *map = input_map_file(fd, len);
  CHECK(map != NULL);
  CHECK(input_map_file(fd, 0) == NULL);
  char flags[256] = "";
  if (map) {
    CHECK_EQ_INT(map[len - 1], 0);
    CHECK(smaps_flags_of(map, flags, sizeof flags));
    CHECK(strstr(flags, " nh") != NULL);
    munmap(map, len);
  }
  close(fd);
  unlink(path);
}

/* A range at an unaligned offset is mapped on its own, with small pages,
 * and reads the file's bytes there. */
static void test_map_range(void) {
  char path[] = "/tmp/weft_test_input_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  size_t len = 3 * page + 123;
  uint8_t *bytes = malloc(len);
  for (size_t i = 0; i < len; i++) bytes[i] = (uint8_t)(i * 7 + 3);
  CHECK_EQ_INT(write(fd, bytes, len), (long)len);
  const uint8_t *data = NULL;
  size_t map_len = 0;
  uint64_t offset = page + 77;
  size_t want = len - (size_t)offset - 5;
  void *map = input_map_range(fd, offset, want, &data, &map_len);
  CHECK(map != NULL);
  if (map) {
    CHECK(data == (const uint8_t *)map + 77);
    CHECK_EQ_INT(map_len, want + 77);
    CHECK(memcmp(data, bytes + offset, want) == 0);
    char flags[256] = "";
    CHECK(smaps_flags_of(map, flags, sizeof flags));
    CHECK(strstr(flags, " nh") != NULL);
    munmap(map, map_len);
  }
  CHECK(input_map_range(fd, offset, 0, &data, &map_len) == NULL);
  free(bytes);
  close(fd);
  unlink(path);
}

int main(void) {
  input_pages_init();
  RUN_TEST(test_holds_span_chunks);
  RUN_TEST(test_nothing_before_tokenize);
  RUN_TEST(test_unaligned_ends);
  RUN_TEST(test_tiling);
  RUN_TEST(test_small_chunks);
  RUN_TEST(test_small_file);
  RUN_TEST(test_heap_buffer);
  RUN_TEST(test_no_give_back);
  RUN_TEST(test_mapped_scan);
  RUN_TEST(test_batched_runs);
  RUN_TEST(test_mapped_scan_runs);
  RUN_TEST(test_scan_passed);
  RUN_TEST(test_give_back_pages);
  RUN_TEST(test_map_range);
  RUN_TEST(test_init_alloc_failure);
  RUN_TEST(test_map_file_small_pages);
  return CHECK_SUMMARY();
}
