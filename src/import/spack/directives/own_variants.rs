//! `+name` / `~name` in the package's own conditions where `name` is not a
//! bool variant of the package. Spack reads `+name` as `name=true`: on a
//! valued variant it holds only for the value `true` (gromacs'
//! `conflicts("+openmp_max_threads", when="~openmp")`), and on a variant the
//! package does not define it never holds (libcatalyst's
//! `spec.satisfies("+conduit")`). The stack's checker rejects both
//! spellings. In the stack `name=true` is a bool value, which a valued
//! variant never has, so both conditions never hold: the entry is left out,
//! with a note.

use crate::import::yaml_out::Yaml;

use crate::import::spack::directives::model::{Kind, SpackPackage};
use crate::import::spack::directives::repeated_atoms::merge_repeats;
use crate::import::spack::directives::sections::Sections;
use crate::import::spack::evaluator::variant_info::VariantInfo;

/// What a `+name`/`~name` atom of the package's own condition becomes.
enum Atom {
    Keep,
    Never(String),
}

/// Rewrite (or leave out) the entries of the recipe's lists and of its
/// build and env sections whose `when` has such an atom.
pub(crate) fn apply(
    pkg: &mut SpackPackage,
    s: &mut Sections,
    build: &mut Yaml,
    env: &mut Vec<Yaml>,
) {
    // A variant the importer did not see (an unknown base class, a
    // `variant()` it could not read) must not make a condition "never".
    let unsure = pkg
        .untranslated
        .iter()
        .any(|u| u.construct == "unknown base class" || u.construct == "directive variant");
    let mut known: Vec<String> = pkg
        .directives("variant")
        .filter_map(|d| d.arg_str(0).map(str::to_string))
        .collect();
    known.extend(s.variant_info.iter().map(|v| v.name.clone()));
    let cx = Cx {
        info: s.variant_info.clone(),
        known,
        unsure,
    };
    let mut notes = Notes::default();
    for list in [
        &mut s.dependencies,
        &mut s.conflicts,
        &mut s.provides,
        &mut s.patches,
        &mut s.resources,
        env,
    ] {
        list.retain_mut(|item| cx.entry(item, &mut notes));
    }
    cx.nested(build, &mut notes);
    // A variant defined per condition: a definition whose condition
    // names a variant, platform or version twice.
    for (_, def) in &mut s.variants {
        if let Yaml::Seq(defs) = def {
            defs.retain_mut(|d| cx.entry_with(d, &mut notes, |w| merge_repeats(&cx.info, w)));
        }
    }
    // The spec-syntax notes of the conditions now read (or left out).
    pkg.untranslated.retain(|u| {
        u.construct != "spec syntax"
            || !notes
                .resolved
                .iter()
                .any(|w| u.detail.starts_with(&format!("condition `{w}`:")))
    });
    for n in notes.never {
        pkg.untranslated(0, Kind::Info, "condition never holds", n);
    }
}

/// What the rewriting found: why entries were left out, and the
/// conditions the stack's spec parser did not read before.
#[derive(Default)]
struct Notes {
    never: Vec<String>,
    resolved: Vec<String>,
}

struct Cx {
    info: Vec<VariantInfo>,
    known: Vec<String>,
    unsure: bool,
}

impl Cx {
    /// Rewrite `item`'s `when`; `false` when it never holds.
    fn entry(&self, item: &mut Yaml, notes: &mut Notes) -> bool {
        self.entry_with(item, notes, |w| self.condition(w))
    }

    /// Rewrite `item`'s `when` with `rewrite`; `false` when it never holds.
    fn entry_with(
        &self,
        item: &mut Yaml,
        notes: &mut Notes,
        rewrite: impl Fn(&str) -> Result<String, String>,
    ) -> bool {
        let Yaml::Map(entries) = item else {
            return true;
        };
        let Some((_, Yaml::Str(when))) = entries.iter_mut().find(|(k, _)| k == "when") else {
            return true;
        };
        let unread = crate::spec::Spec::parse(when).is_err();
        match rewrite(when) {
            Ok(w) => {
                if unread && crate::spec::Spec::parse(&w).is_ok() {
                    notes.resolved.push(when.clone());
                }
                *when = w;
                true
            }
            Err(why) => {
                if unread {
                    notes.resolved.push(when.clone());
                }
                notes.never.push(format!("`{when}`: {why}"));
                false
            }
        }
    }

