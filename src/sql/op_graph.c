/* op_graph: graph walks for the graphs.* stdlib modules (see stdlib_ops.h).
 *
 * Node ids are renumbered to 0..n-1 by sorting; a node's out-edges keep
 * their input order, which fixes the order of every walk:
 * - DFS visits a node's children in edge order, start nodes last-given
 *   first (a stack seeded with the start nodes in order);
 * - BFS emits the start nodes in order, then nodes as they are discovered;
 * - the dominator tree is listed in DFS preorder from the root (idoms by
 *   the iterative Cooper-Harvey-Kennedy method over reverse postorder);
 * - the weight-bounded DFS walks each root separately and ends that
 *   root's whole walk at the first node whose path weight passes the
 *   root's target (kept when the target is a floor, dropped when a
 *   ceiling); a root no edge touches gives no rows.
 * With no edges at all every walk gives no rows; a dominator tree's root
 * no edge touches is an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "sql/stdlib_ops.h"

typedef struct graph {
  size_t n;        /* nodes */
  int64_t *id;     /* sorted distinct node ids */
  size_t *off;     /* n + 1: out-edges of node v are adj[off[v]..off[v+1]) */
  size_t *adj;     /* destination node per edge */
  int64_t *weight; /* per edge, or NULL */
  uint8_t *in_edges; /* per node: 1 if some edge starts or ends there */
} graph;

static void graph_free(graph *g) {
  free(g->id);
  free(g->off);
  free(g->adj);
  free(g->weight);
  free(g->in_edges);
  memset(g, 0, sizeof *g);
}

static int graph_compare_i64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

