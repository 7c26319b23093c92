/* heap_graph: Java heap dumps (ART's HeapGraph packets) as the heap_graph,
 * heap_graph_object, heap_graph_class, heap_graph_reference,
 * heap_graph_primitive and heap_graph_object_data tables.
 *
 * A dump arrives as a run of packets on one sequence (keyed by the caller,
 * e.g. (trace file, sequence id)), ended by one whose `continued` is false.
 * Rules:
 *  - An object or class gets its row when first met: an object as an owner,
 *    a referent or a class loader (self_size -1 until defined), a class as
 *    an object's type or, at the end of the dump, as an interned type
 *    (types in id order). Rows carry the sequence's first (upid, ts); an
 *    object or root of another process or time is dropped and counted
 *    (heap_graph_non_finalized_graph).
 *  - Each object's references are contiguous rows from its reference_set_id
 *    (the reference table's size when the object came); a reference id 0 is
 *    a NULL referent; runtime-internal references are named
 *    "runtimeInternalObjects". Field names come from the object's field ids
 *    (named when that interned field name arrives), or for S+ dumps from the
 *    type's field ids walked up the superclass chain at the end of the dump
 *    ("Type name" strings split at the first space into type and name).
 *  - An object of self size 0 takes its type's object_size at the end.
 *  - Roots: objects on the zygote or boot-image heap are ROOT_VM_INTERNAL
 *    roots too; of several root types the first of sticky class, JNI
 *    global, JNI local wins, else the first given. Reachable = reached from
 *    a root through non-NULL references, except the referent of weak,
 *    finalizer and phantom references.
 *  - native_size: sun.misc.Cleaner objects (not yet cleaned: next is not
 *    itself) add their thunk's NativeAllocationRegistry size (low bit
 *    cleared) to their referent.
 *  - superclass_id: from the java.lang.Class.superClass reference of the
 *    static class objects, matched by (name, location).
 *  - Packet indexes must run 0, 1, 2...; a gap counts heap_graph_missing_packet
 *    and marks the dump truncated. Every dump gets a heap_graph row.
 *  - Deobfuscation (model_heap_graph_deobfuscate_*): classes whose package
 *    (from their location's /data/app path) is unknown or the mapping's get
 *    deobfuscated_name, arrays and java.lang.Class<> kept around the name;
 *    references of field "Class.member" get the member's name, qualified
 *    with the class's deobfuscated name unless it has a '.'. */
#ifndef WEFT_MODEL_HEAP_GRAPH_H
#define WEFT_MODEL_HEAP_GRAPH_H

#include "model/context.h"

typedef struct heap_graph_state heap_graph_state;
void heap_graph_state_free(heap_graph_state *s);

enum {
  HEAP_GRAPH_HEAP_UNKNOWN = 0,
  HEAP_GRAPH_HEAP_ZYGOTE = 2,
  HEAP_GRAPH_HEAP_BOOT_IMAGE = 3,
  HEAP_GRAPH_HEAP_TYPES = 4
};

/* One HeapGraphObject, its ids already resolved (id_delta applied, the
 * reference base added to non-zero referents). */
typedef struct heap_graph_object_in {
  uint64_t id, type_id, self_size;
  int heap_type; /* HeapGraphObject.HeapType */
  const uint64_t *field_ids;
  size_t field_count; /* 0 or ref_count */
  const uint64_t *refs;
  size_t ref_count;
  const uint64_t *internal_refs;
  size_t internal_count;
  int has_nar_size;
  int64_t nar_size;
  int has_bitmap_id, has_bitmap_source_id, has_bitmap_width, has_bitmap_height;
  int64_t bitmap_id, bitmap_source_id, bitmap_width, bitmap_height;
} heap_graph_object_in;

typedef struct heap_graph_type_in {
  uint64_t id;
  string_id name;
  int has_location;
  uint64_t location_id;
  uint64_t object_size, superclass_id, classloader_id;
  int kind; /* HeapGraphType.Kind */
  const uint64_t *field_ids;
  size_t field_count;
} heap_graph_type_in;

