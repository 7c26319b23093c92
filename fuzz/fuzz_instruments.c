/* Apple Instruments XML through the whole pipeline (and the SQL on top).
 * Input that does not sniff as an Instruments export gets the export's
 * first line, so mutations keep reaching the XML reader. */
#include "fuzz_common.h"

#include "io/sniff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (io_sniff(data, size) == IO_TRACE_INSTRUMENTS_XML) {
    fuzz_load_one("trace.xml", data, size, fuzz_queries);
    return 0;
  }
  static const char header[] = "<?xml version=\"1.0\"?>\n<trace-query-result>";
  size_t hlen = sizeof header - 1;
  uint8_t *buf = malloc(hlen + size + 1);
  if (!buf) return 0;
  memcpy(buf, header, hlen);
  if (size) memcpy(buf + hlen, data, size);
  fuzz_load_one("trace.xml", buf, hlen + size, fuzz_queries);
  free(buf);
  return 0;
}