static size_t graph_index(const graph *g, int64_t id) {
  size_t lo = 0, hi = g->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->id[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Node ids: the non-NULL cells of columns 0 and 1 of `edges` and column 0
 * of `extra` (may be NULL), sorted and deduplicated. */
static int graph_collect_ids(graph *g, const stdlib_rows *edges, const stdlib_rows *extra) {
  size_t cap = edges->count * 2 + (extra ? extra->count : 0) + 1;
  g->id = malloc(cap * sizeof *g->id);
  if (!g->id) return -1;
  size_t n = 0;
  for (size_t i = 0; i < edges->count; i++)
    for (int c = 0; c < 2; c++)
      if (!stdlib_rows_is_null(edges, i, c)) g->id[n++] = stdlib_rows_get(edges, i, c);
  for (size_t i = 0; extra && i < extra->count; i++)
    if (!stdlib_rows_is_null(extra, i, 0)) g->id[n++] = stdlib_rows_get(extra, i, 0);
  base_qsort(g->id, n, sizeof *g->id, graph_compare_i64);
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if (w == 0 || g->id[w - 1] != g->id[i]) g->id[w++] = g->id[i];
  g->n = w;
  return 0;
}

/* Builds the graph of `edges` rows (src, dst [, weight]); rows with a NULL
 * end are skipped. */
static int graph_build(graph *g, const stdlib_rows *edges, const stdlib_rows *extra,
                       int weighted) {
  memset(g, 0, sizeof *g);
  if (graph_collect_ids(g, edges, extra)) return -1;
  g->off = calloc(g->n + 1, sizeof *g->off);
  g->adj = malloc((edges->count + 1) * sizeof *g->adj);
  g->weight = weighted ? malloc((edges->count + 1) * sizeof *g->weight) : NULL;
  g->in_edges = calloc(g->n + 1, 1);
  if (!g->off || !g->adj || (weighted && !g->weight) || !g->in_edges) return -1;
  for (size_t i = 0; i < edges->count; i++)
    if (!stdlib_rows_is_null(edges, i, 0) && !stdlib_rows_is_null(edges, i, 1))
      g->off[graph_index(g, stdlib_rows_get(edges, i, 0)) + 1]++;
  for (size_t v = 0; v < g->n; v++) g->off[v + 1] += g->off[v];
  size_t *fill = malloc((g->n + 1) * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, g->off, (g->n + 1) * sizeof *fill);
  for (size_t i = 0; i < edges->count; i++) {
    if (stdlib_rows_is_null(edges, i, 0) || stdlib_rows_is_null(edges, i, 1)) continue;
    size_t src = graph_index(g, stdlib_rows_get(edges, i, 0));
    size_t at = fill[src]++;
    g->adj[at] = graph_index(g, stdlib_rows_get(edges, i, 1));
    g->in_edges[src] = g->in_edges[g->adj[at]] = 1;
    if (weighted) g->weight[at] = stdlib_rows_get(edges, i, 2);
  }
  free(fill);
  return 0;
}

/* A growable stack of (node, parent, weight) entries. */
typedef struct graph_entry {
  size_t node, parent; /* parent == SIZE_MAX: none */
  int64_t weight;
} graph_entry;

typedef struct graph_stack {
  graph_entry *at;
  size_t count, cap;
} graph_stack;

static int graph_stack_push(graph_stack *s, size_t node, size_t parent, int64_t weight) {
  if (s->count == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    graph_entry *p = realloc(s->at, cap * sizeof *p);
    if (!p) return -1;
    s->at = p;
    s->cap = cap;
  }
  s->at[s->count++] = (graph_entry){node, parent, weight};
  return 0;
}

static int graph_emit(stdlib_rows *out, const graph *g, int64_t first, size_t node,
                      size_t parent, int with_first) {
  int64_t v[3];
  uint8_t n[3] = {0, 0, 0};
  int c = 0;
  if (with_first) v[c++] = first;
  v[c++] = g->id[node];
  n[c] = parent == SIZE_MAX;
  v[c++] = parent == SIZE_MAX ? 0 : g->id[parent];
  return stdlib_rows_push(out, v, n);
}

static int graph_args(sqlite3_value **args, int count, int need, const stdlib_rows **rows,
                      const char *name, char **errmsg) {
  for (int i = 0; i < need; i++) {
    rows[i] = i < count ? stdlib_rows_arg(args[i]) : NULL;
    if (!rows[i] || (rows[i]->count && rows[i]->cols < (i == 0 ? 2 : 1))) {
      *errmsg = sqlite3_mprintf("%s: argument %d is not a suitable table", name, i);
      return -1;
    }
  }
  return 0;
}

/* ---- DFS / BFS ---- */

static int graph_dfs_walk(const graph *g, const stdlib_rows *starts, stdlib_rows *out) {
  uint8_t *seen = calloc(g->n + 1, 1);
  graph_stack stack = {0};
  int rc = seen ? 0 : -1;
  for (size_t i = 0; rc == 0 && i < starts->count; i++)
    if (!stdlib_rows_is_null(starts, i, 0))
      rc = graph_stack_push(&stack, graph_index(g, stdlib_rows_get(starts, i, 0)),
                            SIZE_MAX, 0);
  while (rc == 0 && stack.count) {
    graph_entry e = stack.at[--stack.count];
    if (seen[e.node]) continue;
    seen[e.node] = 1;
    rc = graph_emit(out, g, 0, e.node, e.parent, 0);
    for (size_t k = g->off[e.node + 1]; rc == 0 && k > g->off[e.node]; k--)
      if (!seen[g->adj[k - 1]]) rc = graph_stack_push(&stack, g->adj[k - 1], e.node, 0);
  }
  free(stack.at);
  free(seen);
  return rc;
}

static int graph_bfs_walk(const graph *g, const stdlib_rows *starts, stdlib_rows *out) {
  uint8_t *seen = calloc(g->n + 1, 1);
  size_t *queue = malloc((g->n + 1) * sizeof *queue);
  size_t head = 0, tail = 0;
  int rc = seen && queue ? 0 : -1;
  for (size_t i = 0; rc == 0 && i < starts->count; i++) {
    if (stdlib_rows_is_null(starts, i, 0)) continue;
    size_t v = graph_index(g, stdlib_rows_get(starts, i, 0));
    if (seen[v]) continue;
    seen[v] = 1;
    queue[tail++] = v;
    rc = graph_emit(out, g, 0, v, SIZE_MAX, 0);
  }
  while (rc == 0 && head < tail) {
    size_t v = queue[head++];
    for (size_t k = g->off[v]; rc == 0 && k < g->off[v + 1]; k++) {
      size_t w = g->adj[k];
      if (seen[w]) continue;
      seen[w] = 1;
      queue[tail++] = w;
      rc = graph_emit(out, g, 0, w, v, 0);
    }
  }
  free(queue);
  free(seen);
  return rc;
}

static int graph_search(sqlite3_value **args, int count, stdlib_rows *out,
                        char **errmsg, int breadth_first) {
  const stdlib_rows *in[2];
  if (graph_args(args, count, 2, in, breadth_first ? "graph_reachable_bfs"
                                                   : "graph_reachable_dfs", errmsg))
    return -1;
  if (in[0]->count == 0) return 0; /* no graph: nothing is reachable */
  graph g = {0};
  int rc = graph_build(&g, in[0], in[1], 0);
  if (rc == 0)
    rc = breadth_first ? graph_bfs_walk(&g, in[1], out) : graph_dfs_walk(&g, in[1], out);
  graph_free(&g);
  return rc;
}

static int graph_dfs_compute(sqlite3_value **args, int count, stdlib_rows *out,
                             char **errmsg) {
  return graph_search(args, count, out, errmsg, 0);
}

static int graph_bfs_compute(sqlite3_value **args, int count, stdlib_rows *out,
                             char **errmsg) {
  return graph_search(args, count, out, errmsg, 1);
}

/* ---- dominator tree ---- */

typedef struct dom_state {
  size_t *pre;      /* nodes in DFS preorder */
  size_t *post_num; /* node -> postorder number, SIZE_MAX if unreached */
  size_t *by_post;  /* postorder number -> node */
  size_t *idom;     /* node -> idom node, SIZE_MAX if none yet */
  size_t reached;
} dom_state;

/* Iterative DFS from `root` recording preorder and postorder. */
static int dom_order(const graph *g, size_t root, dom_state *d) {
  size_t *cursor = malloc((g->n + 1) * sizeof *cursor);
  size_t *stack = malloc((g->n + 1) * sizeof *stack);
  if (!cursor || !stack) {
    free(cursor);
    free(stack);
    return -1;
  }
  size_t depth = 0, pre = 0, post = 0;
  stack[depth++] = root;
  cursor[root] = g->off[root];
  d->post_num[root] = SIZE_MAX - 1; /* on the stack */
  d->pre[pre++] = root;
  while (depth) {
    size_t v = stack[depth - 1];
    if (cursor[v] < g->off[v + 1]) {
      size_t w = g->adj[cursor[v]++];
      if (d->post_num[w] != SIZE_MAX) continue;
      d->post_num[w] = SIZE_MAX - 1;
      cursor[w] = g->off[w];
      d->pre[pre++] = w;
      stack[depth++] = w;
      continue;
    }
    depth--;
    d->by_post[post] = v;
    d->post_num[v] = post++;
  }
  d->reached = pre;
  free(cursor);
  free(stack);
  return 0;
}

static size_t dom_meet(const dom_state *d, size_t a, size_t b) {
  while (a != b) {
    while (d->post_num[a] < d->post_num[b]) a = d->idom[a];
    while (d->post_num[b] < d->post_num[a]) b = d->idom[b];
  }
  return a;
}

/* Predecessor lists restricted to reached nodes, as CSR. */
static int dom_preds(const graph *g, const dom_state *d, size_t **off_out, size_t **pred_out) {
  size_t *off = calloc(g->n + 1, sizeof *off);
  size_t *pred = malloc((g->off[g->n] + 1) * sizeof *pred);
  size_t *fill = malloc((g->n + 1) * sizeof *fill);
  if (!off || !pred || !fill) {
    free(off), free(pred), free(fill);
    return -1;
  }
  for (size_t v = 0; v < g->n; v++)
    for (size_t k = g->off[v]; k < g->off[v + 1]; k++)
      if (d->post_num[v] != SIZE_MAX) off[g->adj[k] + 1]++;
  for (size_t v = 0; v < g->n; v++) off[v + 1] += off[v];
  memcpy(fill, off, (g->n + 1) * sizeof *fill);
  for (size_t v = 0; v < g->n; v++)
    for (size_t k = g->off[v]; k < g->off[v + 1]; k++)
      if (d->post_num[v] != SIZE_MAX) pred[fill[g->adj[k]]++] = v;
  free(fill);
  *off_out = off;
  *pred_out = pred;
  return 0;
}

static int dom_solve(const graph *g, size_t root, dom_state *d) {
  size_t *poff, *pred;
  if (dom_preds(g, d, &poff, &pred)) return -1;
  d->idom[root] = root;
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = d->reached; i-- > 0;) {
      size_t v = d->by_post[i];
      if (v == root) continue;
      size_t best = SIZE_MAX;
      for (size_t k = poff[v]; k < poff[v + 1]; k++) {
        size_t p = pred[k];
        if (d->idom[p] == SIZE_MAX) continue;
        best = best == SIZE_MAX ? p : dom_meet(d, p, best);
      }
      if (best != SIZE_MAX && d->idom[v] != best) d->idom[v] = best, changed = 1;
    }
  }
  free(poff);
  free(pred);
  return 0;
}

