/* Symbols of stack_profile frames from ModuleSymbols packets. See
 * model/stack_profile.h.
 *
 * A module is named by path and build id: every mapping with both is
 * one of its loads. An address's lines become a new symbol set (line
 * numbers only where a source file is given) that every frame of those
 * mappings at that rel_pc takes. */
#include <stdlib.h>

#include "model/context.h"
#include "model/stack_profile.h"

typedef struct spz_mapping {
  string_id build_id, name;
  uint32_t row;
} spz_mapping;

typedef struct spz_frame {
  int64_t mapping, rel_pc;
  uint32_t row;
} spz_frame;

struct stack_profile_symbolizer {
  spz_mapping *mappings; /* sorted by (build_id, name, row) */
  spz_frame *frames;     /* sorted by (mapping, rel_pc, row) */
  size_t mapping_count, frame_count;
  size_t first, count; /* the selected module's mappings */
};

static int spz_cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int spz_mapping_cmp(const void *pa, const void *pb) {
  const spz_mapping *a = pa, *b = pb;
  int c = spz_cmp_i64(a->build_id, b->build_id);
  if (!c) c = spz_cmp_i64(a->name, b->name);
  return c ? c : spz_cmp_i64(a->row, b->row);
}

static int spz_frame_cmp(const void *pa, const void *pb) {
  const spz_frame *a = pa, *b = pb;
  int c = spz_cmp_i64(a->mapping, b->mapping);
  if (!c) c = spz_cmp_i64(a->rel_pc, b->rel_pc);
  return c ? c : spz_cmp_i64(a->row, b->row);
}

void stack_profile_symbolizer_free(stack_profile_symbolizer *z) {
  if (!z) return;
  base_free(z->mappings);
  base_free(z->frames);
  base_free(z);
}

int stack_profile_symbolizer_new(trace_context *ctx, stack_profile_symbolizer **out) {
  const storage_table *maps = ctx_table(ctx, TABLE_STACK_PROFILE_MAPPING);
  const storage_table *frames = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  stack_profile_symbolizer *z = *out = base_calloc(1, sizeof *z);
  if (!z) return WEFT_ENOMEM;
  z->mappings = base_calloc(maps->row_count + 1, sizeof(spz_mapping));
  z->frames = base_calloc(frames->row_count + 1, sizeof(spz_frame));
  if (!z->mappings || !z->frames) return WEFT_ENOMEM;
  z->mapping_count = maps->row_count;
  z->frame_count = frames->row_count;
  for (uint32_t row = 0; row < z->mapping_count; row++)
    z->mappings[row] = (spz_mapping){storage_get_str(maps, STACK_PROFILE_MAPPING_build_id, row),
                                     storage_get_str(maps, STACK_PROFILE_MAPPING_name, row), row};
  for (uint32_t row = 0; row < z->frame_count; row++)
    z->frames[row] = (spz_frame){storage_get_i64(frames, STACK_PROFILE_FRAME_mapping, row),
                                 storage_get_i64(frames, STACK_PROFILE_FRAME_rel_pc, row), row};
  qsort(z->mappings, z->mapping_count, sizeof(spz_mapping), spz_mapping_cmp);
  qsort(z->frames, z->frame_count, sizeof(spz_frame), spz_frame_cmp);
  return WEFT_OK;
}

size_t stack_profile_symbolize_module(trace_context *ctx, stack_profile_symbolizer *z,
                                      string_id path, string_id build_id) {
  (void)ctx;
  spz_mapping key = {build_id, path, 0};
  size_t lo = 0, hi = z->mapping_count;
  while (lo < hi) { /* the first mapping not before the module */
    size_t mid = lo + (hi - lo) / 2;
    if (spz_mapping_cmp(&z->mappings[mid], &key) < 0) lo = mid + 1;
    else hi = mid;
  }
  z->first = lo;
  for (z->count = 0; lo + z->count < z->mapping_count; z->count++) {
    const spz_mapping *m = &z->mappings[lo + z->count];
    if (m->build_id != build_id || m->name != path) break;
  }
  return z->count;
}

/* The index of the first frame at (mapping, rel_pc) or after. */
static size_t spz_first_frame(const stack_profile_symbolizer *z, int64_t mapping, int64_t rel_pc) {
  spz_frame key = {mapping, rel_pc, 0};
  size_t lo = 0, hi = z->frame_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (spz_frame_cmp(&z->frames[mid], &key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int spz_append_set(trace_context *ctx, const stack_profile_symbol_line *lines, size_t n,
                          int64_t *set) {
  storage_table *sym = ctx_table(ctx, TABLE_STACK_PROFILE_SYMBOL);
  *set = (int64_t)sym->row_count;
  for (size_t i = 0; i < n; i++) {
    uint32_t row;
    int rc = storage_table_append(sym, &row);
    if (rc) return rc;
    storage_set_i64(sym, STACK_PROFILE_SYMBOL_symbol_set_id, row, *set);
    storage_set_str(sym, STACK_PROFILE_SYMBOL_name, row, lines[i].function);
    storage_set_str(sym, STACK_PROFILE_SYMBOL_source_file, row, lines[i].file);
    if (lines[i].line >= 0 && lines[i].file != STRING_NULL)
      storage_set_i64(sym, STACK_PROFILE_SYMBOL_line_number, row, lines[i].line);
  }
  return storage_table_status(sym);
}

int stack_profile_symbolize_address(trace_context *ctx, stack_profile_symbolizer *z,
                                    int64_t address, const stack_profile_symbol_line *lines,
                                    size_t n, size_t *frames) {
  *frames = 0;
  if (!n) return WEFT_OK;
  int64_t set;
  int rc = spz_append_set(ctx, lines, n, &set);
  storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  for (size_t m = 0; !rc && m < z->count; m++) {
    int64_t mapping = z->mappings[z->first + m].row;
    for (size_t i = spz_first_frame(z, mapping, address);
         i < z->frame_count && z->frames[i].mapping == mapping && z->frames[i].rel_pc == address;
         i++, (*frames)++)
      storage_set_i64(t, STACK_PROFILE_FRAME_symbol_set_id, z->frames[i].row, set);
  }
  return rc ? rc : storage_table_status(t);
}
