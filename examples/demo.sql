SELECT p.name AS process, t.name AS thread, s.name AS slice, s.ts, s.dur, s.depth
FROM slice s
JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t USING (utid)
JOIN process p USING (upid)
ORDER BY s.ts;
