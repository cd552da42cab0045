//! The `.spt` binary trace format (SCHEMA.md §1).
