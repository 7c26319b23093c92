-- android.winscope.rect: the rects winscope traces draw, the transforms
-- that place them and the trace rects tying them to a trace's entities.

-- Android Winscope rects.
CREATE PERFETTO VIEW android_winscope_rect(id LONG, x DOUBLE, y DOUBLE, w DOUBLE, h DOUBLE) AS
SELECT id, x, y, w, h FROM __intrinsic_winscope_rect;

-- Android Winscope transforms.
CREATE PERFETTO VIEW android_winscope_transform(
  id LONG, dsdx DOUBLE, dtdx DOUBLE, tx DOUBLE, dtdy DOUBLE, dsdy DOUBLE, ty DOUBLE
) AS
SELECT id, dsdx, dtdx, tx, dtdy, dsdy, ty FROM __intrinsic_winscope_transform;

-- Android Winscope trace rects.
CREATE PERFETTO VIEW android_winscope_trace_rect(
  id LONG,
  rect_id LONG,
  group_id LONG,
  depth LONG,
  is_spy LONG,
  is_visible LONG,
  opacity DOUBLE,
  transform_id LONG,
  border_width LONG,
  border_color DOUBLE
) AS
SELECT id, rect_id, group_id, depth, is_spy, is_visible, opacity, transform_id, border_width,
  border_color
FROM __intrinsic_winscope_trace_rect;
