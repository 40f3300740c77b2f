//! The ratatui dashboard: model, update, view over [`crate::cluster::snapshot::Snapshot`]s.
