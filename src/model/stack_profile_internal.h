/* Shared between the stack_profile model files (not for importers). */
#ifndef WEFT_MODEL_STACK_PROFILE_INTERNAL_H
#define WEFT_MODEL_STACK_PROFILE_INTERNAL_H

#include "model/stack_profile.h"

typedef struct stack_profile_deobf stack_profile_deobf;

/* Where the trace's deobfuscation state lives (NULL: out of memory). */
stack_profile_deobf **stack_profile_deobf_slot(trace_context *ctx);
void stack_profile_deobf_free(stack_profile_deobf *d);

#endif
