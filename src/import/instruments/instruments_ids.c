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
 * newest value, and a lookup of another kind goes to the map.
 *
 * A slot is 8 bytes, the value in its high 60 bits (two's complement) and
 * the kind in its low 4, so a reference reads one word and the array is
 * half the size of (value, kind) pairs. A value that does not fit in 60
 * bits (say a time 2^59 ns or more) turns the slot into INS_IDS_IN_MAP:
 * that id's values, of every kind, are in the map from then on. */
#include <string.h>

#include "import/instruments/instruments_internal.h"

#define INS_IDS_SLACK ((uint64_t)1 << 16)
#define INS_IDS_IN_MAP 15u /* a slot's kind: look in the map */

/* Grows the array to cover id if the bound allows it; 0 when it covers
 * id (now or already), 1 when id stays out, <0 on allocation failure. */
static int ins_ids_cover(ins_ids *t, uint64_t id) {
  if (id < t->cap) return 0;
  if (id >= INS_IDS_SLACK + 2 * (uint64_t)t->count) return 1;
  size_t cap = t->cap ? t->cap : 1024;
  while (cap <= id) cap *= 2;
  uint64_t *slots = base_realloc(t->slots, cap * sizeof *slots);
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

/* The slot holding `value` of `kind`; 0 when the value needs more than 60
 * bits. */
static uint64_t ins_ids_slot(uint64_t value, uint32_t kind) {
  uint64_t slot = value << 4 | kind;
  return (uint64_t)((int64_t)slot >> 4) == value ? slot : 0;
}

int ins_ids_define(ins_ids *t, uint64_t id, uint32_t kind, uint64_t value) {
  t->count++;
  int rc = ins_ids_cover(t, id);
  if (rc < 0) return rc;
  if (rc == 0) {
    uint32_t slot_kind = (uint32_t)(t->slots[id] & 15);
    if (slot_kind == 0 || slot_kind == kind) {
      uint64_t slot = ins_ids_slot(value, kind);
      t->slots[id] = slot ? slot : INS_IDS_IN_MAP;
      if (slot) return WEFT_OK;
    }
  }
  uint64_t *slot;
  if (base_map_insert(&t->others, id << 4 | kind, value, &slot) < 0) return WEFT_ENOMEM;
  *slot = value; /* a repeated id takes the new value */
  return WEFT_OK;
}

int ins_ids_find(const ins_ids *t, uint64_t id, uint32_t kind, uint64_t *value) {
  if (id < t->cap && (t->slots[id] & 15) == kind) {
    *value = (uint64_t)((int64_t)t->slots[id] >> 4);
    return 1;
  }
  const uint64_t *v = base_map_find(&t->others, id << 4 | kind);
  if (v) *value = *v;
  return v != NULL;
}

void ins_ids_free(ins_ids *t) {
  base_free(t->slots);
  base_map_free(&t->others);
  memset(t, 0, sizeof *t);
}
