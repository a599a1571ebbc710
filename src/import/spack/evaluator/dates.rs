//! Dates in `url_for_version` (versions that are dates, `2018-01-12`):
//! `datetime.datetime.strptime(str(version), "%Y-%m-%d").date()` and
//! `datetime.datetime.strftime(d, "%d%b%Y")` / `d.strftime(…)` with the
//! directives `%Y`, `%y`, `%m`, `%d`, `%b`, `%B` in the C locale.

use tree_sitter::Node;

use crate::import::spack::evaluator::value::{
    Args, CallValue, Eval, Evaluator, Unevaluable, Value, text,
};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// A date call of `n` (function `func`), or `None` if it is not one.
pub(crate) fn date_call(n: Node, func: Node, args: &Args, ev: &Evaluator) -> Option<Eval<Value>> {
    let name = text(func, ev.src);
    let fail = |what: &str| Unevaluable::new(n, what.to_string());
    let arg = |i: usize| -> Eval<Value> {
        let a = args
            .positional
            .get(i)
            .ok_or_else(|| fail("date argument"))?;
        ev.eval(*a)
    };
    if name.ends_with("datetime.strptime") {
        return Some((|| match (arg(0)?, arg(1)?) {
            (Value::Str(s), Value::Str(f)) => parse(&s, &f).ok_or_else(|| fail("strptime")),
            _ => Err(fail("strptime")),
        })());
    }
    if name.ends_with("datetime.strftime") {
        return Some((|| match (arg(0)?, arg(1)?) {
            (d, Value::Str(f)) => format(&d, &f).ok_or_else(|| fail("strftime")),
            _ => Err(fail("strftime")),
        })());
    }
    if func.kind() != "attribute" {
        return None;
    }
    let attr = text(func.child_by_field_name("attribute")?, ev.src);
    if !matches!(attr, "date" | "strftime") {
        return None;
    }
    let obj = ev.eval(func.child_by_field_name("object")?).ok()?;
    if !is_date(&obj) {
        return None;
    }
    Some(match attr {
        "date" => Ok(obj),
        _ => match arg(0) {
            Ok(Value::Str(f)) => format(&obj, &f).ok_or_else(|| fail("strftime")),
            _ => Err(fail("strftime")),
        },
    })
}

fn is_date(v: &Value) -> bool {
    matches!(v, Value::Call(c) if c.name == "date")
}

fn date(y: i64, m: i64, d: i64) -> Value {
    Value::Call(Box::new(CallValue {
        name: "date".into(),
        args: vec![Value::Int(y), Value::Int(m), Value::Int(d)],
        kwargs: Vec::new(),
    }))
}

/// `strptime` with `%Y`, `%m`, `%d` and literal characters.
fn parse(s: &str, fmt: &str) -> Option<Value> {
    let (mut y, mut m, mut d) = (None, None, None);
    let mut rest = s;
    let mut f = fmt.chars();
    while let Some(c) = f.next() {
        if c != '%' {
            rest = rest.strip_prefix(c)?;
            continue;
        }
        let (slot, width) = match f.next()? {
            'Y' => (&mut y, 4),
            'm' => (&mut m, 2),
            'd' => (&mut d, 2),
            _ => return None,
        };
        let digits = rest
            .chars()
            .take(width)
            .take_while(char::is_ascii_digit)
            .count();
        if digits == 0 {
            return None;
        }
        *slot = Some(rest[..digits].parse::<i64>().ok()?);
        rest = &rest[digits..];
    }
    let (y, m, d) = (y?, m.unwrap_or(1), d.unwrap_or(1));
    let valid = rest.is_empty() && (1..=12).contains(&m) && (1..=days_in(y, m)).contains(&d);
    valid.then(|| date(y, m, d))
}

fn days_in(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn format(d: &Value, fmt: &str) -> Option<Value> {
    let Value::Call(c) = d else { return None };
    let [Value::Int(y), Value::Int(m), Value::Int(day)] = c.args.as_slice() else {
        return None;
    };
    let month = MONTHS.get(usize::try_from(*m - 1).ok()?)?;
    let mut out = String::new();
    let mut f = fmt.chars();
    while let Some(ch) = f.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        match f.next()? {
            'Y' => out.push_str(&format!("{y:04}")),
            'y' => out.push_str(&format!("{:02}", y % 100)),
            'm' => out.push_str(&format!("{m:02}")),
            'd' => out.push_str(&format!("{day:02}")),
            'b' => out.push_str(&month[..3]),
            'B' => out.push_str(month),
            '%' => out.push('%'),
            _ => return None,
        }
    }
    Some(Value::Str(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_and_format_in_the_c_locale() {
        let d = parse("2018-01-12", "%Y-%m-%d").unwrap();
        assert_eq!(format(&d, "%d%b%Y"), Some(Value::Str("12Jan2018".into())));
        assert_eq!(format(&d, "%B %y"), Some(Value::Str("January 18".into())));
        assert!(parse("2018-02-30", "%Y-%m-%d").is_none());
        assert!(parse("2018-01-12x", "%Y-%m-%d").is_none());
    }
}
