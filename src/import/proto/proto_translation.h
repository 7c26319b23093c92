/* proto_translation: Perfetto's translation tables (TracePacket
 * translation_table), read when the packet is tokenized so that they apply
 * to every event of the trace, wherever the table lies in the file:
 *  - slice_name: a raw slice name becomes its deobfuscated name;
 *  - chrome_histogram: a histogram's name_hash gives
 *    "chrome_histogram_sample.name";
 *  - chrome_user_event: an action_hash gives "chrome_user_event.action";
 *  - chrome_study: a ChromeTrigger's trigger_name_hash gives
 *    "chrome_trigger.name".
 * Owns the maps (raw -> translated string ids); a later entry for a key
 * replaces an earlier one. */
#ifndef WEFT_PROTO_TRANSLATION_H
#define WEFT_PROTO_TRANSLATION_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

typedef struct proto_translation proto_translation;

/* Reads a TranslationTable message into the file's tables. */
int proto_translation_read(import_file *f, proto_translation **t, proto_span table);

enum proto_translation_kind {
  PROTO_TRANSLATE_SLICE_NAME,      /* key: the raw name's string id */
  PROTO_TRANSLATE_HISTOGRAM,       /* key: the name hash */
  PROTO_TRANSLATE_USER_EVENT,      /* key: the action hash */
  PROTO_TRANSLATE_PROCESS_TRACK,   /* key: the raw track name's string id */
  PROTO_TRANSLATE_MARK_SITE,       /* key: a performance mark's site hash */
  PROTO_TRANSLATE_MARK_NAME,       /* key: a performance mark's mark hash */
  PROTO_TRANSLATE_STUDY,           /* key: a Chrome trigger's name hash */
  PROTO_TRANSLATE_KINDS
};

/* The translation of `key`, or STRING_NULL. */
string_id proto_translate(const proto_translation *t, enum proto_translation_kind kind,
                          uint64_t key);

/* The name a track scoped to a process shows: the process_track_name
 * translation of `name`, else `name` itself. */
string_id proto_translate_process_track(const proto_translation *t, string_id name);

void proto_translation_free(proto_translation *t);

#endif
