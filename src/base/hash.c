/* Hashing, the u64 map and the string pool. */
#include "base.h"

#define MAP_EMPTY UINT64_MAX

static inline uint64_t hash_load_le(const unsigned char *p, size_t n) {
  uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(&w, p, n);
#else
  for (size_t i = n; i-- > 0;) w = w << 8 | p[i];
#endif
  return w;
}

static inline uint64_t hash_fold(uint64_t h, uint64_t w) {
  h ^= w * 0x87c37b91114253d5ULL;
  return (h << 31 | h >> 33) * 0x4cf5ad432745937fULL;
}

/* Eight bytes at a time: each little-endian word is multiplied, rotated and
 * folded in; the tail is read as one zero-padded word; the length is mixed
 * in so prefixes of zeros differ; base_hash_u64 finishes. */
uint64_t base_hash_bytes(const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)len * 0xff51afd7ed558ccdULL);
  size_t n = len;
  for (; n >= 8; n -= 8, p += 8) h = hash_fold(h, hash_load_le(p, 8));
  if (n) h = hash_fold(h, hash_load_le(p, n));
  return base_hash_u64(h);
}

uint64_t *base_map_find(const base_map *m, uint64_t key) {
  if (!m->cap || key == MAP_EMPTY) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = base_hash_u64(key) & mask;; i = (i + 1) & mask) {
    base_map_slot *s = &m->slots[i];
    if (s->key == key) return &s->value;
    if (s->key == MAP_EMPTY) return NULL;
  }
}

static int map_grow(base_map *m) {
  size_t new_cap = m->cap ? m->cap * 2 : 16;
  base_map_slot *slots = base_malloc(new_cap * sizeof *slots);
  if (!slots) return WEFT_ENOMEM;
  for (size_t i = 0; i < new_cap; i++) slots[i].key = MAP_EMPTY;
  size_t mask = new_cap - 1;
  for (size_t j = 0; j < m->cap; j++) {
    if (m->slots[j].key == MAP_EMPTY) continue;
    size_t i = base_hash_u64(m->slots[j].key) & mask;
    while (slots[i].key != MAP_EMPTY) i = (i + 1) & mask;
    slots[i] = m->slots[j];
  }
  base_free(m->slots);
  m->slots = slots;
  m->cap = new_cap;
  return WEFT_OK;
}

int base_map_insert(base_map *m, uint64_t key, uint64_t value,
                    uint64_t **slot) {
  if (key == MAP_EMPTY) return WEFT_EINVAL;
  if ((m->count + 1) * 4 > m->cap * 3) {
    int rc = map_grow(m);
    if (rc) return rc;
  }
  size_t mask = m->cap - 1;
  size_t i = base_hash_u64(key) & mask;
  for (; m->slots[i].key != MAP_EMPTY; i = (i + 1) & mask) {
    if (m->slots[i].key == key) {
      if (slot) *slot = &m->slots[i].value;
      return 0;
    }
  }
  m->slots[i] = (base_map_slot){key, value};
  m->count++;
  if (slot) *slot = &m->slots[i].value;
  return 1;
}

void base_map_free(base_map *m) {
  base_free(m->slots);
  memset(m, 0, sizeof *m);
}

/* ---- string pool ---- */