static int dom_compute(sqlite3_value **args, int count, stdlib_rows *out, char **errmsg) {
  const stdlib_rows *in[1];
  if (graph_args(args, count, 1, in, "graph_dominator_tree", errmsg)) return -1;
  if (count < 2 || sqlite3_value_type(args[1]) != SQLITE_INTEGER) {
    *errmsg = sqlite3_mprintf("graph_dominator_tree: root node id must be an integer");
    return -1;
  }
  int64_t root_id = sqlite3_value_int64(args[1]);
  if (in[0]->count == 0) return 0;
  stdlib_rows root_rows;
  stdlib_rows_init(&root_rows, 1);
  graph g = {0};
  int rc = stdlib_rows_push(&root_rows, &root_id, NULL);
  if (rc == 0) rc = graph_build(&g, in[0], &root_rows, 0);
  stdlib_rows_free(&root_rows);
  if (rc) {
    graph_free(&g);
    return rc;
  }
  dom_state d;
  size_t n = g.n + 1;
  d.pre = malloc(n * sizeof *d.pre);
  d.post_num = malloc(n * sizeof *d.post_num);
  d.by_post = malloc(n * sizeof *d.by_post);
  d.idom = malloc(n * sizeof *d.idom);
  rc = d.pre && d.post_num && d.by_post && d.idom ? 0 : -1;
  if (rc == 0) {
    for (size_t v = 0; v < n; v++) d.post_num[v] = SIZE_MAX, d.idom[v] = SIZE_MAX;
    size_t root = graph_index(&g, root_id);
    if (!g.in_edges[root]) {
      *errmsg = sqlite3_mprintf("dominator_tree: root node is not in the graph");
      rc = -1;
    }
    if (rc == 0) rc = dom_order(&g, root, &d);
    if (rc == 0) rc = dom_solve(&g, root, &d);
    for (size_t i = 0; rc == 0 && i < d.reached; i++) {
      size_t v = d.pre[i];
      rc = graph_emit(out, &g, 0, v, v == root ? SIZE_MAX : d.idom[v], 0);
    }
  }
  free(d.pre), free(d.post_num), free(d.by_post), free(d.idom);
  graph_free(&g);
  return rc;
}

