//! Colang 2.x.
