"""Writes the traces of the browser tests into a folder: a phone (proto),
a server (systrace text) and a browser (Chrome JSON with args), from the
end-to-end tests' generators."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'e2e'))
import gen_traces  # noqa: E402

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, 'phone.pftrace'), 'wb') as f:
    f.write(gen_traces.proto_trace(300_000)[0])
with open(os.path.join(out, 'server.txt'), 'w') as f:
    f.write(gen_traces.systrace_trace(200_000))
text = gen_traces.json_trace(200_000)[0]
events = json.loads(text)
events = events['traceEvents'] if isinstance(events, dict) else events
events.append({'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 86_400 * 10**6 + 5, 'dur': 300,
               'name': 'marked', 'args': {'color': 'red'}})
with open(os.path.join(out, 'browser.json'), 'w') as f:
    json.dump({'traceEvents': events}, f)

# A watch (proto) with BOOTTIME only and no REALTIME: on a machine of its
# own, nothing relates its clock to the phone's, so it is placed by a
# same-domain guess.
from test_merge import BOOT, slice_packets, snapshot  # noqa: E402
import weft_e2e  # noqa: E402

weft_e2e.textproto_trace(out, 'watch.pftrace', snapshot([(BOOT, 1000), (3, 1000)]) +
                         slice_packets(1, 7, 'tick', 2_000_000, 500_000))
