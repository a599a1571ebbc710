//! The word clauses: `key=value` variants, compiler flags, the
//! architecture keys, and the package name itself.

use super::super::error::SpecParseError;
use super::super::spec::{FLAG_NAMES, FlagList, Spec};
use super::super::target::TargetConstraint;
use super::super::variant::{VariantValue, is_bare_value_char, is_name_char};
use super::Parser;

impl Parser<'_> {
    /// A word: `key=value`, or the package name when it comes `first`.
    pub(super) fn word_clause(
        &mut self,
        spec: &mut Spec,
        first: bool,
    ) -> Result<(), SpecParseError> {
        let (start, word) = self.take_while(is_name_char);
        // Spack's `key:=value` (exactly these values of a multi-valued
        // variant): a requirement's values are already the variant's values
        // here (docs/spec-syntax.md), so it reads as `key=value`.
        if self.peek() == Some(':') && self.src[self.pos + 1..].starts_with('=') {
            self.pos += 1;
        }
        if self.peek() == Some('=') {
            let eq = self.pos;
            while self.peek() == Some('=') {
                self.pos += 1;
            }
            if FLAG_NAMES.contains(&word) {
                return self.flags_clause(spec, start, word, self.pos - eq > 1);
            }
            return self.key_value(spec, start, word);
        }
        if first && spec.name.is_none() {
            spec.name = Some(word.to_string());
            return Ok(());
        }
        let (message, help) = if spec.name.is_some() {
            (
                format!("unexpected `{word}`: a spec names one package"),
                format!(
                    "for a dependency write `^{word}`; for a variant `+{word}` or `{word}=value`"
                ),
            )
        } else {
            (
                format!("unexpected `{word}`: the package name comes first"),
                format!("write `{word} …` with the name at the start, or `+{word}` for a variant"),
            )
        };
        Err(self.error(start, word.len(), message, "unexpected name", Some(help)))
    }

    pub(super) fn set_variant(
        &self,
        spec: &mut Spec,
        at: usize,
        name: &str,
        value: VariantValue,
    ) -> Result<(), SpecParseError> {
        if spec.variants.contains_key(name) {
            return Err(self.error(
                at,
                self.pos - at,
                format!("variant `{name}` is given twice"),
                "given again here",
                None,
            ));
        }
        spec.variants.insert(name.to_string(), value);
        Ok(())
    }

    /// After `key=`: the value(s).
    pub(super) fn key_value(
        &mut self,
        spec: &mut Spec,
        key_at: usize,
        key: &str,
    ) -> Result<(), SpecParseError> {
        let value_at = self.pos;
        let values = self.values(key)?;
        let raw = &self.src[value_at..self.pos];
        let single = |p: &Self, what: &str| -> Result<String, SpecParseError> {
            match values.as_slice() {
                [v] if !v.is_empty() => Ok(v.clone()),
                _ => Err(p.error(
                    value_at,
                    raw.len(),
                    format!("`{key}=` takes one {what}"),
                    "one value expected",
                    None,
                )),
            }
        };
        let twice = |p: &Self| {
            p.error(
                key_at,
                p.pos - key_at,
                format!("`{key}=` is given twice"),
                "given again here",
                None,
            )
        };
        match key {
            "target" => {
                let t = TargetConstraint::parse(raw)
                    .map_err(|e| self.convert_spec_error(e, value_at, raw))?;
                if spec.target.is_some() {
                    return Err(twice(self));
                }
                spec.target = Some(t);
            }
            "platform" => {
                let v = single(self, "platform name")?;
                if spec.platform.is_some() {
                    return Err(twice(self));
                }
                spec.platform = Some(v);
            }
            "os" => {
                let v = single(self, "operating system name")?;
                if spec.os.is_some() {
                    return Err(twice(self));
                }
                spec.os = Some(v);
            }
            "arch" => {
                let v = single(self, "`platform-os-target` triple")?;
                let parts: Vec<&str> = v.splitn(3, '-').collect();
                let [platform, os, target] = parts.as_slice() else {
                    return Err(self.error(
                        value_at,
                        raw.len(),
                        format!("expected `arch=platform-os-target`, found `arch={v}`"),
                        "not a platform-os-target triple",
                        Some("for example `arch=linux-sles15-neoverse_v2`".into()),
                    ));
                };
                if spec.platform.is_some() || spec.os.is_some() || spec.target.is_some() {
                    return Err(twice(self));
                }
                let target_at = value_at + platform.len() + os.len() + 2;
                let t = TargetConstraint::parse(target)
                    .map_err(|e| self.convert_spec_error(e, target_at, target))?;
                spec.platform = Some(platform.to_string());
                spec.os = Some(os.to_string());
                spec.target = Some(t);
            }
            _ => {
                let value = match values.as_slice() {
                    [v] if v == "true" || v == "True" => VariantValue::Bool(true),
                    [v] if v == "false" || v == "False" => VariantValue::Bool(false),
                    _ => VariantValue::Values(values.into_iter().collect()),
                };
                if spec.variants.contains_key(key) {
                    return Err(self.error(
                        key_at,
                        self.pos - key_at,
                        format!("variant `{key}` is given twice"),
                        "given again here",
                        Some(format!("list several values with commas: `{key}=a,b`")),
                    ));
                }
                spec.variants.insert(key.to_string(), value);
            }
        }
        Ok(())
    }

    /// After `cflags=` (`propagate`: after `cflags==`): one value, quoted
    /// or bare (commas belong to it: `ldflags=-Wl,-z,now`), split on
    /// whitespace into flags.
    pub(super) fn flags_clause(
        &mut self,
        spec: &mut Spec,
        key_at: usize,
        key: &str,
        propagate: bool,
    ) -> Result<(), SpecParseError> {
        let text = match self.peek() {
            Some('"' | '\'') => {
                let mut values = self.values(key)?;
                if values.len() != 1 {
                    return Err(self.error(
                        key_at,
                        self.pos - key_at,
                        format!("`{key}=` takes one value"),
                        "one value expected",
                        Some(format!("quote several flags together: `{key}=\"-O2 -g\"`")),
                    ));
                }
                values.pop().unwrap_or_default()
            }
            _ => {
                let (_, v) = self.take_while(|c| is_bare_value_char(c) || c == ',');
                if v.is_empty() {
                    return Err(self.expected(
                        &format!("flags after `{key}=`"),
                        Some(format!("for example `{key}=-O2` or `{key}=\"-O2 -g\"`")),
                    ));
                }
                v.to_string()
            }
        };
        if spec.flags.contains_key(key) {
            return Err(self.error(
                key_at,
                self.pos - key_at,
                format!("`{key}` is given twice"),
                "given again here",
                Some(format!("quote several flags together: `{key}=\"-O2 -g\"`")),
            ));
        }
        let flags: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        if !flags.is_empty() {
            spec.flags
                .insert(key.to_string(), FlagList { flags, propagate });
        }
        Ok(())
    }

    /// `value(,value)*`, each bare or quoted.
    pub(super) fn values(&mut self, key: &str) -> Result<Vec<String>, SpecParseError> {
        let mut out = Vec::new();
        loop {
            match self.peek() {
                Some(q @ ('"' | '\'')) => {
                    let open = self.pos;
                    self.pos += 1;
                    let rest = &self.src[self.pos..];
                    let Some(close) = rest.find(q) else {
                        return Err(self.error(
                            open,
                            self.src.len() - open,
                            format!("unterminated quoted value: no closing {q}"),
                            "opened here",
                            None,
                        ));
                    };
                    out.push(rest[..close].to_string());
                    self.pos += close + 1;
                }
                _ => {
                    let (_, v) = self.take_while(is_bare_value_char);
                    if v.is_empty() {
                        let what = if out.is_empty() {
                            format!("a value after `{key}=`")
                        } else {
                            "a value after `,`".to_string()
                        };
                        return Err(self.expected(&what, None));
                    }
                    out.push(v.to_string());
                }
            }
            if self.peek() == Some(',') {
                self.pos += 1;
            } else {
                return Ok(out);
            }
        }
    }
}
