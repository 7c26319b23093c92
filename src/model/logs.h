/* logs: the log entries of every source (Perfetto's `logs` table, shown
 * through the android_logs view for logcat) and Android's packages list.
 *
 * Rows are appended in parse order (a logcat timestamp is on CLOCK_REALTIME,
 * converted on its own, so these may not be in ts order) and sorted by ts
 * once loading ends. */
#ifndef WEFT_MODEL_LOGS_H
#define WEFT_MODEL_LOGS_H

#include "model/context.h"
#include "model/model.h"

/* The log_source values. */
#define MODEL_LOG_ANDROID "android_logcat"
#define MODEL_LOG_JOURNALD "systemd_journald"

typedef struct model_log_entry {
  int64_t ts;
  int64_t utid;     /* -1: NULL */
  int64_t prio;
  const char *source; /* a MODEL_LOG_* */
  string_id tag, msg; /* STRING_NULL allowed */
  int64_t arg_set;  /* -1: none */
} model_log_entry;

int model_log(trace_context *ctx, const model_log_entry *e);
/* Once loading ends: puts the entries in timestamp order (stable), as
 * Perfetto's sorter delivers them. */
int model_logs_sort(trace_context *ctx);

/* One package of packages.list; the nullable fields are given by has_*. */
typedef struct model_package {
  string_id name;
  int64_t uid, debuggable, profileable_from_shell, version_code;
  int has_uid, has_debuggable, has_profileable, has_version_code;
} model_package;

int model_package_add(trace_context *ctx, const model_package *p);

#endif
