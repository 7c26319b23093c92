/* base_slab: blocks of one size, the warm ones reused as they were, the
 * others' pages given back at once (checked with mincore), safe from
 * several threads; and the sorter's queues in it, emptied by a run. */
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"
#include "check.h"
#include "sort/sort.h"

#define BLOCK ((size_t)32 << 10)

/* Pages of [p, p + bytes) that are resident; -1 if mincore fails. */
static long resident_pages(const void *p, size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t n = (bytes + page - 1) / page;
  unsigned char vec[64];
  if (n > sizeof vec || mincore((void *)p, bytes, vec) != 0) return -1;
  long count = 0;
  for (size_t i = 0; i < n; i++) count += vec[i] & 1;
  return count;
}

static void test_blocks_are_distinct_and_span_regions(void) {
  base_slab s;
  base_slab_init(&s, BLOCK, 0);
  size_t per_region = BASE_SLAB_REGION_BYTES / BLOCK, n = 2 * per_region + 3;
  unsigned char **blocks = base_calloc(n, sizeof *blocks);
  CHECK(blocks != NULL);
  for (size_t i = 0; i < n; i++) {
    blocks[i] = base_slab_alloc(&s);
    CHECK(blocks[i] != NULL);
    CHECK(((uintptr_t)blocks[i] & 4095) == 0);
    CHECK(blocks[i][0] == 0 && blocks[i][BLOCK - 1] == 0); /* fresh pages */
    memset(blocks[i], (int)(i & 0xff) | 1, BLOCK);
  }
  CHECK(s.region_count == 3);
  for (size_t i = 0; i < n; i++) /* no block overlaps another */
    CHECK(blocks[i][0] == ((i & 0xff) | 1) && blocks[i][BLOCK - 1] == ((i & 0xff) | 1));
  for (size_t i = 0; i < n; i++) base_slab_free(&s, blocks[i]);
  CHECK(s.cold_count == n && s.cold_count <= s.cold_cap);
  base_free(blocks);
  base_slab_destroy(&s);
}

/* Up to warm_max freed blocks keep their pages and come back first, last
 * freed first; the rest give their pages back and come back zero-filled. */
static void test_warm_blocks_stay_and_cold_ones_go_back(void) {
  base_slab s;
  base_slab_init(&s, BLOCK, 2);
  unsigned char *b[4];
  for (int i = 0; i < 4; i++) {
    b[i] = base_slab_alloc(&s);
    CHECK(b[i] != NULL);
    memset(b[i], 0x5a, BLOCK);
    CHECK(resident_pages(b[i], BLOCK) == (long)(BLOCK / 4096));
  }
  for (int i = 0; i < 4; i++) base_slab_free(&s, b[i]);
  CHECK(s.warm_count == 2 && s.cold_count == 2);
  CHECK(resident_pages(b[0], BLOCK) == (long)(BLOCK / 4096)); /* warm */
  CHECK(resident_pages(b[1], BLOCK) == (long)(BLOCK / 4096));
  CHECK(resident_pages(b[2], BLOCK) == 0); /* given back */
  CHECK(resident_pages(b[3], BLOCK) == 0);
  unsigned char *again = base_slab_alloc(&s);
  CHECK(again == b[1] && again[0] == 0x5a); /* warm, as it was */
  again = base_slab_alloc(&s);
  CHECK(again == b[0]);
  again = base_slab_alloc(&s);
  CHECK(again == b[3] && again[0] == 0 && again[BLOCK - 1] == 0); /* cold: fresh */
  base_slab_destroy(&s);
  CHECK(s.region_count == 0 && s.regions == NULL);
}

static void test_failure_hook(void) {
  base_slab s;
  base_slab_init(&s, BLOCK, 4);
  base_alloc_fail_after(1);
  CHECK(base_slab_alloc(&s) == NULL);
  void *p = base_slab_alloc(&s);
  CHECK(p != NULL);
  base_slab_free(&s, p);
  base_slab_free(&s, NULL);
  base_slab_destroy(&s);
  base_slab_destroy(&s); /* a destroyed slab may be destroyed again */
}