/* ---- structural tree partition ---- */

/* Tree rows (id, parent_id, group_key), at most one with a NULL parent_id:
 * each node's new parent is its nearest ancestor in the same group. Walks
 * the tree depth-first keeping, per group, the nearest such ancestor on the
 * current path. */
static int part_walk(const stdlib_rows *t, const graph *g, const size_t *row_of,
                     const graph *groups, stdlib_rows *out) {
  size_t *nearest = malloc((groups->n + 1) * sizeof *nearest);
  uint8_t *done = calloc(t->count + 1, 1);
  graph_stack stack = {0};
  int rc = nearest && done ? 0 : -1;
  for (size_t k = 0; k < groups->n + 1 && rc == 0; k++) nearest[k] = SIZE_MAX;
  /* An entry enters tree row `node`, or (weight < 0) restores group
   * -1 - weight's nearest ancestor to `parent` on leaving a subtree. */
  for (size_t i = t->count; rc == 0 && i-- > 0;) {
    int root = stdlib_rows_is_null(t, i, 1) ||
               row_of[graph_index(g, stdlib_rows_get(t, i, 1))] == SIZE_MAX;
    if (root) rc = graph_stack_push(&stack, i, 0, 0);
  }
  while (rc == 0 && stack.count) {
    graph_entry e = stack.at[--stack.count];
    if (e.weight < 0) {
      nearest[(size_t)(-1 - e.weight)] = e.parent;
      continue;
    }
    size_t row = e.node;
    if (done[row]) continue;
    done[row] = 1;
    size_t group = stdlib_rows_is_null(t, row, 2)
                       ? groups->n
                       : graph_index(groups, stdlib_rows_get(t, row, 2));
    size_t up = nearest[group];
    int64_t v[3] = {stdlib_rows_get(t, row, 0), up == SIZE_MAX ? 0 : stdlib_rows_get(t, up, 0),
                    stdlib_rows_get(t, row, 2)};
    uint8_t n[3] = {0, up == SIZE_MAX, (uint8_t)stdlib_rows_is_null(t, row, 2)};
    rc = stdlib_rows_push(out, v, n);
    if (rc == 0) rc = graph_stack_push(&stack, 0, up, -1 - (int64_t)group);
    nearest[group] = row;
    size_t self = graph_index(g, stdlib_rows_get(t, row, 0));
    for (size_t k = g->off[self]; rc == 0 && k < g->off[self + 1]; k++)
      if (!done[row_of[g->adj[k]]]) rc = graph_stack_push(&stack, row_of[g->adj[k]], 0, 0);
  }
  free(stack.at);
  free(done);
  free(nearest);
  return rc;
}

