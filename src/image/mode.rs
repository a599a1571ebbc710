//! The permission rule both writers apply: `chmod a+rX`.

/// `mode` (permission bits, including setuid/setgid/sticky) after `a+rX`:
/// readable by everyone; searchable/executable by everyone when it is a
/// directory or already executable by someone.
pub fn normalized_mode(mode: u32, is_dir: bool) -> u32 {
    let m = (mode & 0o7777) | 0o444;
    if is_dir || m & 0o111 != 0 {
        m | 0o111
    } else {
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plus_r_big_x() {
        assert_eq!(normalized_mode(0o600, false), 0o644);
        assert_eq!(normalized_mode(0o700, false), 0o755);
        assert_eq!(normalized_mode(0o700, true), 0o755);
        assert_eq!(normalized_mode(0o000, true), 0o555);
        assert_eq!(normalized_mode(0o640, false), 0o644);
        assert_eq!(normalized_mode(0o100, false), 0o555);
        assert_eq!(normalized_mode(0o4750, false), 0o4755);
        assert_eq!(normalized_mode(0o100644, false), 0o644);
    }
}
