//! Source text that renders a diagnostic's snippet from the lines around
//! its span, not from the start of the file.
//!
//! miette's `SourceCode` for a string scans every byte from the start of
//! the text up to the span to count lines, so each diagnostic costs the
//! size of the file before it: a command that warns two hundred times
//! about a large generated recipe spent more time rendering than resolving.
//! [`Lined`] knows where every line starts and hands miette only the text
//! from a line shortly before the span, then shifts the answer back: the
//! same snippet, line and column, for the cost of the snippet.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use std::sync::OnceLock;

/// A text and the byte offset where each of its lines starts, and of each
/// of its characters when it is not ASCII (both worked out on first use: a
/// recipe decoded from the cache of loaded recipes never needs them).
#[derive(Debug)]
pub struct Lined {
    text: String,
    /// `0` and the offset after every `\n`.
    starts: OnceLock<Box<[usize]>>,
    /// The offset of every character (`None`: an ASCII text).
    char_offsets: OnceLock<Option<Box<[usize]>>>,
    /// Whether the text has a `\r`, which miette also counts as a line end:
    /// such a text is read whole, as miette reads it. Looked up when a
    /// snippet is first read (most texts never are).
    has_cr: OnceLock<bool>,
}

impl Lined {
    pub fn new(text: String) -> Self {
        Lined {
            text,
            starts: OnceLock::new(),
            char_offsets: OnceLock::new(),
            has_cr: OnceLock::new(),
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The offset where each line starts (the first is `0`).
    pub fn starts(&self) -> &[usize] {
        self.starts.get_or_init(|| {
            let mut starts = vec![0];
            starts.extend(self.text.match_indices('\n').map(|(i, _)| i + 1));
            starts.into()
        })
    }

    /// The byte offset of every character, `None` for an ASCII text (where
    /// characters are bytes).
    pub fn char_offsets(&self) -> Option<&[usize]> {
        self.char_offsets
            .get_or_init(|| {
                (!self.text.is_ascii()).then(|| self.text.char_indices().map(|(i, _)| i).collect())
            })
            .as_deref()
    }
}

impl SourceCode for Lined {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let whole = || {
            self.text
                .read_span(span, context_lines_before, context_lines_after)
        };
        let has_cr = *self.has_cr.get_or_init(|| self.text.contains('\r'));
        if has_cr || span.offset() > self.text.len() {
            return whole();
        }
        // The line of the span's start (0-based), and a line more than the
        // context before it: from there, miette's scan keeps the same
        // context lines it keeps from the start of the file.
        let starts = self.starts();
        let line = starts.partition_point(|&s| s <= span.offset()) - 1;
        let base_line = line.saturating_sub(context_lines_before + 1);
        if base_line == 0 {
            return whole();
        }
        let base = starts[base_line];
        let shifted = SourceSpan::new((span.offset() - base).into(), span.len());
        let part =
            self.text[base..].read_span(&shifted, context_lines_before, context_lines_after)?;
        let at = part.span();
        Ok(Box::new(MietteSpanContents::new(
            part.data(),
            SourceSpan::new((at.offset() + base).into(), at.len()),
            part.line() + base_line,
            part.column(),
            part.line_count() + base_line,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What miette reads of the whole text and what [`Lined`] reads agree,
    /// for every span start and length and context, with and without a
    /// trailing newline, empty lines and multi-byte characters.
    #[test]
    fn reads_what_a_whole_scan_reads() {
        let texts = [
            "a: 1\nbb: 2\n\nccc: [x, y]\nd: é\ne: 5\nf: 6\ng: 7\n".to_string(),
            (0..40)
                .map(|i| format!("key{i}: value {i}\n"))
                .collect::<String>()
                + "tail",
        ];
        for text in texts {
            let lined = Lined::new(text.clone());
            let bounds = (0..=text.len()).filter(|&i| text.is_char_boundary(i));
            for start in bounds {
                for len in [0, 1, 3, 12] {
                    if start + len > text.len() || !text.is_char_boundary(start + len) {
                        continue;
                    }
                    let span = SourceSpan::new(start.into(), len);
                    for (before, after) in [(0, 0), (1, 1), (2, 3), (5, 0)] {
                        let want = text.read_span(&span, before, after);
                        let got = lined.read_span(&span, before, after);
                        match (want, got) {
                            (Ok(w), Ok(g)) => {
                                let what = format!("{start}+{len} ({before}, {after})");
                                assert_eq!(w.data(), g.data(), "{what}");
                                assert_eq!(w.span(), g.span(), "{what}");
                                assert_eq!(w.line(), g.line(), "{what}");
                                assert_eq!(w.column(), g.column(), "{what}");
                                assert_eq!(w.line_count(), g.line_count(), "{what}");
                            }
                            (Err(_), Err(_)) => {}
                            (w, g) => panic!(
                                "{start}+{len}: miette {:?}, lined {:?}",
                                w.is_ok(),
                                g.is_ok()
                            ),
                        }
                    }
                }
            }
        }
    }
}
