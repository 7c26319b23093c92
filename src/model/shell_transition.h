/* shell_transition: the tables of Android shell transitions
 * (__intrinsic_window_manager_shell_transitions, its participants) and the
 * winscope rectangles they refer to. The importer merges a transition's
 * messages; the row's ts, status and duration follow from its columns:
 *  - ts: send_time_ns, else dispatch_time_ns, else 0;
 *  - status: "merged" with a merge time; else, once dispatched, "played"
 *    with a finish time (NULL without); else "aborted" with a shell or WM
 *    abort time; else NULL;
 *  - duration_ns: finish - dispatch when played. */
#ifndef WEFT_MODEL_SHELL_TRANSITION_H
#define WEFT_MODEL_SHELL_TRANSITION_H

#include "model/context.h"

/* The columns a message sets, by ShellTransition field number. */
typedef enum model_shell_field {
  MODEL_SHELL_CREATE_TIME = 2, MODEL_SHELL_SEND_TIME = 3, MODEL_SHELL_DISPATCH_TIME = 4,
  MODEL_SHELL_MERGE_TIME = 5, MODEL_SHELL_SHELL_ABORT_TIME = 7, MODEL_SHELL_WM_ABORT_TIME = 8,
  MODEL_SHELL_FINISH_TIME = 9, MODEL_SHELL_START_TRANSACTION = 10,
  MODEL_SHELL_FINISH_TRANSACTION = 11, MODEL_SHELL_HANDLER = 12, MODEL_SHELL_TYPE = 13,
  MODEL_SHELL_FLAGS = 16,
} model_shell_field;

/* A participant: the columns given (has bit 1 << index of the value). */
enum {
  MODEL_PART_LAYER, MODEL_PART_WINDOW, MODEL_PART_MODE, MODEL_PART_FLAGS,
  MODEL_PART_START_DISPLAY, MODEL_PART_END_DISPLAY, MODEL_PART_START_ROTATION,
  MODEL_PART_END_ROTATION, MODEL_PART_START_RECT, MODEL_PART_END_RECT, MODEL_PART_COUNT
};
typedef struct model_shell_participant {
  int64_t transition_id;
  int64_t value[MODEL_PART_COUNT];
  uint32_t has;
} model_shell_participant;

int model_shell_transition_row(trace_context *ctx, int64_t transition_id, uint32_t *row);
/* Sets a column; 1 if `field` is not one of model_shell_field. */
int model_shell_transition_set(trace_context *ctx, uint32_t row, uint32_t field, int64_t value);
/* Recomputes ts, status and duration_ns from the row's columns. */
int model_shell_transition_derive(trace_context *ctx, uint32_t row);
int64_t model_shell_transition_args(trace_context *ctx, uint32_t row);
/* Gives the row a new arg set; the one it had is left for collection. */
int model_shell_transition_set_args(trace_context *ctx, uint32_t row, int64_t arg_set);
int model_shell_participant_add(trace_context *ctx, const model_shell_participant *p);

/* (Rect rows are added by model_winscope_rect_add, model/winscope_sf.h.) */
/* 1 if rect row `row` is (x, y, w, h). */
int model_winscope_rect_is(trace_context *ctx, uint32_t row, double x, double y, double w,
                           double h);

#endif
