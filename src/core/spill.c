/* spill: decompressed members in an unlinked temporary file (see spill.h). */
#include "core/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/input.h"

#define SPILL_TMPFS_MAGIC 0x01021994u
#define SPILL_RAMFS_MAGIC 0x858458f6u
#define SPILL_EXT_MAGIC 0xef53u
#define SPILL_XFS_MAGIC 0x58465342u

int spill_fd_is_memory(int fd) {
  struct statfs st;
  if (fstatfs(fd, &st) != 0) return 1; /* unknown: do not spill there */
  uint32_t type = (uint32_t)st.f_type; /* f_type may be a signed 32-bit word */
  return type == SPILL_TMPFS_MAGIC || type == SPILL_RAMFS_MAGIC;
}

void spill_init(spill_file *s, const char *dir, int enabled) {
  s->fd = -1;
  s->allocates = 0;
  s->state = enabled ? SPILL_UNTRIED : SPILL_OFF;
  s->size = 0;
  s->dir = dir;
}

/* An unlinked read-write file in dir on a disk-backed file system, or -1. */
static int spill_create_in(const char *dir) {
  if (!dir || !dir[0]) return -1;
  int fd = -1;
#ifdef O_TMPFILE
  fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd < 0) {
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/weft-spill-XXXXXX", dir);
    if (n < 0 || (size_t)n >= sizeof path) return -1;
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) return -1;
    unlink(path);
  }
  if (spill_fd_is_memory(fd)) {
    close(fd);
    return -1;
  }
  return fd;
}

/* TMPDIR, when set, is the only choice (on tmpfs that means no spilling,
 * rather than spilling elsewhere against the user's choice); otherwise
 * /var/tmp, then /tmp. */
static int spill_create(const spill_file *s) {
  if (s->dir) return spill_create_in(s->dir);
  const char *env = getenv("TMPDIR");
  if (env && env[0]) return spill_create_in(env);
  int fd = spill_create_in("/var/tmp");
  return fd >= 0 ? fd : spill_create_in("/tmp");
}

/* 1 if fallocate on `fd` reserves blocks that writes through a shared
 * mapping then fill without allocating (no copy-on-write file system). */
static int spill_fd_allocates(int fd) {
  struct statfs st;
  if (fstatfs(fd, &st) != 0) return 0;
  uint32_t type = (uint32_t)st.f_type;
  return type == SPILL_EXT_MAGIC || type == SPILL_XFS_MAGIC;
}

static int spill_open(spill_file *s) {
  if (s->state == SPILL_UNTRIED) {
    s->fd = spill_create(s);
    s->state = s->fd >= 0 ? SPILL_OPEN : SPILL_OFF;
    s->allocates = s->fd >= 0 && spill_fd_allocates(s->fd);
  }
  return s->state == SPILL_OPEN;
}

/* pwrite of all len bytes at off; 0 on success. */
static int spill_write_all(int fd, const uint8_t *bytes, size_t len, uint64_t off) {
  while (len) {
    size_t step = len > ((size_t)1 << 30) ? (size_t)1 << 30 : len;
    ssize_t n = pwrite(fd, bytes, step, (off_t)off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    bytes += n;
    len -= (size_t)n;
    off += (uint64_t)n;
  }
  return 0;
}

void *spill_member(spill_file *s, const uint8_t *bytes, size_t len,
                   const uint8_t **data, size_t *map_len) {
  if (len == 0 || !spill_open(s)) return NULL;
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  if (page == 0 || (uint64_t)len > INT64_MAX - page - s->size) return NULL;
  uint64_t off = s->size;
  if (spill_write_all(s->fd, bytes, len, off) != 0) return NULL;
  /* Written: the range is used even if mapping fails (never rewritten). */
  s->size = (off + len + page - 1) / page * page;
  return input_map_range(s->fd, off, len, data, map_len);
}

void *spill_reserve(spill_file *s, size_t len, uint8_t **data, size_t *map_len) {
  if (len == 0 || !spill_open(s) || !s->allocates) return NULL;
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  if (page == 0 || (uint64_t)len > INT64_MAX - page - s->size || len > SIZE_MAX - page)
    return NULL;
  uint64_t off = s->size;
  size_t total = (size_t)((len + page - 1) / page * page);
  if (fallocate(s->fd, 0, (off_t)off, (off_t)total) != 0) return NULL;
  /* Allocated: the range is used even if mapping fails (never rewritten). */
  s->size = off + total;
  void *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)off);
  if (map == MAP_FAILED) return NULL;
  (void)madvise(map, total, MADV_NOHUGEPAGE); /* advisory: fine if refused */
  *data = map;
  *map_len = total;
  return map;
}

void spill_seal(void *map, size_t map_len) { (void)mprotect(map, map_len, PROT_READ); }

void spill_close(spill_file *s) {
  if (s->fd >= 0) close(s->fd);
  s->fd = -1;
  if (s->state == SPILL_OPEN) s->state = SPILL_OFF;
}
