//! One tool declaration (a YAML/JSON mapping) to [`crate::ToolDecl`].
