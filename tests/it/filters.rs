//! What insta filters of several test modules share.

/// `s` as a regular expression matching itself (a path in a snapshot filter).
pub fn regex_escape(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '/' || c == '_' || c == '-' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}
