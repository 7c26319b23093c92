/* track_compressor: see track_compressor.h for the rules. Sets are small (a
 * few tracks), so slots are searched linearly, in creation order. */
#include "model/track_compressor.h"

#include <assert.h>

static int track_compressor_set_of(track_compressor *c, uint64_t key, uint32_t *set) {
  uint64_t *slot;
  int inserted = base_map_insert(&c->set_by_key, key, c->sets.len, &slot);
  if (inserted < 0) return WEFT_ENOMEM;
  if (inserted) {
    track_compressor_set empty = {{NULL, 0, 0}};
    if (VEC_PUSH(c->sets, empty)) return WEFT_ENOMEM;
  }
  *set = (uint32_t)*slot;
  assert(*set < c->sets.len);
  return WEFT_OK;
}

/* The slot holding `cookie`, else the first free one (which takes the
 * cookie), else a new one. */
static int track_compressor_slot_for(track_compressor_set *s, int64_t cookie, uint32_t *out) {
  for (size_t i = 0; i < s->slots.len; i++) {
    if (!s->slots.data[i].scoped && s->slots.data[i].cookie == cookie) {
      *out = (uint32_t)i;
      return WEFT_OK;
    }
  }
  for (size_t i = 0; i < s->slots.len; i++) {
    if (!s->slots.data[i].scoped && s->slots.data[i].nest == 0) {
      s->slots.data[i].cookie = cookie;
      *out = (uint32_t)i;
      return WEFT_OK;
    }
  }
  track_compressor_slot fresh = {cookie, 0, TRACK_COMPRESSOR_NO_TRACK, 0, 0};
  if (VEC_PUSH(s->slots, fresh)) return WEFT_ENOMEM;
  *out = (uint32_t)(s->slots.len - 1);
  return WEFT_OK;
}

int track_compressor_use(track_compressor *c, uint64_t set_key, int64_t cookie,
                         track_compressor_event ev, uint32_t *set, uint32_t *slot) {
  int rc = track_compressor_set_of(c, set_key, set);
  if (rc) return rc;
  track_compressor_set *s = &c->sets.data[*set];
  rc = track_compressor_slot_for(s, cookie, slot);
  if (rc) return rc;
  track_compressor_slot *sl = &s->slots.data[*slot];
  if (ev == TRACK_COMPRESSOR_BEGIN) sl->nest++;
  else if (ev == TRACK_COMPRESSOR_END && sl->nest > 0) sl->nest--;
  return WEFT_OK;
}

int track_compressor_use_scoped(track_compressor *c, uint64_t set_key, int64_t ts,
                                int64_t dur, uint32_t *set, uint32_t *slot) {
  int rc = track_compressor_set_of(c, set_key, set);
  if (rc) return rc;
  track_compressor_set *s = &c->sets.data[*set];
  for (size_t i = 0; i < s->slots.len; i++) {
    track_compressor_slot *sl = &s->slots.data[i];
    if (sl->scoped && sl->ts_end <= ts) {
      sl->ts_end = ts + dur;
      *slot = (uint32_t)i;
      return WEFT_OK;
    }
  }
  track_compressor_slot fresh = {0, 0, TRACK_COMPRESSOR_NO_TRACK, 1, ts + dur};
  if (VEC_PUSH(s->slots, fresh)) return WEFT_ENOMEM;
  *slot = (uint32_t)(s->slots.len - 1);
  return WEFT_OK;
}

uint32_t *track_compressor_track(track_compressor *c, uint32_t set, uint32_t slot) {
  assert(set < c->sets.len && slot < c->sets.data[set].slots.len);
  return &c->sets.data[set].slots.data[slot].track;
}

void track_compressor_free(track_compressor *c) {
  for (size_t i = 0; i < c->sets.len; i++) VEC_FREE(c->sets.data[i].slots);
  VEC_FREE(c->sets);
  base_map_free(&c->set_by_key);
}
