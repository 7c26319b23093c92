/* proto_generic_kernel: the GenericKernel* TracePacket fields of kernels
 * without ftrace — task state and rename events, process trees and cpu
 * frequency events — applied in trace-time order through model/gkernel.h
 * (cpu frequency: the "cpufreq" cpu counter, in kHz as ftrace's). */
#ifndef WEFT_PROTO_GENERIC_KERNEL_H
#define WEFT_PROTO_GENERIC_KERNEL_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TRACE_PACKET_GENERIC_KERNEL_TASK_STATE_EVENT 117
#define PROTO_TRACE_PACKET_GENERIC_KERNEL_CPU_FREQ_EVENT 118
#define PROTO_TRACE_PACKET_GENERIC_KERNEL_TASK_RENAME_EVENT 120
#define PROTO_TRACE_PACKET_GENERIC_KERNEL_PROCESS_TREE 122

/* 1 if the TracePacket field is one of the above. */
int proto_generic_kernel_wants_field(uint32_t number);
/* Applies one such field (length-delimited) at trace time ts. */
int proto_generic_kernel_parse(import_file *f, uint32_t machine, int64_t ts,
                               const proto_field *field);

#endif
