/* proto_shell_transition: shell transitions merged per id. See
 * proto_shell_transition.h for the rules. */
#include "import/proto/proto_shell_transition.h"

#include <string.h>

#include "import/proto/proto_args.h"
#include "model/model.h"
#include "model/shell_transition.h"
#include "model/winscope_sf.h"

enum { SHELL_ID = 1, SHELL_CHANGES = 14 };
enum { RECT_LEFT = 1, RECT_TOP = 2, RECT_RIGHT = 3, RECT_BOTTOM = 4 };
enum { CHANGE_START_BOUNDS = 9, CHANGE_END_BOUNDS = 10 };

struct proto_shell_state {
  base_map rows;  /* transition id -> its row */
  base_map rects; /* hash of (x, y, w, h) -> a rect row */
};

void proto_shell_state_free(proto_shell_state *s) {
  if (!s) return;
  base_map_free(&s->rows);
  base_map_free(&s->rects);
  base_free(s);
}

static uint64_t shell_rect_key(const int64_t side[4]) {
  uint64_t h = 0;
  for (int i = 0; i < 4; i++) h = base_hash_u64(h ^ (uint64_t)side[i]);
  return h >> 1; /* clear of the reserved key */
}

/* The rect row of a RectProto, shared by equal rectangles (a hash clash
 * with a different one makes a row of its own). */
static int shell_rect(import_file *f, proto_shell_state *s, proto_span msg, int64_t *row) {
  int64_t side[4] = {0, 0, 0, 0};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number >= RECT_LEFT && fl.number <= RECT_BOTTOM && fl.wire_type == PROTO_WIRE_VARINT)
      side[fl.number - 1] = proto_field_int32(&fl);
  double x = (double)side[0], y = (double)side[1];
  double w = (double)(side[2] - side[0]), h = (double)(side[3] - side[1]);
  uint64_t key = shell_rect_key(side), *slot;
  uint64_t *found = base_map_find(&s->rects, key);
  if (found && model_winscope_rect_is(f->ctx, (uint32_t)*found, x, y, w, h)) {
    *row = (int64_t)*found;
    return WEFT_OK;
  }
  uint32_t added;
  int rc = model_winscope_rect_add(f->ctx, x, y, w, h, &added);
  if (!rc && !found) rc = base_map_insert(&s->rects, key, added, &slot);
  *row = added;
  return rc < 0 ? rc : WEFT_OK;
}

static int shell_change(import_file *f, proto_shell_state *s, int64_t transition,
                        proto_span msg) {
  model_shell_participant p;
  memset(&p, 0, sizeof p);
  p.transition_id = transition;
  /* Change fields 1-8 in the order of the MODEL_PART_* values they fill */
  static const int8_t part_of[] = {-1, MODEL_PART_MODE, MODEL_PART_LAYER, MODEL_PART_WINDOW,
                                   MODEL_PART_FLAGS, MODEL_PART_START_DISPLAY,
                                   MODEL_PART_END_DISPLAY, MODEL_PART_START_ROTATION,
                                   MODEL_PART_END_ROTATION};
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    int part = -1;
    if (fl.number < sizeof part_of && fl.wire_type == PROTO_WIRE_VARINT) {
      part = part_of[fl.number];
      if (part >= 0) p.value[part] = proto_field_int32(&fl);
    } else if ((fl.number == CHANGE_START_BOUNDS || fl.number == CHANGE_END_BOUNDS) &&
               fl.wire_type == PROTO_WIRE_LEN) {
      part = fl.number == CHANGE_START_BOUNDS ? MODEL_PART_START_RECT : MODEL_PART_END_RECT;
      rc = shell_rect(f, s, fl.span, &p.value[part]);
    }
    if (part >= 0) p.has |= 1u << part;
  }
  return rc ? rc : model_shell_participant_add(f->ctx, &p);
}

static int shell_row(import_file *f, proto_shell_state *s, int64_t transition, uint32_t *row) {
  uint64_t *found = base_map_find(&s->rows, (uint32_t)transition);
  if (found) {
    *row = (uint32_t)*found;
    return WEFT_OK;
  }
  uint64_t *slot;
  int rc = model_shell_transition_row(f->ctx, transition, row);
  if (!rc) rc = base_map_insert(&s->rows, (uint32_t)transition, *row, &slot);
  return rc < 0 ? rc : WEFT_OK;
}

/* The message's args merged into the row's set. */
static int shell_args(import_file *f, const struct proto_packet_info *info, uint32_t row,
                      proto_span msg) {
  int64_t arg_set = -1;
  int rc = model_args_reopen(f->ctx, model_shell_transition_args(f->ctx, row));
  if (!rc) rc = proto_args_message(f, info, ".perfetto.protos.ShellTransition", msg);
  if (!rc) rc = model_args_commit(f->ctx, &arg_set);
  return rc ? rc : model_shell_transition_set_args(f->ctx, row, arg_set);
}

/* The message's last id read (up to a malformed field), else 0. */
static int64_t shell_id(proto_span msg) {
  int64_t id = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number == SHELL_ID && fl.wire_type == PROTO_WIRE_VARINT) id = proto_field_int32(&fl);
  return id;
}

int proto_shell_transition(import_file *f, proto_shell_state **state,
                           const struct proto_packet_info *info, proto_span msg) {
  if (!*state && !(*state = base_calloc(1, sizeof **state))) return WEFT_ENOMEM;
  proto_shell_state *s = *state;
  int64_t transition = shell_id(msg);
  uint32_t row;
  int rc = shell_row(f, s, transition, &row);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number == SHELL_CHANGES && fl.wire_type == PROTO_WIRE_LEN)
      rc = shell_change(f, s, transition, fl.span);
    else if (fl.wire_type == PROTO_WIRE_VARINT)
      model_shell_transition_set(f->ctx, row, fl.number, proto_field_int64(&fl));
  }
  if (!rc) rc = model_shell_transition_derive(f->ctx, row);
  return rc ? rc : shell_args(f, info, row, msg);
}
