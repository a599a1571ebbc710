//! The command's settings, resolved once by [`stack::ops::command_settings`]
//! from the flags a command has, the environment and the cluster
//! configuration; the table of rules is tested here through real command
//! lines.

pub use stack::ops::command_settings as resolve;

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
