/* spill: decompressed archive members kept in an unlinked temporary file
 * instead of on the heap, so that the loader can give their pages back
 * while they wait to be parsed, as it does for stored members read in place
 * from their archive's mapping (core/input.h). A deflated archive then
 * needs about the memory of a stored one, not its inflated size more.
 *
 * Owns: one temporary file (created at the first spill, unlinked at once, so
 * nothing is left behind even after a crash) and its descriptor.
 * Invariants:
 *  - Never on tmpfs or ramfs: their pages are memory that only swap could
 *    free, so spilling there would hide the bytes from the process's RSS
 *    without saving anything. Such a directory turns spilling off.
 *  - The directory is $TMPDIR when set, else /var/tmp, else /tmp (the
 *    first of the two in which a file can be made). WEFT_SPILL=0 (read by
 *    the loader) turns spilling off.
 *  - Each spilled member starts at a page-aligned offset of the file and is
 *    mapped read-only on its own; the caller munmaps the mapping. Bytes once
 *    written are never rewritten, so every mapping stays valid until it is
 *    unmapped, even after spill_close.
 *  - Failure to create, write or map (a full disk, a read-only directory)
 *    is not an error: spill_member returns NULL and the caller keeps the
 *    bytes on the heap. After a failed create, spilling stays off. */
#ifndef WEFT_CORE_SPILL_H
#define WEFT_CORE_SPILL_H

#include <stddef.h>
#include <stdint.h>

typedef struct spill_file {
  int fd;          /* the unlinked file, or -1 */
  int state;       /* SPILL_UNTRIED, SPILL_OPEN or SPILL_OFF */
  int allocates;   /* open on a file system spill_reserve can use */
  uint64_t size;   /* bytes used, a multiple of the page size */
  const char *dir; /* NULL: $TMPDIR, /var/tmp, /tmp */
} spill_file;

enum { SPILL_UNTRIED, SPILL_OPEN, SPILL_OFF };

/* Members shorter than this stay on the heap (a mapping each is not worth
 * it for a manifest or a small JSON file). */
#define SPILL_MIN_BYTES ((size_t)64 << 10)

/* Spilling into `dir` (NULL: the default directories), or off when `enabled`
 * is 0. Creates nothing yet. */
void spill_init(spill_file *s, const char *dir, int enabled);
/* Writes len bytes to the file and maps them: returns the mapping (munmap
 * *map_len bytes of it) and sets *data to the first byte; NULL when spilling
 * is off or fails (nothing to free then). */
void *spill_member(spill_file *s, const uint8_t *bytes, size_t len,
                   const uint8_t **data, size_t *map_len);
/* Reserves len bytes at the end of the file, allocated on the disk at once
 * (so that filling them cannot meet a full disk, which through a mapping
 * would be a SIGBUS), and maps them writable: returns the mapping (munmap
 * *map_len bytes of it) with *data its first byte, to fill and then pass to
 * spill_seal; NULL when spilling is off, or when the file system is not
 * one whose allocation is known to hold for writes through a mapping
 * (ext2/3/4, xfs) or the allocation fails: spill_member still works then.
 * This saves spill_member's copy of bytes made only to be spilled. */
void *spill_reserve(spill_file *s, size_t len, uint8_t **data, size_t *map_len);
/* Makes a filled reservation read-only, like spill_member's mappings. */
void spill_seal(void *map, size_t map_len);
/* Closes the descriptor; existing mappings stay readable. */
void spill_close(spill_file *s);
/* 1 if the file system holding `fd` keeps its pages only in memory. */
int spill_fd_is_memory(int fd);

#endif
