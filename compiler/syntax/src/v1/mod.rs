//! Colang 1.0.
