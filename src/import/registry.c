/* The importers weft has, by the trace type io_sniff finds: registering a
 * format is one row here. */
#include "import/importer.h"

typedef struct import_registration {
  io_trace_type type;
  const importer_ops *ops;
} import_registration;

static const import_registration import_registry[] = {
    {IO_TRACE_JSON, &import_json_ops},
    {IO_TRACE_PROTO, &import_proto_ops},
    {IO_TRACE_SYSTRACE, &import_systrace_ops},
    {IO_TRACE_STRACE, &import_strace_ops},
    {IO_TRACE_PERF_TEXT, &import_perf_text_ops},
    {IO_TRACE_COLLAPSED_STACK, &import_collapsed_stack_ops},
    {IO_TRACE_GECKO, &import_gecko_ops},
    {IO_TRACE_INSTRUMENTS_XML, &import_instruments_ops},
    {IO_TRACE_SIMPLEPERF_PROTO, &import_simpleperf_ops},
};

const importer_ops *import_ops_for(io_trace_type type) {
  for (size_t i = 0; i < sizeof import_registry / sizeof import_registry[0]; i++)
    if (import_registry[i].type == type) return import_registry[i].ops;
  return NULL;
}
