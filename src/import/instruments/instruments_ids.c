/* instruments: the values an export defines by id (see
 * instruments_internal.h).
 *
 * xctrace numbers the ids of a document 1, 2, 3, ... in order, so most ids
 * index a plain array: one load per ref, no hashing. The array covers ids
 * below a bound that grows with the definitions read (INS_IDS_SLACK more
 * than twice their count), so a hostile id (say 10^15) cannot make it
 * large; such an id, and an id defined again with another kind, go to a
 * hash map keyed by (id, kind). A slot's kind is set once: from then on
 * every definition of (id, kind) goes to the slot, so the slot holds the
 * newest value, and a lookup of another kind goes to the map. */
#include <string.h>

#include "import/instruments/instruments_internal.h"

#define INS_IDS_SLACK ((uint64_t)1 << 16)

/* Grows the array to cover id if the bound allows it; 0 when it covers
 * id (now or already), 1 when id stays out, <0 on allocation failure. */
static int ins_ids_cover(ins_ids *t, uint64_t id) {
  if (id < t->cap) return 0;
  if (id >= INS_IDS_SLACK + 2 * (uint64_t)t->count) return 1;
  size_t cap = t->cap ? t->cap : 1024;
  while (cap <= id) cap *= 2;
  ins_id_slot *slots = base_realloc(t->slots, cap * sizeof *slots);
  if (!slots) return WEFT_ENOMEM;
  memset(slots + t->cap, 0, (cap - t->cap) * sizeof *slots);
  t->slots = slots;
  t->cap = cap;
  return 0;
}

int ins_ids_reserve(ins_ids *t, size_t n) {
  if (t->cap || n == 0) return WEFT_OK;
  t->slots = base_calloc(n, sizeof *t->slots); /* fresh pages: zero, untouched till used */
  if (!t->slots) return WEFT_ENOMEM;
  t->cap = n;
  return WEFT_OK;
}

int ins_ids_define(ins_ids *t, uint64_t id, uint32_t kind, uint64_t value) {
  t->count++;
  int rc = ins_ids_cover(t, id);
  if (rc < 0) return rc;
  if (rc == 0 && (t->slots[id].kind == 0 || t->slots[id].kind == kind)) {
    t->slots[id] = (ins_id_slot){value, kind};
    return WEFT_OK;
  }
  uint64_t *slot;
  if (base_map_insert(&t->others, id << 4 | kind, value, &slot) < 0) return WEFT_ENOMEM;
  *slot = value; /* a repeated id takes the new value */
  return WEFT_OK;
}

const uint64_t *ins_ids_find(const ins_ids *t, uint64_t id, uint32_t kind) {
  if (id < t->cap && t->slots[id].kind == kind) return &t->slots[id].value;
  return base_map_find(&t->others, id << 4 | kind);
}

void ins_ids_free(ins_ids *t) {
  base_free(t->slots);
  base_map_free(&t->others);
  memset(t, 0, sizeof *t);
}
