//! Tests of cluster loading.