static int part_compute(sqlite3_value **args, int count, stdlib_rows *out, char **errmsg) {
  const stdlib_rows *t = count > 0 ? stdlib_rows_arg(args[0]) : NULL;
  if (!t || (t->count && t->cols < 3)) {
    *errmsg = sqlite3_mprintf(
        "tree_structural_partition_by_group: needs (id, parent_id, group_key) rows");
    return -1;
  }
  size_t roots = 0;
  for (size_t i = 0; i < t->count; i++) roots += (size_t)stdlib_rows_is_null(t, i, 1);
  if (roots > 1) {
    *errmsg = sqlite3_mprintf("tree_partition: multiple NULL parent_ids. Only one root "
                              "(i.e. one NULL parent_id) expected.");
    return -1;
  }
  /* Child edges parent -> child (as a graph over ids) and group ids. */
  stdlib_rows edges, keys;
  stdlib_rows_init(&edges, 2);
  stdlib_rows_init(&keys, 1);
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < t->count; i++) {
    int64_t e[2] = {stdlib_rows_get(t, i, 1), stdlib_rows_get(t, i, 0)};
    uint8_t en[2] = {(uint8_t)stdlib_rows_is_null(t, i, 1), 0};
    int64_t k = stdlib_rows_get(t, i, 2);
    rc = stdlib_rows_push(&edges, e, en);
    if (rc == 0) rc = stdlib_rows_push(&keys, &k, NULL);
  }
  graph g = {0}, groups = {0};
  size_t *row_of = NULL;
  if (rc == 0) rc = graph_build(&g, &edges, NULL, 0);
  if (rc == 0) rc = graph_collect_ids(&groups, &keys, NULL);
  if (rc == 0) rc = (row_of = malloc((g.n + 1) * sizeof *row_of)) ? 0 : -1;
  if (rc == 0) {
    for (size_t v = 0; v < g.n + 1; v++) row_of[v] = SIZE_MAX;
    for (size_t i = 0; i < t->count; i++) row_of[graph_index(&g, stdlib_rows_get(t, i, 0))] = i;
    rc = part_walk(t, &g, row_of, &groups, out);
  }
  free(row_of);
  graph_free(&g);
  graph_free(&groups);
  stdlib_rows_free(&edges);
  stdlib_rows_free(&keys);
  return rc;
}

/* ---- weight-bounded DFS ---- */

static int bounded_walk(const graph *g, size_t root, int64_t target, int floor,
                        uint32_t stamp, uint32_t *seen, stdlib_rows *out) {
  graph_stack stack = {0};
  int rc = graph_stack_push(&stack, root, SIZE_MAX, 0);
  while (rc == 0 && stack.count) {
    graph_entry e = stack.at[--stack.count];
    if (seen[e.node] == stamp) continue;
    seen[e.node] = stamp;
    int passed = e.weight > target;
    if (passed && !floor) break;
    rc = graph_emit(out, g, g->id[root], e.node, e.parent, 1);
    if (passed) break;
    for (size_t k = g->off[e.node + 1]; rc == 0 && k > g->off[e.node]; k--)
      if (seen[g->adj[k - 1]] != stamp)
        rc = graph_stack_push(&stack, g->adj[k - 1], e.node,
                              stdlib_add_saturating(e.weight, g->weight[k - 1]));
  }
  free(stack.at);
  return rc;
}

