-- android.winscope.transitions: the participants and raw messages of the
-- shell transitions (com.android.wm.shell.transition data source).

-- A window or layer changed by a shell transition, one row per change.
CREATE PERFETTO VIEW android_window_manager_shell_transition_participants(
  transition_id LONG,
  layer_id LONG,
  window_id LONG,
  mode LONG,
  flags LONG,
  start_display_id LONG,
  end_display_id LONG,
  start_rotation LONG,
  end_rotation LONG,
  start_abs_bounds_rect_id LONG,
  end_abs_bounds_rect_id LONG
) AS
SELECT transition_id, layer_id, window_id, mode, flags, start_display_id, end_display_id,
  start_rotation, end_rotation, start_abs_bounds_rect_id, end_abs_bounds_rect_id
FROM __intrinsic_window_manager_shell_transition_participants;

-- Each shell transition message, in base64.
CREATE PERFETTO VIEW android_window_manager_shell_transition_protos(
  transition_id LONG,
  base64_proto_id LONG
) AS
SELECT transition_id, base64_proto_id FROM __intrinsic_window_manager_shell_transition_protos;
