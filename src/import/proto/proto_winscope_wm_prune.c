/* proto_winscope_wm_prune: WindowManager messages without their children
 * (proto_winscope_wm_prune.h). */
#include "import/proto/proto_winscope_wm_prune.h"

/* What happens to field `number` of a `kind` message. */
static wm_msg wm_prune_field(wm_msg kind, uint32_t number) {
  static const wm_msg child_kinds[] = {
      WM_MSG_CONTAINER, WM_MSG_DISPLAY_CONTENT, WM_MSG_DISPLAY_AREA, WM_MSG_TASK,
      WM_MSG_ACTIVITY,  WM_MSG_WINDOW_TOKEN,    WM_MSG_WINDOW_STATE, WM_MSG_TASK_FRAGMENT,
  };
  switch (kind) {
    case WM_MSG_ENTRY: return number == 3 ? WM_MSG_SERVICE : WM_MSG_COPY;
    case WM_MSG_SERVICE: return number == 2 ? WM_MSG_DROP : WM_MSG_COPY;
    case WM_MSG_CONTAINER: return number == 5 ? WM_MSG_DROP : WM_MSG_COPY;
    case WM_MSG_CHILD:
      return number >= 2 && number <= 9 ? child_kinds[number - 2] : WM_MSG_DROP;
    case WM_MSG_DISPLAY_CONTENT: return number == 21 ? WM_MSG_DISPLAY_AREA : WM_MSG_COPY;
    case WM_MSG_TASK:
      if (number == 31) return WM_MSG_TASK_FRAGMENT;
      return number == 1 ? WM_MSG_CONTAINER : WM_MSG_COPY;
    case WM_MSG_ACTIVITY: return number == 2 ? WM_MSG_WINDOW_TOKEN : WM_MSG_COPY;
    case WM_MSG_ROOT:
    case WM_MSG_DISPLAY_AREA:
    case WM_MSG_WINDOW_TOKEN:
    case WM_MSG_WINDOW_STATE:
    case WM_MSG_TASK_FRAGMENT: return number == 1 ? WM_MSG_CONTAINER : WM_MSG_COPY;
    default: return WM_MSG_COPY;
  }
}

/* The field's fate given its wire type: a nested kind needs a message. */
static wm_msg wm_prune_action(wm_msg kind, const proto_field *fl) {
  wm_msg sub = wm_prune_field(kind, fl->number);
  if (sub == WM_MSG_COPY || sub == WM_MSG_DROP || fl->wire_type == PROTO_WIRE_LEN) return sub;
  return kind == WM_MSG_CHILD ? WM_MSG_DROP : WM_MSG_COPY;
}

static size_t wm_varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

/* The pruned size of msg (nesting is at most a few levels: the chain from
 * a child to its window container). */
static size_t wm_prune_size(wm_msg kind, proto_span msg) {
  proto_reader r;
  proto_field fl;
  size_t total = 0;
  proto_reader_init_span(&r, msg);
  const uint8_t *start = r.pos;
  while (proto_reader_next(&r, &fl) == 1) {
    wm_msg sub = wm_prune_action(kind, &fl);
    if (sub == WM_MSG_COPY) {
      total += (size_t)(r.pos - start);
    } else if (sub != WM_MSG_DROP) {
      size_t n = wm_prune_size(sub, fl.span);
      total += wm_varint_len((uint64_t)fl.number << 3) + wm_varint_len(n) + n;
    }
    start = r.pos;
  }
  return total;
}

static int wm_prune_into(wm_msg kind, proto_span msg, base_buf *out) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  const uint8_t *start = r.pos;
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    wm_msg sub = wm_prune_action(kind, &fl);
    if (sub == WM_MSG_COPY) {
      rc = base_buf_append(out, start, (size_t)(r.pos - start));
    } else if (sub != WM_MSG_DROP) {
      rc = proto_put_tag(out, fl.number, PROTO_WIRE_LEN);
      if (!rc) rc = proto_put_varint(out, wm_prune_size(sub, fl.span));
      if (!rc) rc = wm_prune_into(sub, fl.span, out);
    }
    start = r.pos;
  }
  return rc;
}

int wm_prune(wm_msg kind, proto_span msg, base_buf *out) {
  base_buf_reset(out);
  return wm_prune_into(kind, msg, out);
}
