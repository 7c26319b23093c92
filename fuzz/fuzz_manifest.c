/* perfetto_manifest reader: manifest_parse on raw bytes, then every lookup
 * on what it accepted (the header's invariants are checked). */
#include "fuzz_common.h"

#include "manifest/manifest.h"

static void fuzz_check_file(const manifest *m, const manifest_file *f) {
  FUZZ_CHECK(f->path && f->path[0]);
  FUZZ_CHECK(manifest_find_file(m, f->path) == f);
  FUZZ_CHECK(!(f->machine && f->has_machines));
  for (size_t j = 0; j < f->machine_count; j++) {
    const manifest_machine *mm = &f->machines[j];
    FUZZ_CHECK(mm->name && mm->name[0]);
    FUZZ_CHECK(manifest_file_find_machine_id(f, mm->id) != NULL);
    FUZZ_CHECK(manifest_file_find_machine_name(f, mm->name) != NULL);
    FUZZ_CHECK(manifest_file_declares_machine(f, mm->name));
  }
  if (f->has_clocks) {
    FUZZ_CHECK(f->clocks.sync_to.file_index < m->file_count);
    FUZZ_CHECK(f->clocks.offset_ns != INT64_MIN);
    FUZZ_CHECK(manifest_find_file(m, f->clocks.sync_to.file) ==
               &m->files[f->clocks.sync_to.file_index]);
  }
  base_error err = {0};
  int rc = manifest_check_machine_id(f, 7, &err);
  FUZZ_CHECK(rc == WEFT_OK || (rc == WEFT_EPARSE && err.message[0]));
  rc = manifest_check_multi_machine(m, f->path, &err);
  FUZZ_CHECK(rc <= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  (void)manifest_detect((const char *)data, size);
  manifest m;
  base_error err = {0};
  int rc = manifest_parse((const char *)data, size, &m, &err);
  if (rc != WEFT_OK) {
    FUZZ_CHECK(rc < 0 && rc >= WEFT_EABORT);
    FUZZ_CHECK(strncmp(err.message, "perfetto_manifest: ", 19) == 0);
    manifest_free(&m);
    return 0;
  }
  FUZZ_CHECK(m.version == 1);
  if (m.trace_time.present) FUZZ_CHECK(m.trace_time.clock != MANIFEST_CLOCK_NONE);
  for (size_t i = 0; i < m.file_count; i++) fuzz_check_file(&m, &m.files[i]);
  for (size_t i = 0; i < m.attribute_count; i++)
    FUZZ_CHECK(m.attributes[i].key != NULL);
  (void)manifest_find_file(&m, "");
  manifest_free(&m);
  return 0;
}
