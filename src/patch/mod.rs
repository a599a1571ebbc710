//! The `patch` stage. See the crate documentation for where it sits in the pipeline.
