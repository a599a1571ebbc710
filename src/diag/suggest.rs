//! "Did you mean …?" suggestions for misspelt names.

/// The candidate closest to `word`, if it is close enough to be a plausible
/// typo: a case-insensitive match first, then a candidate that extends the
/// word or is extended by it (`make` → `makefile`), then the best
/// Jaro-Winkler similarity ≥ 0.8 or Levenshtein distance of at most a third
/// of the word.
pub fn nearest<'a, I, S>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    let lower = word.to_lowercase();
    let (suffix, prefix) = (format!("_{lower}"), format!("{lower}_"));
    let short = word.chars().count().max(3);
    let counts = letter_counts(&lower);
    let mut best: Option<(f64, &'a str)> = None;
    let mut cand_lower = String::new();
    for cand in candidates {
        let cand = cand.as_ref();
        if cand == word {
            continue;
        }
        // One lowercase copy per candidate, its buffer reused: thousands of
        // package names are compared for one misspelt word.
        cand_lower.clear();
        if cand.is_ascii() {
            cand_lower.push_str(cand);
            cand_lower.make_ascii_lowercase();
        } else {
            cand_lower.push_str(&cand.to_lowercase());
        }
        let cand_lower = cand_lower.as_str();
        let score = if cand_lower == lower {
            2.0
        } else if lower.len() >= 3
            && (cand_lower.starts_with(&lower) || lower.starts_with(cand_lower))
        {
            // `make` → `makefile`, `libfabrics` → `libfabric`
            1.5 - (cand_lower.len().abs_diff(lower.len()) as f64) / 100.0
        } else if lower.len() >= 3
            && (cand_lower.ends_with(&suffix) || cand_lower.starts_with(&prefix))
        {
            // `args` → `cmake_args`: the word is a part of the name
            1.2 - (cand_lower.len().abs_diff(lower.len()) as f64) / 100.0
        } else if !could_be_close(&lower, &counts, cand_lower, short) {
            continue;
        } else {
            let jw = strsim::jaro_winkler(&lower, cand_lower);
            if jw >= 0.8 || strsim::levenshtein(&lower, cand_lower) * 3 <= short {
                jw
            } else {
                continue;
            }
        };
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, cand));
        }
    }
    best.map(|(_, c)| c)
}

/// How often each ASCII character occurs in `word` (`None` when it is not
/// ASCII).
fn letter_counts(word: &str) -> Option<[u16; 128]> {
    let mut counts = [0u16; 128];
    for b in word.bytes() {
        *counts.get_mut(usize::from(b))? += 1;
    }
    Some(counts)
}

/// Whether `cand` may pass either similarity test against `word`, decided
/// from the characters they share `c` (a multiset): the Jaro similarity is
/// at most `(c/|word| + c/|cand| + 1) / 3`, and Jaro-Winkler reaches 0.8
/// only above 0.7; the Levenshtein distance is at least `max(|word|,
/// |cand|) - c`. A cheap count that leaves out most of thousands of
/// package names before the quadratic measures run; never a candidate
/// either test would accept.
fn could_be_close(word: &str, counts: &Option<[u16; 128]>, cand: &str, short: usize) -> bool {
    let (Some(counts), true) = (counts, cand.is_ascii()) else {
        return true;
    };
    let mut left = *counts;
    let mut common = 0usize;
    for b in cand.bytes() {
        let n = &mut left[usize::from(b)];
        if *n > 0 {
            *n -= 1;
            common += 1;
        }
    }
    let (la, lb) = (word.len() as f64, cand.len() as f64);
    let jaro_bound = (common as f64 / la + common as f64 / lb + 1.0) / 3.0;
    let edits_at_least = word.len().max(cand.len()) - common;
    jaro_bound > 0.7 || edits_at_least * 3 <= short
}

/// The names of `items`, each in backticks, separated by commas: the list
/// a diagnostic's help offers (`` `a`, `b`, `c` ``).
pub fn backticked<I>(items: I) -> String
where
    I: IntoIterator,
    I::Item: std::fmt::Display,
{
    items
        .into_iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A help text "did you mean `x`?" for the nearest candidate, if any.
pub fn did_you_mean<'a, I, S>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    nearest(word, candidates).map(|c| format!("did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let keys = ["fabrics", "cuda", "gdrcopy"];
        assert_eq!(nearest("fabric", &keys), Some("fabrics"));
        assert_eq!(nearest("CUDA", &keys), Some("cuda"));
        assert_eq!(nearest("zzzzzz", &keys), None);
        assert_eq!(nearest("make", &["cmake", "makefile"]), Some("makefile"));
        assert_eq!(
            did_you_mean("gdrcpy", &keys).as_deref(),
            Some("did you mean `gdrcopy`?")
        );
    }

    #[test]
    fn a_word_that_is_part_of_a_key_suggests_that_key() {
        let keys = ["system", "cmake_args", "source_subdir", "install"];
        assert_eq!(nearest("args", &keys), Some("cmake_args"));
        assert_eq!(nearest("source", &keys), Some("source_subdir"));
        assert_eq!(nearest("ar", &keys), None);
    }

    /// The prefilter never leaves out a candidate the measures accept:
    /// every pair of a few hundred generated words agrees with the
    /// unfiltered tests.
    #[test]
    fn the_prefilter_keeps_every_candidate_the_measures_accept() {
        let mut words = vec!["a".to_string(), "ab".to_string(), "zlib-ng".to_string()];
        let alphabet = [
            "lib", "fab", "ric", "cuda", "mpi", "ch", "-", "py", "x", "nccl", "ofi",
        ];
        for i in 0..alphabet.len() {
            for j in 0..alphabet.len() {
                words.push(format!("{}{}", alphabet[i], alphabet[j]));
                words.push(format!(
                    "{}{}{}",
                    alphabet[j],
                    alphabet[i],
                    alphabet[(i + j) % 11]
                ));
            }
        }
        for w in &words {
            let counts = letter_counts(w);
            let short = w.chars().count().max(3);
            for c in &words {
                let accepted =
                    strsim::jaro_winkler(w, c) >= 0.8 || strsim::levenshtein(w, c) * 3 <= short;
                if accepted {
                    assert!(could_be_close(w, &counts, c, short), "{w} / {c}");
                }
            }
        }
    }

    #[test]
    fn never_suggests_the_word_itself() {
        assert_eq!(nearest("cuda", &["cuda"]), None);
    }
}
