/* `weft view --manifest M`: the page's changes made on top of the user's
 * manifest. cli_vm_parse reads from M, per input, the entry naming it and
 * what it says of the input's machine, reference file and offset;
 * cli_vm_render writes M again with the page's changes edited into those
 * entries (the rest of M, every other key and entry, byte for byte). */
#ifndef WEFT_CLI_VIEW_MANIFEST_H
#define WEFT_CLI_VIEW_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

/* One `files` entry of the manifest: offsets are into the manifest text;
 * a span [b, e) is 0, 0 when absent. */
typedef struct cli_vm_file {
  char *path;            /* as written in the manifest (unescaped) */
  int input;             /* the input it names, or -1 */
  size_t close;          /* the entry's closing '}' */
  size_t machine_b, machine_e;   /* the "machine" value */
  size_t machines_b, machines_e; /* the whole "machines" member */
  size_t clocks_b, clocks_close; /* the "clocks" value: its '{' and '}' */
  size_t sync_b, sync_e;         /* the "clocks" "sync_to" value */
  size_t offset_b, offset_e;     /* the "clocks" "offset_ns" value */
  char *machine;         /* machine.name, or NULL */
  char *sync_file;       /* clocks.sync_to.file, or NULL */
  int has_offset;
  int64_t offset;
} cli_vm_file;

typedef struct cli_vm {
  char *text; /* the manifest */
  size_t len;
  size_t files_close; /* the `files` array's ']' (0: no array) */
  cli_vm_file *files;
  int file_count;
  int *entry; /* per input: its entry in files, or -1 */
  int input_count;
} cli_vm;

/* A change of one input (cli_vm_render): each part optional. */
typedef struct cli_vm_change {
  const char *machine;   /* NULL: unchanged */
  int has_offset;
  int64_t offset;
  int ref;               /* the input to sync to, or -1: as the manifest says */
  const char *ref_clock; /* sync_to.clock of a new sync_to, or NULL */
} cli_vm_change;

/* Reads the manifest at `path` for these inputs: 0, or -1 with err. */
int cli_vm_load(cli_vm *m, const char *path, const char *const *inputs, int count,
                char *err, size_t err_cap);
void cli_vm_free(cli_vm *m);
/* The input an entry's sync_to names, or -1. */
int cli_vm_input_named(const cli_vm *m, const char *name, const char *const *inputs);
/* The manifest with changes[input] applied (to free()), or NULL. */
char *cli_vm_render(const cli_vm *m, const cli_vm_change *changes,
                    const char *const *inputs);

#endif
