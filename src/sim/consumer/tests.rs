//! Unit tests of the consumer core.
