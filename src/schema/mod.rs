//! The scope-profiler profile model and the rules `import-native` follows (SCHEMA.md §2, §5).
