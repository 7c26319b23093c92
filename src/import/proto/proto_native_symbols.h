/* proto_native_symbols: ModuleSymbols packets giving the mojo methods of
 * Chrome's TrackEvents their names.
 *
 * Rules (Perfetto's): a ModuleSymbols packet names addresses of the module
 * whose build id (as hex) it gives, by the function name of each address's
 * first line. At the end of the file, each
 * "<parent>.mojo_interface_method.native_symbol" arg pair (mapping_id,
 * rel_pc; proto_args_chrome.c) whose mapping's build id and rel_pc are
 * named becomes "<parent>.mojo_method_name" (the name without a
 * "_Sym::IPCStableHash" or "_Sym::IPCStableHash()" suffix) and
 * "<parent>.mojo_interface_tag" (that name without its last "::" component,
 * "::" written ".", when the suffix was there; else the name itself).
 * Pairs not named stay as they are.
 *
 * Java class names: the obfuscated classes of every DeobfuscationMapping
 * (whatever its package) rename, at the end of the file, the string args
 * Perfetto treats as Java class names (android_view_dump's
 * activity[i].view[j].class_name); other args keep their values. */
#ifndef WEFT_PROTO_NATIVE_SYMBOLS_H
#define WEFT_PROTO_NATIVE_SYMBOLS_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TRACE_PACKET_MODULE_SYMBOLS 61

typedef struct proto_native_symbols proto_native_symbols;

void proto_native_symbols_free(proto_native_symbols *s);
/* Notes the key of a native symbol's mapping_id arg. */
int proto_native_symbols_note_key(proto_native_symbols **s, string_id mapping_key);
/* Reads a ModuleSymbols packet field. */
int proto_module_symbols_parse(import_file *f, proto_native_symbols **s, const proto_field *fl);
/* Reads the obfuscated class names of a DeobfuscationMapping field. */
int proto_native_symbols_classes(import_file *f, proto_native_symbols **s, const proto_field *fl);
/* Gives the frames of each module the ModuleSymbols name their symbol
 * sets (call before deobfuscating them); see model/stack_profile.h. */
int proto_native_symbols_frames(import_file *f, proto_native_symbols *s);
/* Names the noted native symbol args that the symbols read name, and
 * deobfuscates the Java class name args. */
int proto_native_symbols_end(import_file *f, proto_native_symbols *s);

#endif
