/* loader: turns fed files into parsed tables.
 *
 * Owns the bytes of every input file until loading finishes (heap buffers
 * and read-only file mappings; importers that opt in give parsed chunks back
 * early, see import_input_hold). A file is
 * sniffed by content; containers are unpacked member by member in
 * processing order; trace files are tokenized into the sorter; at finish the
 * clock graph places every event in trace time and the sorted events are
 * parsed into the tables. */
#ifndef WEFT_LOADER_H
#define WEFT_LOADER_H

#include "model/context.h"

typedef struct loader loader;

int loader_create(loader **out, trace_context *ctx);
void loader_destroy(loader *l);
/* Takes ownership of `data` (allocated with base_malloc) in every case. */
int loader_add_file(loader *l, const char *name, uint8_t *data, size_t len,
                    base_error *err);
/* The same for a read-only mapping of a whole file (mmap of `len` bytes,
 * PROT_READ, MAP_PRIVATE): the loader munmaps it in every case, when loading
 * ends. Its bytes are read in place. */
int loader_add_mapped(loader *l, const char *name, void *map, size_t len,
                      base_error *err);
/* Scans ahead (core/scan.h) for plain files given one by one: queues a scan
 * of the bytes of a file that will be added later with loader_add_mapped,
 * so that it runs on a worker while earlier files load; for a gzip file
 * that its turn would inflate in one call, the job that inflates (and
 * spills and scans) it. Best effort: when the window is full, the format
 * has no scan, or memory runs out, the file is scanned in its turn.
 * loader_scan_forget drops such a scan (the file will not be added);
 * either must happen before the bytes are unmapped. */
void loader_scan_upcoming(loader *l, const uint8_t *data, size_t len);
void loader_scan_forget(loader *l, const uint8_t *data, size_t len);
/* 0 when WEFT_INPUT_MMAP=0 asks to read files into memory instead. */
int loader_maps_files(const loader *l);
/* A zip or tar input read straight from its file, block by block: the
 * archive is never held in memory, only its members (until loading ends).
 * The file is also mapped: stored (uncompressed) members are read in place
 * from the mapping instead of being copied. */
int loader_add_archive_path(loader *l, const char *name, const char *path,
                            uint64_t size, base_error *err);
int loader_finish(loader *l, base_error *err);
/* Events queued for the sorter and parsed so far (readable from another
 * thread while loading). */
/* The name of the only input of a load (its trace_file row's name is NULL,
 * as Perfetto leaves it), or NULL. */
const char *loader_single_input_name(const loader *l);
void loader_progress(const loader *l, uint64_t *queued, uint64_t *parsed);
/* Decompressed member bytes moved to the spill file (core/spill.h) so far
 * (readable from another thread while loading). */
uint64_t loader_spilled_bytes(const loader *l);
/* After loading: trace-time `ts` read on builtin clock `clock_id` of the
 * trace-time machine. 0, or -1 if that clock is not related. */
int loader_trace_time_to_clock(loader *l, uint64_t clock_id, int64_t ts,
                               int64_t *out);

#endif
