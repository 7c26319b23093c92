/* Systrace / ftrace text through the whole pipeline (and the SQL on top).
 * Input that does not sniff as systrace gets a "# tracer: nop" header, so
 * mutations keep reaching the systrace importer. */
#include "fuzz_common.h"

#include "io/sniff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (io_sniff(data, size) == IO_TRACE_SYSTRACE) {
    fuzz_load_one("trace.systrace", data, size, fuzz_queries);
    return 0;
  }
  static const char header[] = "# tracer: nop\n";
  size_t hlen = sizeof header - 1;
  uint8_t *buf = malloc(hlen + size + 1);
  if (!buf) return 0;
  memcpy(buf, header, hlen);
  if (size) memcpy(buf + hlen, data, size);
  fuzz_load_one("trace.systrace", buf, hlen + size, fuzz_queries);
  free(buf);
  return 0;
}
