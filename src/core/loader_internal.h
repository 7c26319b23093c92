/* loader_internal: the parts of a loader, shared by its files only.
 *
 * loader.c processes inputs (sniff, manifest, tokenize), container.c walks
 * archives member by member, finish.c places clocks and parses. The loader
 * owns every input byte (blobs) until loading ends, the importer services
 * (core/import_host.h), the merge plan and the work queued ahead. */
#ifndef WEFT_LOADER_INTERNAL_H
#define WEFT_LOADER_INTERNAL_H

#include "core/ahead.h"
#include "core/import_host.h"
#include "core/loader.h"
#include "core/spill.h"
#include "manifest/plan.h"

/* Input bytes the loader owns: a heap buffer or a read-only file mapping. */
typedef struct loader_blob {
  uint8_t *heap; /* base_malloc'd, or NULL */
  void *map;     /* mmap'd, or NULL */
  size_t map_len;
} loader_blob;

struct loader {
  trace_context *ctx;
  import_host host;          /* sorter, clocks, tokenized files */
  merge_plan plan;           /* the manifest's rules */
  scan_ahead ahead;          /* worker pool and the jobs queued ahead */
  io_limits limits;
  VEC(loader_blob) blobs;    /* bytes kept until loading ends */
  spill_file spill;          /* decompressed members, when spilled */
  uint64_t spilled_bytes;    /* member bytes moved there (atomic: progress) */
  int map_inputs;            /* map files instead of reading them */
  int give_back;             /* give parsed bytes back (release_input) */
  int prepare;               /* importers decode events ahead (their prepare) */
  int64_t first_top_level;   /* trace_file id of the first input, or -1 */
  string_id single_name;     /* a lone input's name, once its row's is cleared */
  uint64_t head_hash;        /* FNV-1a of the first input's first 4 KiB */
  int has_head_hash;
  uint32_t top_level_count;
  uint64_t input_bytes;      /* top-level bytes fed so far */
  uint64_t expanded_bytes;   /* bytes unpacked from containers so far */
  int64_t parse_ns;          /* time spent adding inputs (Perfetto's Parse calls) */
};

/* Where a container's bytes are: in memory, or in a file read as it goes. */
typedef struct loader_source {
  const uint8_t *data;
  size_t len;
  const char *path;    /* set: read from this file (zip/tar) */
  const uint8_t *view; /* with path: the file mapped, or NULL */
  int fd;              /* with view: the file it maps */
} loader_source;

/* Processes one file: its trace_file row is `row` (made by its container),
 * or a new one when row < 0 (loader.c). */
int loader_process(loader *l, int64_t parent, int64_t row, const char *name,
                   const char *display, const uint8_t *data, size_t len,
                   int mapped, uint32_t depth, base_error *err);
/* Keeps bytes until loading ends; fails only for want of memory, leaving
 * them to the caller. */
int loader_keep_blob(loader *l, loader_blob blob);
/* Frees every blob (after the files: their holds unpoison the bytes). */
void loader_free_blobs(loader *l);
/* Decompressed bytes the whole input may still expand to. */
uint64_t loader_expand_budget(const loader *l);

/* Unpacks container `id` of `type` and processes its members in processing
 * order (container.c). */
int loader_container(loader *l, uint32_t id, io_trace_type type,
                     const char *display, const loader_source *src,
                     uint32_t depth, base_error *err);

/* Fills weft_placement, one row per trace file (core/placement.c): after
 * the parse, while the files' records exist. */
int placement_fill(loader *l);

#endif
