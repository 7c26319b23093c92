/* proto_descriptor: a pool built from a FileDescriptorSet written here by
 * hand: full names, nested types, fields sorted by number, extensions
 * attached to their extendee, enum value names, unresolved references
 * dropped, malformed bytes refused; and the embedded schema. */
#include <string.h>

#include "check.h"
#include "import/proto/proto_descriptor.h"

#include "proto_test_util.h"

/* FieldDescriptorProto: name, number, label, type, type_name, extendee. */
static void field(pb *msg, uint32_t in, const char *name, int number, int repeated, int type,
                  const char *type_name, const char *extendee) {
  pb f = {0};
  pb_str(&f, 1, name);
  pb_int(&f, 3, (uint64_t)number);
  pb_int(&f, 4, repeated ? 3 : 1);
  pb_int(&f, 5, (uint64_t)type);
  if (type_name) pb_str(&f, 6, type_name);
  if (extendee) pb_str(&f, 2, extendee);
  pb_msg(msg, in, &f);
}

/* package p; enum E {A = 1; B = 2}; message M { message N { int32 x = 1; }
 * N n = 7; E e = 3; repeated sint64 r = 2; Missing gone = 9; }
 * extend M { string ext = 1000; } */
static void build_set(pb *set) {
  pb file = {0}, m = {0}, n = {0}, e = {0}, v = {0};
  pb_str(&file, 2, "p");
  pb_str(&e, 1, "E");
  pb_str(&v, 1, "A");
  pb_int(&v, 2, 1);
  pb_msg(&e, 2, &v);
  memset(&v, 0, sizeof v);
  pb_str(&v, 1, "B");
  pb_int(&v, 2, 2);
  pb_msg(&e, 2, &v);
  pb_msg(&file, 5, &e);
  pb_str(&n, 1, "N");
  field(&n, 2, "x", 1, 0, PROTO_DESC_INT32, NULL, NULL);
  pb_str(&m, 1, "M");
  pb_msg(&m, 3, &n);
  field(&m, 2, "n", 7, 0, PROTO_DESC_MESSAGE, ".p.M.N", NULL);
  field(&m, 2, "e", 3, 0, PROTO_DESC_ENUM, ".p.E", NULL);
  field(&m, 2, "r", 2, 1, PROTO_DESC_SINT64, NULL, NULL);
  field(&m, 2, "gone", 9, 0, PROTO_DESC_MESSAGE, ".p.Missing", NULL);
  pb_msg(&file, 4, &m);
  field(&file, 7, "ext", 1000, 0, PROTO_DESC_STRING, NULL, ".p.M");
  pb_msg(set, 1, &file);
}

static void test_pool(void) {
  pb set = {0};
  build_set(&set);
  proto_descriptor_pool *pool = proto_descriptor_pool_build(set.b, set.n);
  CHECK(pool != NULL);
  if (!pool) return;
  int32_t m = proto_descriptor_find_message(pool, "p.M", 3);
  CHECK(m >= 0);
  CHECK_EQ_INT(proto_descriptor_find_message(pool, ".p.M", 4), m);
  CHECK(proto_descriptor_find_message(pool, "p.M.N", 5) >= 0);
  CHECK_EQ_INT(proto_descriptor_find_message(pool, "p.E", 3), -1); /* an enum */
  CHECK_EQ_INT(proto_descriptor_find_message(pool, "M", 1), -1);
  const proto_desc_message *msg = proto_descriptor_message(pool, m);
  CHECK_EQ_INT(msg->n_fields, 4); /* r, e, n, ext; "gone" is unresolved */
  const proto_desc_field *r = proto_descriptor_field(pool, msg, 2);
  CHECK(r && r->repeated && r->type == PROTO_DESC_SINT64);
  const proto_desc_field *e = proto_descriptor_field(pool, msg, 3);
  CHECK(e && e->type == PROTO_DESC_ENUM);
  if (e) {
    CHECK_EQ_STR(proto_descriptor_enum_name(pool, e->ref, 2), "B");
    CHECK(proto_descriptor_enum_name(pool, e->ref, 5) == NULL);
  }
  const proto_desc_field *n = proto_descriptor_field(pool, msg, 7);
  CHECK(n && n->ref == proto_descriptor_find_message(pool, "p.M.N", 5));
  const proto_desc_field *ext = proto_descriptor_field(pool, msg, 1000);
  CHECK(ext && ext->extension);
  if (ext) CHECK_EQ_STR(proto_descriptor_name(pool, ext->name), "ext");
  CHECK(proto_descriptor_field(pool, msg, 9) == NULL);
  CHECK(proto_descriptor_field(pool, msg, 4) == NULL);
  proto_descriptor_pool_free(pool);
}

static void test_malformed(void) {
  pb set = {0};
  build_set(&set);
  /* Every truncation is refused or yields a pool; none crashes. */
  for (size_t len = 0; len < set.n; len++) {
    proto_descriptor_pool *pool = proto_descriptor_pool_build(set.b, len);
    proto_descriptor_pool_free(pool);
  }
  static const uint8_t junk[] = {0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01};
  proto_descriptor_pool *pool = proto_descriptor_pool_build(junk, sizeof junk);
  CHECK(pool == NULL);
}

static void test_builtin(void) {
  const proto_descriptor_pool *pool = proto_descriptor_builtin();
  CHECK(pool != NULL);
  if (!pool) return;
  int32_t te = proto_descriptor_find_message(pool, "perfetto.protos.TrackEvent", 26);
  CHECK(te >= 0);
  if (te < 0) return;
  const proto_desc_message *msg = proto_descriptor_message(pool, te);
  const proto_desc_field *app_state = proto_descriptor_field(pool, msg, 1000);
  CHECK(app_state && app_state->extension && app_state->type == PROTO_DESC_ENUM);
  const proto_desc_field *annotations = proto_descriptor_field(pool, msg, 4);
  CHECK(annotations && annotations->repeated);
  CHECK(proto_descriptor_builtin() == pool);
}

int main(void) {
  (void)load, (void)query, (void)packet; /* proto_test_util.h's, unused here */
  RUN_TEST(test_pool);
  RUN_TEST(test_malformed);
  RUN_TEST(test_builtin);
  return CHECK_SUMMARY();
}
