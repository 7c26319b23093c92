/* Whole pipeline: bytes -> weft_open / file_begin / write / end /
 * load_finish -> a few queries -> close. The input is split at every
 * "\nWEFTFILE\n" marker into up to 4 files (f0, f1, ...), so seeds can pair
 * a perfetto_manifest with traces and the fuzzer explores merging. */
#include "fuzz_common.h"

#define FUZZ_MAX_FILES 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char marker[] = "\nWEFTFILE\n";
  const size_t mlen = sizeof marker - 1;
  static const char *const names[FUZZ_MAX_FILES] = {"f0", "f1", "f2", "f3"};
  const uint8_t *datas[FUZZ_MAX_FILES];
  size_t lens[FUZZ_MAX_FILES];
  size_t count = 0, start = 0;
  for (size_t i = 0; i + mlen <= size && count + 1 < FUZZ_MAX_FILES; i++) {
    if (memcmp(data + i, marker, mlen) != 0) continue;
    datas[count] = data + start;
    lens[count++] = i - start;
    start = i + mlen;
    i = start - 1;
  }
  datas[count] = data + start;
  lens[count++] = size - start;
  fuzz_load_files(count, names, datas, lens, fuzz_queries);
  return 0;
}