typedef struct churn {
  base_slab *slab;
  unsigned seed;
  int bad;
} churn;

/* Takes and frees blocks in a pseudo-random order, each stamped with its
 * owner: a block handed to two threads at once would lose a stamp. */
static void *churn_run(void *arg) {
  churn *c = arg;
  uint32_t *held[16] = {0};
  uint32_t x = c->seed;
  for (int step = 0; step < 20000; step++) {
    x = x * 1103515245u + 12345u;
    int k = (int)((x >> 16) % 16);
    if (held[k]) {
      if (held[k][0] != c->seed || held[k][BLOCK / 4 - 1] != c->seed) c->bad = 1;
      base_slab_free(c->slab, held[k]);
      held[k] = NULL;
    } else if ((held[k] = base_slab_alloc(c->slab)) != NULL) {
      held[k][0] = held[k][BLOCK / 4 - 1] = c->seed;
    }
  }
  for (int k = 0; k < 16; k++) base_slab_free(c->slab, held[k]);
  return NULL;
}

static void test_threads(void) {
  base_slab s;
  base_slab_init(&s, BLOCK, 8);
  churn c[3] = {{&s, 11, 0}, {&s, 22, 0}, {&s, 33, 0}};
  pthread_t t[3];
  for (int i = 0; i < 3; i++) CHECK(pthread_create(&t[i], NULL, churn_run, &c[i]) == 0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 3; i++) CHECK(!c[i].bad);
  CHECK(s.warm_count + s.cold_count == s.carved + (s.region_count - 1) *
                                           (BASE_SLAB_REGION_BYTES / BLOCK));
  base_slab_destroy(&s);
}

typedef struct collected {
  int64_t last;
  uint64_t count;
  int ordered;
} collected;

static int collect(void *user, const sort_event *e) {
  collected *c = user;
  if (c->count && e->ts < c->last) c->ordered = 0;
  c->last = e->ts;
  c->count++;
  return WEFT_OK;
}

static int identity(void *user, uint32_t source, uint32_t clock, int64_t ts, int64_t *out) {
  (void)user, (void)source, (void)clock;
  *out = ts;
  return WEFT_OK;
}

/* Queues of many sizes, out of order, some with a run of clocks per event
 * (their runs' chunks grow in the heap, then move to the slab): a run
 * emits every event in order and gives every block back. */
static void test_sorter_chunks_in_the_slab(void) {
  for (uint32_t threads = 1; threads <= 2; threads++) {
    sorter s;
    sorter_init(&s);
    sorter_set_threads(&s, threads);
    uint64_t pushed = 0;
    for (uint32_t q = 0; q < 40; q++) {
      uint32_t source;
      CHECK(sorter_add_source(&s, &source) == WEFT_OK);
      uint64_t n = (uint64_t)q * q * 97 + 3; /* 3 events to 150,000 */
      for (uint64_t i = 0; i < n; i++) {
        int64_t ts = (int64_t)((i * 7919) % (n + 13));
        uint32_t clock = q % 3 == 0 ? (uint32_t)(i % 2) : 0; /* a run per event */
        CHECK(sorter_push(&s, source, ts, clock, i) == WEFT_OK);
        pushed++;
      }
    }
    CHECK(s.small_chunks.region_count > 0);
    collected c = {0, 0, 1};
    CHECK(sorter_run(&s, identity, collect, &c) == WEFT_OK);
    CHECK(c.count == pushed && c.ordered);
    size_t per_region = BASE_SLAB_REGION_BYTES / BLOCK;
    size_t carved = s.small_chunks.carved + (s.small_chunks.region_count - 1) * per_region;
    CHECK(s.small_chunks.warm_count + s.small_chunks.cold_count == carved);
    CHECK(sorter_memory(&s) == 0);
    sorter_free(&s);
  }
}

int main(void) {
  RUN_TEST(test_blocks_are_distinct_and_span_regions);
  RUN_TEST(test_warm_blocks_stay_and_cold_ones_go_back);
  RUN_TEST(test_failure_hook);
  RUN_TEST(test_threads);
  RUN_TEST(test_sorter_chunks_in_the_slab);
  return CHECK_SUMMARY();
}
