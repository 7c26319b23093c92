-- android.memory.heap_graph.oome: the OutOfMemoryErrors that made ART dump
-- its heap (ArtProcessMetadata packets).

-- Details of Java OutOfMemoryError exceptions that triggered heap dumps.
CREATE PERFETTO VIEW android_heap_graph_java_oome_details(
  -- Unique identifier for this details row.
  id ID,
  -- The heap graph instance this OOM trigger details belongs to.
  heap_graph_id JOINID(heap_graph.id),
  -- Number of bytes that triggered the OOME.
  allocation_size_bytes LONG,
  -- Total free bytes in the Java heap at OOME time.
  total_bytes_free LONG,
  -- Free bytes remaining until OOME.
  free_bytes_until_oom LONG,
  -- Error message associated with the OOME.
  error_msg STRING
) AS
SELECT id, heap_graph_id, allocation_size_bytes, total_bytes_free, free_bytes_until_oom,
  error_msg
FROM __intrinsic_heap_graph_java_oome_details;
