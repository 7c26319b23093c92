/* The huge-page hint of large blocks (base_advise_huge, base_map_huge and
 * the allocation wrappers): which mappings carry the kernel's "hg" flag afterwards, read
 * back from /proc/self/smaps, and that a hinted block stays one mapping
 * that realloc can grow. Skipped where the kernel has no transparent huge
 * pages (the probe's madvise fails) or smaps cannot be read. */
#include <stdio.h>
#include <sys/mman.h>

#include "base/base.h"
#include "check.h"

typedef struct vma {
  uintptr_t start, end;
  int huge; /* VmFlags has "hg" */
} vma;

/* The mapping that holds `p`; 0 if smaps has none or cannot be read. */
static int vma_of(const void *p, vma *out) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return 0;
  char line[512];
  int found = 0;
  uintptr_t at = (uintptr_t)p;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
      if (found) break; /* the next mapping: ours had no VmFlags line */
      found = at >= lo && at < hi;
      if (found) *out = (vma){lo, hi, 0};
      continue;
    }
    if (found && strncmp(line, "VmFlags:", 8) == 0) {
      out->huge = strstr(line, " hg") != NULL;
      break;
    }
  }
  fclose(f);
  return found;
}

/* Whether this kernel takes the hint at all. */
static int huge_hints_work(void) {
  size_t bytes = (size_t)8 << 20;
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 0;
  vma v;
  int ok = madvise(p, bytes, MADV_HUGEPAGE) == 0 && vma_of(p, &v);
  munmap(p, bytes);
  return ok;
}

/* A mapping of the floor's size or more is hinted whole, without being
 * split; a smaller one is left alone. */
static void test_mapping_hint(void) {
  size_t big = BASE_HUGE_MIN_BYTES, small = BASE_HUGE_MIN_BYTES / 2;
  char *a = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *b = mmap(NULL, small, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(a != MAP_FAILED && b != MAP_FAILED);
  base_advise_huge(a, big);
  base_advise_huge(b, small);
  vma va = {0}, vb = {0};
  CHECK(vma_of(a, &va) && vma_of(b, &vb));
  CHECK(va.huge);
  CHECK(va.start <= (uintptr_t)a && va.end >= (uintptr_t)a + big);
  CHECK(!vb.huge);
  munmap(a, big);
  munmap(b, small);
}

/* A large allocation is hinted, its whole span one mapping; grown by
 * realloc it keeps its bytes and its hint. */
static void test_allocation_hint(void) {
  size_t first = BASE_HUGE_MIN_BYTES, grown = 8 * BASE_HUGE_MIN_BYTES;
  unsigned char *p = base_malloc(first);
  CHECK(p != NULL);
  for (size_t i = 0; i < first; i += 4096) p[i] = (unsigned char)(i >> 12);
  vma v = {0};
  CHECK(vma_of(p, &v));
  CHECK(v.huge);
  CHECK(v.start <= (uintptr_t)p && v.end >= (uintptr_t)p + first);
  unsigned char *q = base_realloc(p, grown);
  CHECK(q != NULL);
  int same = 1;
  for (size_t i = 0; i < first; i += 4096) same &= q[i] == (unsigned char)(i >> 12);
  CHECK(same);
  memset(q + first, 7, grown - first);
  CHECK(vma_of(q, &v));
  CHECK(v.huge);
  CHECK(v.start <= (uintptr_t)q && v.end >= (uintptr_t)q + grown);
  base_free(q);
  unsigned char *z = base_calloc(grown / 8, 8);
  CHECK(z != NULL);
  CHECK(vma_of(z, &v) && v.huge);
  CHECK(z[0] == 0 && z[grown - 1] == 0);
  base_free(z);
}

/* base_map_huge: a 2 MiB-aligned, zeroed, hinted mapping of whole 2 MiB
 * units, whatever the size asked. */
static void test_huge_mapping(void) {
  size_t sizes[] = {1, BASE_HUGE_ALIGN, BASE_HUGE_ALIGN + 1, 3 * BASE_HUGE_ALIGN};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    unsigned char *p = base_map_huge(sizes[i]);
    CHECK(p != NULL);
    CHECK(((uintptr_t)p & (BASE_HUGE_ALIGN - 1)) == 0);
    size_t whole = (sizes[i] + BASE_HUGE_ALIGN - 1) / BASE_HUGE_ALIGN * BASE_HUGE_ALIGN;
    CHECK(p[0] == 0 && p[whole - 1] == 0);
    p[whole - 1] = 1;
    vma v = {0};
    CHECK(vma_of(p, &v));
    CHECK(v.huge);
    CHECK(v.start <= (uintptr_t)p && v.end >= (uintptr_t)p + whole);
    base_unmap_huge(p, sizes[i]);
  }
  base_alloc_fail_after(1);
  CHECK(base_map_huge(BASE_HUGE_ALIGN) == NULL);
  CHECK(base_map_huge(SIZE_MAX - 1) == NULL); /* no wrap to a small size */
}

int main(void) {
  if (!huge_hints_work()) {
    printf("skipped: no transparent huge pages or no /proc/self/smaps\n");
    return 0;
  }
  RUN_TEST(test_mapping_hint);
  RUN_TEST(test_allocation_hint);
  RUN_TEST(test_huge_mapping);
  return CHECK_SUMMARY();
}
