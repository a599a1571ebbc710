//! Text in the page: HTML escaping and how times and sizes read.

use std::fmt::Write;

/// `s` with `& < > " '` escaped, for text and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `0.42 s`, `12.3 s`, `4 min 05 s`, `2 h 03 min`.
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "–".into();
    }
    if secs < 10.0 {
        format!("{secs:.2} s")
    } else if secs < 60.0 {
        format!("{secs:.1} s")
    } else if secs < 3600.0 {
        let s = secs.round() as u64;
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        let m = (secs / 60.0).round() as u64;
        format!("{} h {:02} min", m / 60, m % 60)
    }
}

/// `812 B`, `4.2 KiB`, `13.0 MiB`, `1.20 GiB`.
pub fn bytes(n: u64) -> String {
    const K: f64 = 1024.0;
    let f = n as f64;
    if f < K {
        format!("{n} B")
    } else if f < K * K {
        format!("{:.1} KiB", f / K)
    } else if f < K * K * K {
        format!("{:.1} MiB", f / K / K)
    } else {
        format!("{:.2} GiB", f / K / K / K)
    }
}

/// A number for SVG coordinates: at most one decimal, no trailing `.0`.
pub fn num(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    let mut s = String::new();
    if r == r.trunc() {
        let _ = write!(s, "{}", r as i64);
    } else {
        let _ = write!(s, "{r:.1}");
    }
    s
}

/// `label` cut to `max` characters with an ellipsis.
pub fn fit(label: &str, max: usize) -> String {
    if label.chars().count() <= max {
        label.to_string()
    } else {
        let mut s: String = label.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_reads_well() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(duration(0.4213), "0.42 s");
        assert_eq!(duration(12.34), "12.3 s");
        assert_eq!(duration(245.0), "4 min 05 s");
        assert_eq!(duration(7380.0), "2 h 03 min");
        assert_eq!(bytes(812), "812 B");
        assert_eq!(bytes(4300), "4.2 KiB");
        assert_eq!(bytes(3 << 30), "3.00 GiB");
        assert_eq!(num(3.0), "3");
        assert_eq!(num(2.345), "2.3");
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abc", 4), "abc");
    }
}
