//! `max_size:` of a version or resource: the most bytes its source may have,
//! downloaded or extracted (defaults: 16 GiB per download, 64 GiB per
//! extraction). A number of bytes or a number with a binary unit:
//! `max_size: 40 GiB`, `max_size: 512MiB`, `max_size: 1048576`.

use crate::diag::Code;
use crate::diag::yaml::{Cx, Node};

/// A size limit as written and in bytes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MaxSize {
    pub bytes: u64,
    /// As written (the YAML writers write it back unchanged).
    pub text: String,
}

const UNITS: &[(&str, u32)] = &[("B", 0), ("KiB", 10), ("MiB", 20), ("GiB", 30), ("TiB", 40)];

/// Bytes of `text` (`"40 GiB"`, `"1048576"`), or why not.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = (&t[..split], t[split..].trim());
    let n: u64 = digits
        .parse()
        .map_err(|_| "expected a whole number of bytes, optionally with a unit".to_string())?;
    let shift = if unit.is_empty() {
        0
    } else {
        UNITS
            .iter()
            .find(|(u, _)| *u == unit)
            .map(|(_, s)| *s)
            .ok_or_else(|| format!("unknown unit `{unit}`"))?
    };
    if n == 0 {
        return Err("a limit of 0 bytes admits no source".into());
    }
    n.checked_mul(1 << shift)
        .ok_or_else(|| "more bytes than a 64-bit count holds".to_string())
}

/// Reads `max_size:`; a bad value is an error at its position.
pub(super) fn read(cx: &mut Cx, node: &Node) -> Option<MaxSize> {
    let s = cx.string(node, "`max_size`")?;
    match parse_size(&s.value) {
        Ok(bytes) => Some(MaxSize {
            bytes,
            text: s.value.clone(),
        }),
        Err(reason) => {
            cx.error(
                Code::BadSource,
                &s.loc,
                format!("`max_size: {}` is not a size: {reason}", s.value),
                "expected bytes, e.g. `40 GiB`",
                Some("a whole number with an optional unit B, KiB, MiB, GiB or TiB".into()),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("40 GiB"), Ok(40 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("3 B"), Ok(3));
        assert!(parse_size("0").is_err());
        assert!(
            parse_size("40 GB")
                .unwrap_err()
                .contains("unknown unit `GB`")
        );
        assert!(parse_size("-1").is_err());
        assert!(parse_size("99999999999 TiB").is_err());
        assert!(parse_size("GiB").is_err());
    }
}
