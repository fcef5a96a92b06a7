"""memory-3layer core: the one library every script and hook calls.

Split by concern, imported lazily so a hook pays only for what its event needs:
  paths       project root and store resolution, layout names (cheap, no I/O beyond stat)
  store       lock, atomic writes, reading and writing the three layers
  redaction   secret detection and masking
  similarity  exact and near-duplicate detection
  recording   the record pipeline (validate, scan, dedup, write)
  loading     the budgeted loader
  cli         shared argument and output conventions of the scripts
"""

__version__ = "0.1.0"
