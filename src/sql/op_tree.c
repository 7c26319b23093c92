/* op_tree: sums over subtrees for the callstacks.* stdlib modules (see
 * stdlib_ops.h).
 *
 * __weft_tree_accumulate(tree) takes rows (id, parent_id, value) and
 * gives, for each row, its id and the sum of the values of its subtree:
 * its own value and its descendants' (a NULL value counts 0). Rows are
 * visited children first (Kahn's order from the leaves up), so the cost is
 * O(n log n) whatever the depth. The first row of a repeated id is the
 * node; a later one, and a row with a NULL id, are ignored. A parent_id
 * naming no row makes a root. A node on a cycle, or above one, never has
 * all its children done and is left out, as Perfetto's graph scan leaves
 * it. Sums saturate instead of overflowing. Rows come out in input order.
 */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "sql/stdlib_ops.h"

typedef struct tree_key {
  int64_t id;
  size_t row;
} tree_key;

static int tree_key_compare(const void *pa, const void *pb) {
  const tree_key *a = pa, *b = pb;
  if (a->id != b->id) return (a->id > b->id) - (a->id < b->id);
  return (a->row > b->row) - (a->row < b->row);
}

/* The row of the first node with `id` in keys (sorted by id, then row), or
 * SIZE_MAX. */
static size_t tree_row_of(const tree_key *keys, size_t n, int64_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (keys[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && keys[lo].id == id ? keys[lo].row : SIZE_MAX;
}

typedef struct tree_state {
  size_t *parent;   /* per row: its parent's row, or SIZE_MAX */
  size_t *pending;  /* per row: children not yet summed */
  int64_t *total;   /* per row: the sum so far */
  uint8_t *node;    /* per row: 1 unless a repeated id */
  uint8_t *done;
  size_t *queue;
} tree_state;

static void tree_state_free(tree_state *s) {
  free(s->parent), free(s->pending), free(s->total), free(s->node), free(s->done);
  free(s->queue);
}

/* Links each node row to its parent's row and counts its children. */
static int tree_link(const stdlib_rows *t, tree_state *s) {
  size_t n = t->count;
  tree_key *keys = malloc((n + 1) * sizeof *keys);
  if (!keys) return -1;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!stdlib_rows_is_null(t, i, 0)) keys[k++] = (tree_key){stdlib_rows_get(t, i, 0), i};
  base_qsort(keys, k, sizeof *keys, tree_key_compare);
  for (size_t i = 0; i < k; i++) s->node[keys[i].row] = i == 0 || keys[i - 1].id != keys[i].id;
  for (size_t i = 0; i < n; i++) {
    s->parent[i] = SIZE_MAX;
    s->total[i] = stdlib_rows_is_null(t, i, 2) ? 0 : stdlib_rows_get(t, i, 2);
    if (!s->node[i] || stdlib_rows_is_null(t, i, 1)) continue;
    s->parent[i] = tree_row_of(keys, k, stdlib_rows_get(t, i, 1));
    if (s->parent[i] != SIZE_MAX) s->pending[s->parent[i]]++;
  }
  free(keys);
  return 0;
}

/* Sums from the leaves up: a node is done when its children are. */
static void tree_sum(size_t n, tree_state *s) {
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < n; i++)
    if (s->node[i] && s->pending[i] == 0) s->queue[tail++] = i;
  while (head < tail) {
    size_t row = s->queue[head++];
    s->done[row] = 1;
    size_t up = s->parent[row];
    if (up == SIZE_MAX) continue;
    s->total[up] = stdlib_add_saturating(s->total[up], s->total[row]);
    if (--s->pending[up] == 0) s->queue[tail++] = up;
  }
}

static int tree_accumulate_compute(sqlite3_value **args, int count, stdlib_rows *out,
                                   char **errmsg) {
  const stdlib_rows *t = count > 0 ? stdlib_rows_arg(args[0]) : NULL;
  if (!t || (t->count && t->cols < 3)) {
    *errmsg = sqlite3_mprintf("tree_accumulate: needs (id, parent_id, value) rows");
    return -1;
  }
  size_t n = t->count;
  tree_state s = {0};
  s.parent = malloc((n + 1) * sizeof *s.parent);
  s.pending = calloc(n + 1, sizeof *s.pending);
  s.total = malloc((n + 1) * sizeof *s.total);
  s.node = calloc(n + 1, 1);
  s.done = calloc(n + 1, 1);
  s.queue = malloc((n + 1) * sizeof *s.queue);
  int rc = s.parent && s.pending && s.total && s.node && s.done && s.queue ? 0 : -1;
  if (rc == 0) rc = tree_link(t, &s);
  if (rc == 0) tree_sum(n, &s);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    if (!s.done[i]) continue;
    int64_t v[2] = {stdlib_rows_get(t, i, 0), s.total[i]};
    rc = stdlib_rows_push(out, v, NULL);
  }
  tree_state_free(&s);
  return rc;
}

static const stdlib_op_def tree_defs[] = {
    {"__weft_tree_accumulate", "id, cumulative", 2, 1, 1, tree_accumulate_compute},
};

int stdlib_ops_register_tree(sqlite3 *db) {
  int rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof tree_defs / sizeof *tree_defs; i++)
    rc = stdlib_op_register(db, &tree_defs[i]);
  return rc;
}
