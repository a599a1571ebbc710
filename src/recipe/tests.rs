//! Tests of stack recipe loading.
