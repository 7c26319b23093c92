/* proto_android_lists: users and game interventions. See
 * proto_android_lists.h. */
#include "import/proto/proto_android_lists.h"

#include <stdint.h>

#include "model/android_fw.h"

/* AndroidUserList and its UserInfo. */
enum { USER_LIST_USERS = 1, USER_INFO_TYPE = 1, USER_INFO_UID = 2 };

/* AndroidGameInterventionList, GamePackageInfo and GameModeInfo. */
enum {
  GAME_LIST_PACKAGES = 1,
  GAME_PACKAGE_NAME = 1, GAME_PACKAGE_UID = 2, GAME_PACKAGE_CURRENT_MODE = 3,
  GAME_PACKAGE_MODE_INFO = 4,
  GAME_MODE_MODE = 1, GAME_MODE_USE_ANGLE = 2, GAME_MODE_DOWNSCALE = 3, GAME_MODE_FPS = 4,
};

static int intern_span(import_file *f, proto_span s, string_id *out) {
  return ctx_intern(f->ctx, (const char *)s.data, s.len, out);
}

static int user_info(import_file *f, proto_span msg) {
  proto_reader r;
  proto_field fl;
  string_id type = STRING_NULL;
  int64_t uid = 0; /* absent: user 0 */
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number == USER_INFO_TYPE && fl.wire_type == PROTO_WIRE_LEN)
      rc = intern_span(f, fl.span, &type);
    else if (fl.number == USER_INFO_UID && fl.wire_type == PROTO_WIRE_VARINT)
      uid = proto_field_int32(&fl);
  }
  if (rc) return rc;
  return model_android_user_add(f->ctx, uid, type);
}

int proto_android_user_list(import_file *f, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == USER_LIST_USERS && fl.wire_type == PROTO_WIRE_LEN)
      rc = user_info(f, fl.span);
  return rc;
}

/* A GameModeInfo into its mode's slot of p (modes 1..3; others ignored). */
static void game_mode_info(model_game_package *p, proto_span msg) {
  model_game_mode m = {.supported = 1};
  uint64_t mode = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == GAME_MODE_MODE && fl.wire_type == PROTO_WIRE_VARINT)
      mode = fl.value;
    else if (fl.number == GAME_MODE_USE_ANGLE && fl.wire_type == PROTO_WIRE_VARINT)
      m.use_angle = proto_field_bool(&fl);
    else if (fl.number == GAME_MODE_DOWNSCALE && fl.wire_type == PROTO_WIRE_FIXED32)
      m.downscale = proto_field_float(&fl);
    else if (fl.number == GAME_MODE_FPS && fl.wire_type == PROTO_WIRE_FIXED32)
      m.fps = proto_field_float(&fl);
  }
  if (mode >= 1 && mode <= 3) p->modes[mode - 1] = m;
}

static int game_package(import_file *f, proto_span msg) {
  model_game_package p = {.name = STRING_NULL};
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number == GAME_PACKAGE_NAME && fl.wire_type == PROTO_WIRE_LEN)
      rc = intern_span(f, fl.span, &p.name);
    else if (fl.number == GAME_PACKAGE_UID && fl.wire_type == PROTO_WIRE_VARINT)
      p.uid = (int64_t)fl.value;
    else if (fl.number == GAME_PACKAGE_CURRENT_MODE && fl.wire_type == PROTO_WIRE_VARINT)
      p.current_mode = proto_field_uint32(&fl);
    else if (fl.number == GAME_PACKAGE_MODE_INFO && fl.wire_type == PROTO_WIRE_LEN)
      game_mode_info(&p, fl.span);
  }
  return rc ? rc : model_game_package_add(f->ctx, &p);
}

int proto_android_game_intervention_list(import_file *f, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == GAME_LIST_PACKAGES && fl.wire_type == PROTO_WIRE_LEN)
      rc = game_package(f, fl.span);
  return rc;
}