static int bounded_compute(sqlite3_value **args, int count, stdlib_rows *out,
                           char **errmsg) {
  const stdlib_rows *in[2];
  if (graph_args(args, count, 2, in, "graph_reachable_weight_bounded_dfs", errmsg))
    return -1;
  if ((in[0]->count && in[0]->cols < 3) || (in[1]->count && in[1]->cols < 2)) {
    *errmsg = sqlite3_mprintf(
        "graph_reachable_weight_bounded_dfs: needs (src, dst, weight) edges and "
        "(root, target) roots");
    return -1;
  }
  int floor = count > 2 && sqlite3_value_int64(args[2]) != 0;
  graph g = {0};
  int rc = graph_build(&g, in[0], in[1], 1);
  uint32_t *seen = rc == 0 ? calloc(g.n + 1, sizeof *seen) : NULL;
  if (rc == 0 && !seen) rc = -1;
  for (size_t i = 0; rc == 0 && i < in[1]->count; i++) {
    if (stdlib_rows_is_null(in[1], i, 0)) continue;
    size_t root = graph_index(&g, stdlib_rows_get(in[1], i, 0));
    if (!g.in_edges[root]) continue; /* a root outside the graph reaches nothing */
    int64_t target = stdlib_rows_is_null(in[1], i, 1) ? 0 : stdlib_rows_get(in[1], i, 1);
    rc = bounded_walk(&g, root, target, floor, (uint32_t)i + 1, seen, out);
  }
  free(seen);
  graph_free(&g);
  return rc;
}

/* ---- HASH ---- */

/* HASH(args...): 64-bit FNV-1a over the arguments in order, a string as its
 * bytes, an integer as its 8 little-endian bytes; any other type is an
 * error. It names slice stacks (slices.stack). */
static void graph_hash(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < argc; i++) {
    uint8_t bytes[8];
    const uint8_t *data = bytes;
    size_t len = 8;
    if (sqlite3_value_type(argv[i]) == SQLITE_INTEGER) {
      uint64_t v = (uint64_t)sqlite3_value_int64(argv[i]);
      for (int b = 0; b < 8; b++) bytes[b] = (uint8_t)(v >> (8 * b));
    } else if (sqlite3_value_type(argv[i]) == SQLITE_TEXT) {
      data = sqlite3_value_text(argv[i]);
      len = (size_t)sqlite3_value_bytes(argv[i]);
    } else {
      char msg[64];
      snprintf(msg, sizeof msg, "HASH: arg %d has unknown type", i);
      sqlite3_result_error(ctx, msg, -1);
      return;
    }
    for (size_t b = 0; b < len; b++) h = (h ^ data[b]) * 0x100000001b3ull;
  }
  sqlite3_result_int64(ctx, (sqlite3_int64)h);
}

static const stdlib_op_def graph_defs[] = {
    {"__weft_graph_dfs", "node_id, parent_node_id", 2, 2, 2, graph_dfs_compute},
    {"__weft_graph_bfs", "node_id, parent_node_id", 2, 2, 2, graph_bfs_compute},
    {"__weft_graph_dominator_tree", "node_id, dominator_node_id", 2, 2, 2, dom_compute},
    {"__weft_tree_partition", "id, parent_id, group_key", 3, 1, 1, part_compute},
    {"__weft_graph_weight_bounded_dfs", "root_node_id, node_id, parent_node_id", 3, 2, 3,
     bounded_compute},
};

int stdlib_ops_register_graph(sqlite3 *db) {
  int rc = sqlite3_create_function(db, "hash", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                   NULL, graph_hash, NULL, NULL);
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof graph_defs / sizeof *graph_defs; i++)
    rc = stdlib_op_register(db, &graph_defs[i]);
  return rc;
}
