/* Unit tests for src/import/proto/proto_winscope_wm_prune: WindowManager
 * messages lose their window container children (and a snapshot its root
 * container), keep every other field in wire order with nested lengths
 * rewritten, and keep what precedes malformed bytes. */
#include "base/base.h"
#include "check.h"
#include "import/proto/proto_winscope_wm_prune.h"
#include "proto_test_util.h"

static proto_span span_of(const pb *p) { return (proto_span){p->b, p->n}; }

/* Prunes msg as `kind` and compares the result with `want`. */
static void check_pruned(wm_msg kind, const pb *msg, const pb *want) {
  base_buf out;
  base_buf_init(&out, 1 << 20);
  CHECK_EQ_INT(wm_prune(kind, span_of(msg), &out), WEFT_OK);
  CHECK_EQ_INT(out.len, want->n);
  CHECK(out.len == want->n && (want->n == 0 || memcmp(out.data, want->b, want->n) == 0));
  base_buf_free(&out);
}

/* A WindowContainerProto: visible, optionally a child, an identifier. */
static void container(pb *out, int with_child) {
  pb identifier = {0}, child = {0};
  pb_int(&identifier, 1, 42);
  pb_str(&identifier, 3, "title");
  pb_int(out, 3, 1);
  if (with_child) {
    pb_int(&child, 20, 7);
    pb_msg(out, 5, &child);
    pb_msg(out, 5, &child);
  }
  pb_msg(out, 6, &identifier);
}

static void test_task_loses_children_of_both_containers(void) {
  pb full = {0}, pruned = {0};
  pb task = {0}, task_pruned = {0}, wc = {0}, wc_pruned = {0};
  pb fragment = {0}, fragment_pruned = {0};
  container(&wc, 1);
  container(&wc_pruned, 0);
  pb_msg(&fragment, 1, &wc);
  pb_int(&fragment, 2, 3);
  pb_msg(&fragment_pruned, 1, &wc_pruned);
  pb_int(&fragment_pruned, 2, 3);
  pb_int(&task, 2, 9);
  pb_msg(&task, 1, &wc);
  pb_msg(&task, 31, &fragment);
  pb_int(&task_pruned, 2, 9);
  pb_msg(&task_pruned, 1, &wc_pruned);
  pb_msg(&task_pruned, 31, &fragment_pruned);
  pb_msg(&full, 5, &task);
  pb_int(&full, 20, 1);  /* not a container kind: dropped */
  pb_int(&full, 2, 1);   /* a kind that is no message: dropped */
  pb_msg(&pruned, 5, &task_pruned);
  check_pruned(WM_MSG_CHILD, &full, &pruned);
}

static void test_activity_and_display_chains(void) {
  pb full = {0}, pruned = {0}, wc = {0}, wc_pruned = {0};
  container(&wc, 1);
  container(&wc_pruned, 0);
  pb token = {0}, token_pruned = {0}, activity = {0}, activity_pruned = {0};
  pb_msg(&token, 1, &wc);
  pb_int(&token, 2, 8);
  pb_msg(&token_pruned, 1, &wc_pruned);
  pb_int(&token_pruned, 2, 8);
  pb_str(&activity, 1, "A");
  pb_msg(&activity, 2, &token);
  pb_str(&activity_pruned, 1, "A");
  pb_msg(&activity_pruned, 2, &token_pruned);
  pb_msg(&full, 6, &activity);
  pb_msg(&pruned, 6, &activity_pruned);
  check_pruned(WM_MSG_CHILD, &full, &pruned);

  /* A display keeps its deprecated window_container (1) whole; its root
   * display area's container loses its children. */
  pb area = {0}, area_pruned = {0}, dc = {0}, dc_pruned = {0};
  pb_msg(&area, 1, &wc);
  pb_str(&area, 2, "DA");
  pb_msg(&area_pruned, 1, &wc_pruned);
  pb_str(&area_pruned, 2, "DA");
  pb_msg(&dc, 1, &wc);
  pb_msg(&dc, 21, &area);
  pb_msg(&dc_pruned, 1, &wc);
  pb_msg(&dc_pruned, 21, &area_pruned);
  pb full_dc = {0}, pruned_dc = {0};
  pb_msg(&full_dc, 3, &dc);
  pb_msg(&pruned_dc, 3, &dc_pruned);
  check_pruned(WM_MSG_CHILD, &full_dc, &pruned_dc);
}

static void test_entry_loses_root_container(void) {
  pb root = {0}, wc = {0}, service = {0}, service_pruned = {0}, entry = {0}, want = {0};
  container(&wc, 1);
  pb_msg(&root, 1, &wc);
  pb_str(&service, 4, "app");
  pb_msg(&service, 2, &root);
  pb_int(&service, 9, 1);
  pb_str(&service_pruned, 4, "app");
  pb_int(&service_pruned, 9, 1);
  pb_str(&entry, 2, "where");
  pb_msg(&entry, 3, &service);
  pb_str(&want, 2, "where");
  pb_msg(&want, 3, &service_pruned);
  check_pruned(WM_MSG_ENTRY, &entry, &want);

  /* A service of nothing but the root stays, empty. */
  pb only_root = {0}, entry2 = {0}, want2 = {0}, empty = {0};
  pb_msg(&only_root, 2, &root);
  pb_msg(&entry2, 3, &only_root);
  pb_msg(&want2, 3, &empty);
  check_pruned(WM_MSG_ENTRY, &entry2, &want2);
}

static void test_malformed_keeps_the_prefix(void) {
  pb wc = {0}, want = {0};
  container(&wc, 1);
  container(&want, 0);
  /* A length running past the end: the fields before it stay. */
  wc.b[wc.n++] = 0x3a; /* field 7, length-delimited */
  wc.b[wc.n++] = 0x40;
  wc.b[wc.n++] = 0x01;
  check_pruned(WM_MSG_CONTAINER, &wc, &want);
}

int main(void) {
  RUN_TEST(test_task_loses_children_of_both_containers);
  RUN_TEST(test_activity_and_display_chains);
  RUN_TEST(test_entry_loses_root_container);
  RUN_TEST(test_malformed_keeps_the_prefix);
  return CHECK_SUMMARY();
}