/* The last object id and heap type of a sequence (for id_delta and
 * heap_type_delta). */
void model_heap_graph_last(trace_context *ctx, uint64_t seq, uint64_t *object_id,
                           int *heap_type);
/* Starts a packet of a sequence (stats are scoped to machine and trace)
 * with its index. */
int model_heap_graph_packet_index(trace_context *ctx, uint64_t seq, uint32_t machine,
                                  uint32_t trace, uint64_t index);
int model_heap_graph_heap_size(trace_context *ctx, uint64_t seq, int64_t size);
int model_heap_graph_object(trace_context *ctx, uint64_t seq, uint32_t upid, int64_t ts,
                            const heap_graph_object_in *obj);
int model_heap_graph_type(trace_context *ctx, uint64_t seq, const heap_graph_type_in *type);
int model_heap_graph_field_name(trace_context *ctx, uint64_t seq, uint64_t iid,
                                const char *s, size_t len);
int model_heap_graph_location(trace_context *ctx, uint64_t seq, uint64_t iid,
                              const char *s, size_t len);
int model_heap_graph_root(trace_context *ctx, uint64_t seq, uint32_t upid, int64_t ts,
                          int root_type, const uint64_t *ids, size_t count);
/* Counts a malformed packet of the process. */
int model_heap_graph_malformed(trace_context *ctx, uint64_t seq, uint32_t upid);
/* Ends the dump of a sequence: writes what needs all of it. */
int model_heap_graph_finalize(trace_context *ctx, uint64_t seq);
/* Ends every dump still open (counting heap_graph_non_finalized_graph). */
int model_heap_graph_finalize_all(trace_context *ctx);

/* Deobfuscation, between begin (indexes the classes and references so far)
 * and end: a class of a mapping (package of 0 length: none), and one of its
 * members ("Class.member" and its fully qualified name). */
int model_heap_graph_deobfuscate_begin(trace_context *ctx);
void model_heap_graph_deobfuscate_end(trace_context *ctx);
int model_heap_graph_deobfuscate_class(trace_context *ctx, const char *package,
                                       size_t package_len, const char *obfuscated,
                                       size_t obfuscated_len, const char *name,
                                       size_t name_len);
int model_heap_graph_deobfuscate_field(trace_context *ctx, const char *obfuscated,
                                       size_t obfuscated_len, const char *name,
                                       size_t name_len);

/* ---- ART process metadata (model/heap_graph_oome.c) ---- */

/* One frame of a Java stack as ART gives it. */
typedef struct heap_graph_java_frame {
  string_id method, file; /* file STRING_NULL: none */
  int64_t line;           /* -1: none */
} heap_graph_java_frame;

/* An ArtProcessMetadata packet: a heap_graph row of the process at ts,
 * dump_reason "OOME" when is_oome, with a
 * __intrinsic_heap_graph_java_oome_details row; the failing thread's stack
 * (frames innermost first; has_stack) becomes a heap_graph_thread_callsite
 * row: frames on the dummy mapping "art_process_metadata" interned by
 * (method, file, line) with a symbol each, called outermost first. */
typedef struct heap_graph_art_metadata {
  int64_t ts;
  uint32_t upid, utid;
  int is_oome, has_stack;
  int64_t allocation_size, total_bytes_free, free_bytes_until_oom;
  string_id error_msg;
  const heap_graph_java_frame *frames;
  size_t frame_count;
} heap_graph_art_metadata;

int model_heap_graph_art_metadata(trace_context *ctx, const heap_graph_art_metadata *m);

/* The package of an APK path (/data/app/[~~x/]pkg-y/...), or 0. */
int heap_graph_package_from_location(const char *loc, size_t len, const char **pkg,
                                     size_t *pkg_len);

#endif
