//! The whole page: one HTML file with its style and script inline, which
//! loads nothing (its Content-Security-Policy forbids every fetch).

use std::fmt::Write;
use std::path::Path;

use super::input::{Origin, ReportInput};
use super::model::Model;
use super::record::RunStatus;
use super::text::{duration, esc};
use super::{graph, sections, timeline};

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// The page for `input`, to be written into `report_dir` (log links are
/// relative to it).
pub fn render(input: &ReportInput, report_dir: &Path) -> String {
    let m = Model::new(input);
    let mut out = String::with_capacity(64 * 1024 + m.pkgs.len() * 2048);
    let title = format!("{} — stack build report", input.lock.stack);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; \
         script-src 'unsafe-inline'; img-src data:\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{CSS}</style></head><body>\n",
        esc(&title)
    );
    header(&m, &mut out);
    // Failures first.
    out.push_str(&sections::failures(&m, report_dir));
    out.push_str(
        "<nav><a href=\"#graph\">plan</a><a href=\"#timeline\">timeline</a>\
         <a href=\"#packages\">packages</a><a href=\"#audit\">audit</a><a href=\"#stages\">steps</a></nav>\n",
    );
    out.push_str(&graph::section(&m));
    out.push_str(&timeline::section(&m));
    out.push_str(&sections::packages(&m, report_dir));
    out.push_str(&sections::audit(&m));
    out.push_str(&sections::stages(&m));
    let from = match &input.origin {
        Origin::BuildDir(p) => format!("the build directory {}", p.display()),
        Origin::Meta(p) => format!("the image metadata {}", p.display()),
    };
    let _ = write!(
        out,
        "<footer>Made by stack {} from {}.</footer>\n<script>{JS}</script></body></html>\n",
        env!("CARGO_PKG_VERSION"),
        esc(&from)
    );
    out
}

fn header(m: &Model, out: &mut String) {
    let lock = &m.input.lock;
    let (outcome, class) = match &m.input.run {
        Some(r) => (
            r.outcome.as_str(),
            format!("o-{}", r.outcome.as_str().replace(' ', "-")),
        ),
        None => ("image", "o-success".to_string()),
    };
    let _ = writeln!(
        out,
        "<header><h1>{} <span class=\"outcome {class}\">{}</span></h1>",
        esc(&lock.stack),
        esc(outcome)
    );
    let _ = writeln!(
        out,
        "<p class=\"facts\">cluster <b>{}</b>, mount <b>{}</b>, target <b>{}</b>, compiler <b>{}</b>, {} environments</p>",
        esc(&lock.cluster),
        esc(&lock.mount),
        esc(&lock.target),
        esc(&lock.compiler),
        m.envs.len()
    );
    if let Some(r) = &m.input.run {
        let count = |s: RunStatus| m.pkgs.iter().filter(|p| p.status() == Some(s)).count();
        let externals = m.pkgs.iter().filter(|p| p.external).count();
        let mut parts: Vec<String> = [
            RunStatus::Built,
            RunStatus::Remote,
            RunStatus::Cache,
            RunStatus::Installed,
            RunStatus::Failed,
            RunStatus::Skipped,
            RunStatus::NotNeeded,
        ]
        .iter()
        .filter(|s| count(**s) > 0)
        .map(|s| format!("<b>{}</b> {}", count(*s), s.as_str()))
        .collect();
        if externals > 0 {
            parts.push(format!("<b>{externals}</b> external"));
        }
        let mut executor = esc(&r.executor);
        if r.executor == "local" {
            let _ = write!(executor, " -j {}", r.jobs);
        }
        if !r.only.is_empty() {
            let _ = write!(executor, ", --only {}", esc(&r.only.join(" ")));
        }
        if let Some(c) = &r.binary_cache {
            let _ = write!(executor, ", binary cache {}", esc(c));
        }
        let _ = writeln!(
            out,
            "<p class=\"facts\">started <b>{}</b>, took <b>{}</b>, built with <b>{executor}</b></p>\
             <p class=\"facts\">{} packages: {}</p>",
            esc(&r.started_at),
            duration(r.wall_seconds),
            m.pkgs.len(),
            parts.join(", ")
        );
    } else {
        let _ = writeln!(
            out,
            "<p class=\"facts\">{} packages. This is the image's own record: it holds the plan, the \
             sizes and the audit, but no times (they stay beside the image, in <code>meta/run.json</code>).</p>",
            m.pkgs.len()
        );
    }
    out.push_str("</header>\n");
}