static int pool_add_raw(base_string_pool *p, const char *s, size_t len) {
  char *copy = base_arena_alloc(&p->bytes, len + 1);
  if (!copy) return WEFT_ENOMEM;
  if (len) memcpy(copy, s, len);
  copy[len] = '\0';
  if (VEC_PUSH(p->strings, copy)) return WEFT_ENOMEM;
  if (VEC_PUSH(p->lengths, (uint32_t)len)) {
    p->strings.len--;
    return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

int base_string_pool_init(base_string_pool *p) {
  memset(p, 0, sizeof *p);
  base_arena_init(&p->bytes, 256 * 1024);
  /* id 0: NULL (stored as "" so get() never sees garbage), id 1: "". */
  if (VEC_PUSH(p->strings, "") || VEC_PUSH(p->lengths, 0u)) {
    base_string_pool_free(p);
    return WEFT_ENOMEM;
  }
  string_id empty;
  int rc = base_string_pool_intern(p, "", 0, &empty);
  if (rc) base_string_pool_free(p);
  return rc;
}

void base_string_pool_free(base_string_pool *p) {
  base_arena_free(&p->bytes);
  VEC_FREE(p->strings);
  VEC_FREE(p->lengths);
  base_free(p->slots);
  p->slots = NULL;
  p->slot_cap = 0;
  base_free(p->recent);
  p->recent = NULL;
}

static int pool_rehash(base_string_pool *p) {
  size_t new_cap = p->slot_cap ? p->slot_cap * 2 : 1024;
  uint32_t *slots = base_calloc(new_cap, sizeof *slots);
  if (!slots) return WEFT_ENOMEM;
  size_t mask = new_cap - 1;
  for (size_t id = 1; id < p->strings.len; id++) {
    size_t i = base_hash_bytes(p->strings.data[id], p->lengths.data[id]) & mask;
    while (slots[i]) i = (i + 1) & mask;
    slots[i] = (uint32_t)id;
  }
  base_free(p->slots);
  p->slots = slots;
  p->slot_cap = new_cap;
  return WEFT_OK;
}

static size_t pool_probe(const base_string_pool *p, const char *s, size_t len,
                         uint64_t hash) {
  size_t mask = p->slot_cap - 1;
  size_t i = hash & mask;
  for (;; i = (i + 1) & mask) {
    uint32_t id = p->slots[i];
    if (!id) return i;
    if (p->lengths.data[id] == len && memcmp(p->strings.data[id], s, len) == 0)
      return i;
  }
}

string_id base_string_pool_find(const base_string_pool *p, const char *s,
                                size_t len) {
  if (!p->slot_cap) return STRING_NULL;
  return p->slots[pool_probe(p, s, len, base_hash_bytes(s, len))];
}

/* 8,192 entries (256 KiB): a merge of hundreds of machines interns
 * thousands of distinct names, comms and keys over and over, more than a
 * memo of a thousand entries holds. */
#define POOL_RECENT_BITS 13
#define POOL_RECENT_BYTES 24

/* A memo entry: string `id` of `len` bytes, whose first bytes (up to
 * POOL_RECENT_BYTES) are `head`; id 0: empty entry. */
struct base_pool_recent {
  uint32_t id, len;
  char head[POOL_RECENT_BYTES];
};

static int pool_intern_lookup(base_string_pool *p, const char *s, size_t len,
                              string_id *out);

/* The `recent` slot of a string: a hash of its length and its first and
 * last eight bytes (cheaper than base_hash_bytes over all of it). */
static size_t pool_recent_slot(const char *s, size_t len) {
  uint64_t head = 0, tail = 0;
  if (len >= 8) {
    memcpy(&head, s, 8);
    memcpy(&tail, s + len - 8, 8);
  } else {
    for (size_t i = 0; i < len; i++) head = head << 8 | (unsigned char)s[i];
  }
  uint64_t h = (head ^ (tail * 0x9e3779b97f4a7c15ULL) ^ len) * 0xff51afd7ed558ccdULL;
  return (size_t)(h >> (64 - POOL_RECENT_BITS));
}

/* Whether memo entry r holds s[0, len): its head, then (for a long string
 * only) the rest from the pool. */
static int pool_recent_holds(const base_string_pool *p, const struct base_pool_recent *r,
                             const char *s, size_t len) {
  if (!r->id || r->len != len) return 0;
  size_t head = len < POOL_RECENT_BYTES ? len : POOL_RECENT_BYTES;
  if (!base_equal_short(r->head, s, head)) return 0;
  return len == head ||
         memcmp(p->strings.data[r->id] + head, s + head, len - head) == 0;
}

int base_string_pool_intern(base_string_pool *p, const char *s, size_t len,
                            string_id *out) {
  if (!p->recent) p->recent = base_calloc((size_t)1 << POOL_RECENT_BITS, sizeof *p->recent);
  struct base_pool_recent *r = p->recent ? &p->recent[pool_recent_slot(s, len)] : NULL;
  if (r && pool_recent_holds(p, r, s, len)) {
    *out = r->id;
    return WEFT_OK;
  }
  int rc = pool_intern_lookup(p, s, len, out);
  if (!rc && r) {
    r->id = *out;
    r->len = (uint32_t)len;
    memcpy(r->head, s, len < POOL_RECENT_BYTES ? len : POOL_RECENT_BYTES);
  }
  return rc;
}

/* base_string_pool_intern without the memo. */
static int pool_intern_lookup(base_string_pool *p, const char *s, size_t len,
                              string_id *out) {
  if (len > UINT32_MAX || p->strings.len >= UINT32_MAX) return WEFT_ELIMIT;
  if ((p->strings.len + 1) * 2 > p->slot_cap) {
    int rc = pool_rehash(p);
    if (rc) return rc;
  }
  size_t slot = pool_probe(p, s, len, base_hash_bytes(s, len));
  if (p->slots[slot]) {
    *out = p->slots[slot];
    return WEFT_OK;
  }
  int rc = pool_add_raw(p, s, len);
  if (rc) return rc;
  p->slots[slot] = (uint32_t)(p->strings.len - 1);
  *out = p->slots[slot];
  return WEFT_OK;
}