    /// The entries with a `when` anywhere below the build section.
    fn nested(&self, y: &mut Yaml, notes: &mut Notes) {
        match y {
            Yaml::Seq(items) => {
                items.retain_mut(|i| self.entry(i, notes));
                for i in items {
                    self.nested(i, notes);
                }
            }
            Yaml::Map(entries) => {
                for (_, v) in entries {
                    self.nested(v, notes);
                }
            }
            _ => {}
        }
    }

    /// The condition as Spack reads it, or why it never holds.
    fn condition(&self, when: &str) -> Result<String, String> {
        merge_repeats(&self.info, &self.signs(when)?)
    }

    /// `+name`/`~name` atoms as Spack reads them, or why they never hold.
    fn signs(&self, when: &str) -> Result<String, String> {
        let own_end = when.find(['^', '%']).unwrap_or(when.len());
        let (own, deps) = when.split_at(own_end);
        let mut out = String::with_capacity(when.len());
        let mut chars = own.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c != '+' && c != '~' {
                out.push(c);
                continue;
            }
            let mut start = i + 1;
            while own[start..].starts_with(c) {
                start += 1;
                chars.next();
            }
            let len = own[start..]
                .find(|x: char| !(x.is_ascii_alphanumeric() || x == '_' || x == '-'))
                .unwrap_or(own.len() - start);
            let name = &own[start..start + len];
            match self.atom(name, c == '+') {
                Atom::Keep => out.push_str(&own[i..start + len]),
                Atom::Never(why) => return Err(why),
            }
            for _ in 0..len {
                chars.next();
            }
        }
        out.push_str(deps);
        Ok(out)
    }

    fn atom(&self, name: &str, plus: bool) -> Atom {
        let defs: Vec<&VariantInfo> = self.info.iter().filter(|v| v.name == name).collect();
        if name.is_empty() || defs.iter().any(|v| v.is_bool) {
            return Atom::Keep;
        }
        if defs.is_empty() {
            return if self.unsure || self.known.iter().any(|k| k == name) {
                Atom::Keep
            } else {
                Atom::Never(format!("the package has no variant `{name}`"))
            };
        }
        let value = if plus { "true" } else { "false" };
        Atom::Never(format!(
            "`{name}` is a valued variant: Spack reads `{}{name}` as `{name}={value}`, \
             a value the stack's spec syntax reads as a bool, which no valued variant has",
            if plus { '+' } else { '~' }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx() -> Cx {
        let v = |name: &str, is_bool: bool, values: Option<Vec<&str>>| VariantInfo {
            name: name.into(),
            is_bool,
            values: values.map(|vs| vs.into_iter().map(str::to_string).collect()),
            multi: false,
            when: None,
            line: 1,
        };
        Cx {
            info: vec![
                v("openmp", true, None),
                v("max_threads", false, None),
                v("mode", false, Some(vec!["a", "b"])),
            ],
            known: vec!["openmp".into(), "max_threads".into(), "mode".into()],
            unsure: false,
        }
    }

    #[test]
    fn plus_of_a_valued_or_unknown_variant_never_holds() {
        let c = cx();
        assert!(c.condition("+max_threads ~openmp").is_err());
        assert!(c.condition("~openmp~max_threads").is_err());
        assert!(c.condition("+mode").is_err());
        assert!(c.condition("+conduit").is_err());
        let kept = [
            "+openmp ^mpi+cuda",
            "~openmp mode=a",
            "++openmp",
            "^foo+conduit",
        ];
        for w in kept {
            assert_eq!(c.condition(w).unwrap(), w);
        }
    }
}
