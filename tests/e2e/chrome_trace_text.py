"""Text-format Chrome track-event traces for the chrome.* stdlib tests: a
process with threads, and slices written as (ts, 'B'|'E'|'I', fields)."""

HEADER = '''packet {{ trusted_packet_sequence_id: 1 timestamp: 0 sequence_flags: 1
  interned_data {{ {interned} }}
  track_descriptor {{ uuid: 10 process {{ pid: 1 process_name: "Browser" }} }} }}
'''
THREAD = '''packet {{ trusted_packet_sequence_id: 1 timestamp: 0
  track_descriptor {{ uuid: {uuid} parent_uuid: 10 thread {{ pid: 1 tid: {uuid} thread_name: "{name}" }} }} }}
'''
EVENT = '''packet {{ trusted_packet_sequence_id: 1 timestamp: {ts}
  track_event {{ type: {type} track_uuid: {track} {fields} }} }}
'''
TYPES = {'B': 'TYPE_SLICE_BEGIN', 'E': 'TYPE_SLICE_END', 'I': 'TYPE_INSTANT'}


def source_locations(sites):
    """Interned source locations: sites maps iid to (file, function)."""
    return ' '.join('source_locations { iid: %d file_name: "%s" function_name: "%s" }'
                    % (iid, f, fn) for iid, (f, fn) in sorted(sites.items()))


def slice_fields(cat, name, extra=''):
    return 'categories: "%s" name: "%s" %s' % (cat, name, extra)


def trace(threads, events, sites=None):
    """threads: {uuid: name}; events: (ts, track, 'B'|'E'|'I', fields)."""
    text = HEADER.format(interned=source_locations(sites or {}))
    text += ''.join(THREAD.format(uuid=u, name=n) for u, n in sorted(threads.items()))
    text += ''.join(EVENT.format(ts=ts, track=track, type=TYPES[kind], fields=fields)
                    for ts, track, kind, fields in events)
    return text
