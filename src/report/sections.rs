//! The page's sections besides the graph and the timeline: the failures
//! (first, when there are any), one table row per package, the audit and the
//! steps of the run.

use std::fmt::Write;
use std::path::Path;

use super::audit_view::{AuditFinding, AuditState};
use super::model::Model;
use super::record::{Outcome, RunStatus};
use super::text::{bytes, duration, esc};

/// Findings shown per kind; the rest are counted (all are in `audit.json`).
const FINDINGS_SHOWN: usize = 200;

/// A link to a log: relative to the report when below its directory, else
/// a `file:` URL.
pub fn log_href(log: &str, report_dir: &Path) -> String {
    let p = Path::new(log);
    let target = match p.strip_prefix(report_dir) {
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => format!("file://{log}"),
    };
    let mut out = String::with_capacity(target.len());
    for c in target.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            '%' => out.push_str("%25"),
            c => out.push(c),
        }
    }
    out
}

/// The failures of the run: the error that ended it, each failed package
/// with its log's tail, and what was skipped. Empty when nothing failed.
pub fn failures(m: &Model, report_dir: &Path) -> String {
    let Some(run) = &m.input.run else {
        return String::new();
    };
    let failed = m.failed();
    if failed.is_empty() && run.error.is_none() {
        return String::new();
    }
    let mut out = String::from("<section id=\"failures\" class=\"failures\"><h2>Failures</h2>\n");
    if let Some(e) = &run.error {
        let _ = writeln!(
            out,
            "<div class=\"failure\"><h3>The build stopped with an error</h3><pre>{}</pre></div>",
            esc(e)
        );
    }
    for p in failed {
        let Some(r) = &p.run else { continue };
        let (phase, message, tail) = match &r.failure {
            Some(f) => (f.phase.as_str(), f.message.as_str(), &f.log_tail[..]),
            None => ("?", "", &[][..]),
        };
        let _ = write!(
            out,
            "<div class=\"failure\" id=\"fail-{}\"><h3>{} failed in <code>{}</code></h3><p>{}</p>",
            esc(&p.name),
            esc(&p.label()),
            esc(phase),
            esc(message)
        );
        if let Some(log) = &r.log {
            let _ = write!(
                out,
                "<p>log: <a href=\"{}\">{}</a></p>",
                esc(&log_href(log, report_dir)),
                esc(log)
            );
        }
        if !tail.is_empty() {
            let _ = write!(
                out,
                "<p>the last {} lines of the log:</p><pre class=\"tail\">{}</pre>",
                tail.len(),
                esc(&tail.join("\n"))
            );
        }
        out.push_str("</div>\n");
    }
    let skipped: Vec<String> = m
        .pkgs
        .iter()
        .filter(|p| p.status() == Some(RunStatus::Skipped))
        .map(|p| {
            let why = p
                .run
                .as_ref()
                .and_then(|r| r.skipped_because.clone())
                .unwrap_or_default();
            format!("<li>{} — {}</li>", esc(&p.label()), esc(&why))
        })
        .collect();
    if !skipped.is_empty() {
        let _ = writeln!(
            out,
            "<details><summary>{} skipped</summary><ul>{}</ul></details>",
            skipped.len(),
            skipped.join("")
        );
    }
    out.push_str("</section>\n");
    out
}

/// One row per package.
pub fn packages(m: &Model, report_dir: &Path) -> String {
    let mut out = String::from(
        "<section id=\"packages\"><h2>Packages</h2>\n<p class=\"note\">Click a column to sort; \
         click a node of the graph to find its row.</p><div class=\"table-box\">\
         <table id=\"pkg-table\" class=\"sortable\"><thead><tr><th>package</th><th>version</th>\
         <th>variants</th><th>environments</th><th>status</th><th>source</th><th>ran in</th>\
         <th class=\"n\">waited</th><th class=\"n\">build time</th><th class=\"n\">installed size</th>\
         <th class=\"n\">files</th><th>log</th></tr></thead><tbody>\n",
    );
    for (i, p) in m.pkgs.iter().enumerate() {
        let r = p.run.as_ref();
        let envs: Vec<&str> = p.envs.iter().map(|&e| m.envs[e].as_str()).collect();
        let source = match r.and_then(|r| r.source.as_ref()) {
            Some(s) => match &s.from {
                Some(from) => format!(
                    "<span title=\"{}\">{}</span>",
                    esc(from),
                    esc(s.route.as_str())
                ),
                None => esc(s.route.as_str()),
            },
            None if p.external => format!("<span title=\"{}\">system</span>", esc(&p.prefix)),
            None => String::new(),
        };
        let secs = |v: Option<f64>| match v {
            Some(s) => (format!("{s:.3}"), duration(s)),
            None => ("-1".into(), String::new()),
        };
        let (wait_key, wait) = secs(r.and_then(|r| r.waited()));
        let (time_key, time) = secs(p.seconds());
        let (size_key, size, files) = match p.size {
            Some(s) => (s.bytes.to_string(), bytes(s.bytes), s.files.to_string()),
            None => ("-1".into(), String::new(), String::new()),
        };
        let log = match r.and_then(|r| r.log.as_ref()) {
            Some(l) => format!("<a href=\"{}\">log</a>", esc(&log_href(l, report_dir))),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "<tr id=\"p-{i}\" class=\"{}{}\"><td>{}</td><td>{}</td><td class=\"variants\">{}</td><td>{}</td>\
             <td><i class=\"{}\"></i>{}</td><td>{}</td><td>{}</td><td class=\"n\" data-k=\"{wait_key}\">{wait}</td>\
             <td class=\"n\" data-k=\"{time_key}\">{time}</td><td class=\"n\" data-k=\"{size_key}\">{size}</td>\
             <td class=\"n\" data-k=\"{}\">{files}</td><td>{log}</td></tr>",
            p.class(),
            if m.on_critical(i) { " crit" } else { "" },
            esc(&p.name),
            esc(&p.version),
            esc(&p.variants),
            esc(&envs.join(", ")),
            p.class(),
            esc(p.status_text()),
            source,
            esc(r.and_then(|r| r.lane.as_deref()).unwrap_or("")),
            if files.is_empty() { "-1" } else { &files },
        );
    }
    out.push_str("</tbody></table></div></section>\n");
    out
}

