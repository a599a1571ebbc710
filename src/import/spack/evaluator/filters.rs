//! `filter_file(…)`, `FileFilter(…).filter(…)` and `with working_dir(…)` in
//! `patch()`/`edit()` bodies → the recipe's `build.filter:` entries. Only
//! what means the same in the stack is taken: relative literal paths,
//! patterns [`crate::file_filter::pyre`] reads alike, no backups, no
//! `start_at`/`stop_at`.

use tree_sitter::Node;

use crate::file_filter::{FileFilter, compile};
use crate::import::spack::evaluator::collected::FilterItem;
use crate::import::spack::evaluator::exprs::{Local, err, first_words};
use crate::import::spack::evaluator::statements::Body;
use crate::import::spack::evaluator::value::{Args, Unevaluable, Value, children};
use crate::import::spack::evaluator::walk::Collector;

type Eval<T> = crate::import::spack::evaluator::value::Eval<T>;

impl Body<'_> {
    /// `filter_file(regex, repl, *files, string=, backup=False, ignore_absent=)`.
    pub(crate) fn filter_file(&mut self, call: Node) -> Eval<()> {
        let args =
            Args::of_call(call, self.f.e.src).ok_or_else(|| Unevaluable::new(call, "call"))?;
        let [regex, repl, files @ ..] = &args.positional[..] else {
            return err(call, "filter_file without a pattern and a replacement");
        };
        if files.is_empty() {
            return err(call, "filter_file without files");
        }
        let files = files
            .iter()
            .map(|f| self.filter_path(*f).map(|p| self.in_dir(&p)))
            .collect::<Eval<Vec<String>>>()?;
        self.push_filters(call, *regex, *repl, &files, &args)
    }

    /// `x = FileFilter("a", "b")`: the files, for a later `x.filter(…)`
    /// (Python resolves them then, in the `working_dir` of that call).
    pub(crate) fn file_filter_object(&self, r: Node) -> Eval<Option<Local>> {
        let is_ff = r.kind() == "call"
            && r.child_by_field_name("function")
                .is_some_and(|f| self.t(f) == "FileFilter");
        if !is_ff {
            return Ok(None);
        }
        let args = Args::of_call(r, self.f.e.src).ok_or_else(|| Unevaluable::new(r, "call"))?;
        if !args.keywords.is_empty() || args.positional.is_empty() {
            return err(r, "FileFilter arguments");
        }
        let files = args
            .positional
            .iter()
            .map(|f| self.filter_path(*f))
            .collect::<Eval<Vec<String>>>()?;
        Ok(Some(Local::Files(files)))
    }

    /// `x.filter(regex, repl, …)` for `x = FileFilter(…)`, and
    /// `FileFilter(…).filter(…)`; `None` when `obj` is not a file filter.
    pub(crate) fn filter_method(&mut self, call: Node, obj: Node) -> Eval<Option<()>> {
        let files = match self.f.e.scope.local(&self.t(obj)) {
            Some(Local::Files(f)) => f.clone(),
            _ => match self.file_filter_object(obj)? {
                Some(Local::Files(f)) => f,
                _ => return Ok(None),
            },
        };
        let args =
            Args::of_call(call, self.f.e.src).ok_or_else(|| Unevaluable::new(call, "call"))?;
        let [regex, repl] = &args.positional[..] else {
            return err(call, "FileFilter.filter arguments");
        };
        let files: Vec<String> = files.iter().map(|f| self.in_dir(f)).collect();
        self.push_filters(call, *regex, *repl, &files, &args)?;
        Ok(Some(()))
    }

    /// `with working_dir("dir"):` — paths inside are relative to `dir`.
    pub(crate) fn working_dir(&mut self, stmt: Node) -> Eval<()> {
        let clause = children(stmt)
            .into_iter()
            .find(|c| c.kind() == "with_clause")
            .ok_or_else(|| Unevaluable::new(stmt, "with"))?;
        let items = children(clause);
        let [item] = &items[..] else {
            return err(stmt, "with of several items");
        };
        let call = item.child_by_field_name("value").unwrap_or(*item);
        let func = call.child_by_field_name("function").map(|f| self.t(f));
        let args = Args::of_call(call, self.f.e.src);
        let (Some("working_dir"), Some(args)) = (func.as_deref(), args) else {
            return err(stmt, format!("with `{}`", first_words(&self.t(call))));
        };
        let ([dir], true) = (&args.positional[..], args.keywords.is_empty()) else {
            return err(call, "working_dir arguments");
        };
        let dir = self.filter_path(*dir).map(|d| self.in_dir(&d))?;
        let body = stmt
            .child_by_field_name("body")
            .ok_or_else(|| Unevaluable::new(stmt, "with"))?;
        let outer = std::mem::replace(&mut self.dir, dir);
        let r = self.block(&children(body));
        self.dir = outer;
        r
    }

    /// `p` below the current `working_dir`.
    pub(crate) fn in_dir(&self, p: &str) -> String {
        match self.dir.as_str() {
            "" | "." => p.to_string(),
            d => format!("{d}/{p}"),
        }
    }

    /// A relative literal path that stays inside the tree.
    fn filter_path(&self, node: Node) -> Eval<String> {
        let p = self.f.e.tmpl(node)?;
        let plain = !p.contains("{{") && !p.contains("{%");
        let rel = std::path::Path::new(&p);
        let inside = rel.components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        });
        if !plain || !inside || p.is_empty() {
            return err(
                node,
                format!("path `{}` outside the source tree", first_words(&p)),
            );
        }
        Ok(p.trim_start_matches("./").trim_end_matches('/').to_string())
    }

    fn push_filters(
        &mut self,
        call: Node,
        regex: Node,
        repl: Node,
        files: &[String],
        args: &Args,
    ) -> Eval<()> {
        let mut string = false;
        let mut ignore_absent = false;
        for (k, v) in &args.keywords {
            let value = self.f.e.value(*v)?;
            let flag = matches!(value, Value::Bool(_)) && value.truthy();
            match (k.as_str(), matches!(value, Value::Bool(_))) {
                ("string", true) => string = flag,
                ("ignore_absent", true) => ignore_absent = flag,
                ("backup", true) if !flag => {}
                _ => return err(*v, format!("filter_file keyword `{k}`")),
            }
        }
        let regex_t = self.f.e.tmpl(regex)?;
        let replace = self.f.e.tmpl(repl)?;
        for file in files {
            let filter = FileFilter {
                file: file.clone(),
                regex: regex_t.clone(),
                replace: replace.clone(),
                string,
                ignore_absent,
            };
            check_pattern(call, &filter)?;
            self.out.filters.push(FilterItem {
                cond: self.f.cond.clone(),
                filter,
            });
        }
        Ok(())
    }
}

/// The pattern must mean the same in the stack: checked with every
/// template part replaced by a plain word.
fn check_pattern(call: Node, f: &FileFilter) -> Eval<()> {
    let probe = FileFilter {
        regex: without_templates(&f.regex),
        ..f.clone()
    };
    match compile(&probe) {
        Ok(_) => Ok(()),
        Err(crate::file_filter::FilterError::Regex { why, .. }) => {
            err(call, format!("filter_file pattern: {why}"))
        }
        Err(e) => err(call, e.to_string()),
    }
}

fn without_templates(t: &str) -> String {
    let mut out = String::new();
    let mut rest = t;
    while let Some(open) = rest.find("{{").or_else(|| rest.find("{%")) {
        out.push_str(&rest[..open]);
        let close = if rest[open..].starts_with("{{") {
            "}}"
        } else {
            "%}"
        };
        match rest[open..].find(close) {
            Some(end) => {
                out.push('x');
                rest = &rest[open + end + 2..];
            }
            None => return out,
        }
    }
    out.push_str(rest);
    out
}
