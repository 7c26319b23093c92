"""weft's own Python API: weft.TraceProcessor runs the weft binary on
traces (merged on one timeline) and answers SQL over the TraceProcessor
RPC, with the standard library only (pandas optional). See
python/README.md."""
from .api import QueryError, QueryResult, TraceProcessor, WeftError

__all__ = ['TraceProcessor', 'QueryResult', 'QueryError', 'WeftError']