/// The audit: "clean" only when it ran and found nothing.
pub fn audit(m: &Model) -> String {
    let mut out = String::from("<section id=\"audit\"><h2>Audit</h2>\n");
    match &m.input.audit {
        AuditState::NotRun => {
            let why = match m.input.run.as_ref().map(|r| r.outcome) {
                Some(Outcome::Failed | Outcome::Error) => "the build stopped before it",
                Some(Outcome::UpToDate) => "nothing changed since the last image",
                _ if m.input.run.as_ref().is_some_and(|r| !r.only.is_empty()) => {
                    "a job of a distributed build stops before the audit"
                }
                _ => "no audit report was found",
            };
            let _ = writeln!(
                out,
                "<p class=\"audit-none\">Not audited in this run ({why}): nothing is claimed about the linkage.</p>"
            );
        }
        AuditState::Unreadable(e) => {
            let _ = writeln!(
                out,
                "<p class=\"audit-none\">The audit report could not be read: {}</p>",
                esc(e)
            );
        }
        AuditState::Ran(a) if a.clean() => {
            let _ = writeln!(
                out,
                "<p class=\"clean\">clean: {} files, {} ELF files, no findings.</p>",
                a.summary.files, a.summary.elf_files
            );
        }
        AuditState::Ran(a) => {
            let _ = writeln!(
                out,
                "<p class=\"findings\">{} errors, {} warnings in {} ELF files.</p>",
                a.summary.errors, a.summary.warnings, a.summary.elf_files
            );
            for (kind, fs) in a.by_kind() {
                let errors = fs.iter().filter(|f| f.severity == "error").count();
                let _ = write!(
                    out,
                    "<details class=\"kind\" open><summary><code>{}</code>: {} finding{} ({} error{})</summary>\
                     <table class=\"findings\"><thead><tr><th>severity</th><th>package</th><th>file</th>\
                     <th>library chain</th><th>what</th></tr></thead><tbody>",
                    esc(kind),
                    fs.len(),
                    if fs.len() == 1 { "" } else { "s" },
                    errors,
                    if errors == 1 { "" } else { "s" }
                );
                for f in fs.iter().take(FINDINGS_SHOWN) {
                    finding_row(f, &mut out);
                }
                out.push_str("</tbody></table>");
                if fs.len() > FINDINGS_SHOWN {
                    let _ = write!(
                        out,
                        "<p class=\"note\">and {} more (all are in audit.json).</p>",
                        fs.len() - FINDINGS_SHOWN
                    );
                }
                out.push_str("</details>\n");
            }
        }
    }
    out.push_str("</section>\n");
    out
}

fn finding_row(f: &AuditFinding, out: &mut String) {
    let mut chain: Vec<String> = f.chain.iter().map(|c| esc(c)).collect();
    if chain.last().map(String::as_str) != Some(esc(&f.file).as_str()) {
        chain.push(esc(&f.file));
    }
    if let Some(t) = &f.target {
        let to = match &f.path {
            Some(p) => format!("{} = {}", esc(t), esc(p)),
            None => format!("{} (not found)", esc(t)),
        };
        chain.push(format!("<b>{to}</b>"));
    }
    let mut what = esc(&f.message);
    if let Some(h) = &f.hint {
        let _ = write!(what, "<br><span class=\"hint\">hint: {}</span>", esc(h));
    }
    let _ = write!(
        out,
        "<tr class=\"{}\"><td>{}</td><td>{}</td><td><code>{}</code></td><td class=\"chain\">{}</td><td>{}</td></tr>",
        esc(&f.severity),
        esc(&f.severity),
        esc(&f.group),
        esc(&f.file),
        chain.join(" → "),
        what
    );
}

/// The steps of the run and their times.
pub fn stages(m: &Model) -> String {
    let Some(run) = &m.input.run else {
        return String::new();
    };
    let total: f64 = run.stages.iter().map(|s| s.seconds).sum::<f64>().max(0.001);
    let mut out =
        String::from("<section id=\"stages\"><h2>Steps</h2><table class=\"stages\"><tbody>");
    for s in &run.stages {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"barcell\"><span style=\"width:{:.1}%\"></span></td></tr>",
            esc(&s.stage),
            duration(s.seconds),
            100.0 * s.seconds / total
        );
    }
    let _ = writeln!(
        out,
        "<tr><td>whole run</td><td class=\"n\">{}</td><td></td></tr></tbody></table></section>",
        duration(run.wall_seconds)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_link_relative_below_the_report_else_as_file_urls() {
        assert_eq!(
            log_href("/b/logs/x 1.log", Path::new("/b")),
            "logs/x%201.log"
        );
        assert_eq!(
            log_href("/elsewhere/x.log", Path::new("/b")),
            "file:///elsewhere/x.log"
        );
    }
}
