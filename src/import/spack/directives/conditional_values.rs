//! Spack's `conditional(v…, when=W)` among a variant's `values=` or the
//! names of `build_system(…)`: values that exist only under a condition.
//! They become one recipe definition per condition (a variant written as a
//! list), the most specific first, since the first definition that holds
//! applies.

use crate::spec::Spec;

use crate::import::spack::evaluator::value::Value;

/// One definition: its condition (`None`: always) and allowed values.
pub(crate) type Definition = (Option<String>, Vec<String>);

/// Whether `values` holds a `conditional(…)`.
pub(crate) fn has_conditional(values: &[Value]) -> bool {
    values
        .iter()
        .any(|v| matches!(v, Value::Call(c) if c.name == "conditional"))
}

/// Values under one condition.
type Group = (String, Vec<String>);

/// The values without condition and the groups of conditional ones (one
/// per distinct `when`, in order of appearance).
fn split(values: &[Value]) -> Result<(Vec<String>, Vec<Group>), String> {
    let mut always = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    for v in values {
        let Value::Call(c) = v else {
            always.push(v.to_py_string());
            continue;
        };
        if c.name != "conditional" {
            return Err(format!("value {}", v.to_py_string()));
        }
        let when = c
            .kwargs
            .iter()
            .find(|(k, _)| k == "when")
            .and_then(|(_, w)| w.as_str())
            .ok_or("conditional(…) without a string `when`")?;
        let when = crate::import::spack::evaluator::cond::normalize(when.trim());
        let vals = c.args.iter().map(Value::to_py_string);
        match groups.iter_mut().find(|(w, _)| *w == when) {
            Some((_, g)) => g.extend(vals),
            None => groups.push((when, vals.collect())),
        }
    }
    Ok((always, groups))
}

/// The definitions, most specific condition first, the unconditional
/// values last. Each condition's definition also allows the values of the
/// conditions it implies. An error when two conditions overlap without one
/// implying the other (no ordered list expresses that).
pub(crate) fn definitions(values: &[Value]) -> Result<Vec<Definition>, String> {
    let (always, groups) = split(values)?;
    let mut specs = Vec::new();
    for (w, _) in &groups {
        specs.push(Spec::parse(w).map_err(|e| format!("condition `{w}`: {e}"))?);
    }
    let implies = |i: usize, j: usize| specs[i].satisfies(&specs[j]);
    for i in 0..specs.len() {
        for j in i + 1..specs.len() {
            if specs[i].intersects(&specs[j]) && !implies(i, j) && !implies(j, i) {
                return overlapping(always, &groups, &specs);
            }
        }
    }
    // More specific (implying more of the others) first.
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse((0..groups.len()).filter(|&j| implies(i, j)).count()));
    let mut defs: Vec<Definition> = order
        .iter()
        .map(|&i| {
            let mut vals = always.clone();
            for (j, (_, g)) in groups.iter().enumerate() {
                if implies(i, j) {
                    vals.extend(
                        g.iter()
                            .filter(|v| !vals.contains(v))
                            .cloned()
                            .collect::<Vec<_>>(),
                    );
                }
            }
            (Some(groups[i].0.clone()), vals)
        })
        .collect();
    if !always.is_empty() {
        defs.push((None, always));
    }
    Ok(defs)
}

/// Conditions that overlap without one implying the other (`+hip`,
/// `+cuda`): one definition per combination that can hold together, the
/// largest first. At most four conditions (sixteen combinations).
fn overlapping(
    always: Vec<String>,
    groups: &[Group],
    specs: &[Spec],
) -> Result<Vec<Definition>, String> {
    let k = groups.len();
    if k > 4 {
        return Err(format!("{k} overlapping conditions"));
    }
    let mut subsets: Vec<u32> = (1..(1u32 << k)).collect();
    subsets.sort_by_key(|m| std::cmp::Reverse(m.count_ones()));
    let mut defs = Vec::new();
    for mask in subsets {
        let members: Vec<usize> = (0..k).filter(|i| mask & (1 << i) != 0).collect();
        let together = members
            .iter()
            .all(|&i| members.iter().all(|&j| specs[i].intersects(&specs[j])));
        if !together {
            continue;
        }
        let whens: Vec<&str> = members.iter().map(|&i| groups[i].0.as_str()).collect();
        let when = crate::import::spack::evaluator::cond::join_conditions(&whens);
        if Spec::parse(&when).is_err() {
            continue; // `build_system=a build_system=b`: cannot hold together
        }
        let mut vals = always.clone();
        for &i in &members {
            vals.extend(
                groups[i]
                    .1
                    .iter()
                    .filter(|v| !vals.contains(v))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
        }
        defs.push((Some(when), vals));
    }
    if !always.is_empty() {
        defs.push((None, always));
    }
    Ok(defs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::spack::evaluator::value::CallValue;

    fn cond(vals: &[&str], when: &str) -> Value {
        Value::Call(Box::new(CallValue {
            name: "conditional".into(),
            args: vals.iter().map(|v| Value::Str(v.to_string())).collect(),
            kwargs: vec![("when".into(), Value::Str(when.into()))],
        }))
    }

    #[test]
    fn nested_version_ranges_accumulate_their_values() {
        let values = [
            Value::Str("14".into()),
            cond(&["17"], "@1.63.0:"),
            cond(&["20"], "@1.77.0:"),
        ];
        let defs = definitions(&values).unwrap();
        assert_eq!(
            defs,
            vec![
                (
                    Some("@1.77.0:".into()),
                    vec!["14".into(), "17".into(), "20".into()]
                ),
                (Some("@1.63.0:".into()), vec!["14".into(), "17".into()]),
                (None, vec!["14".into()]),
            ]
        );
    }

    #[test]
    fn overlapping_conditions_get_a_definition_per_combination() {
        let values = [
            Value::Str("none".into()),
            cond(&["a"], "+x"),
            cond(&["b"], "+y"),
        ];
        let defs = definitions(&values).unwrap();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            defs,
            vec![
                (Some("+x +y".into()), s(&["none", "a", "b"])),
                (Some("+x".into()), s(&["none", "a"])),
                (Some("+y".into()), s(&["none", "b"])),
                (None, s(&["none"])),
            ]
        );
    }
}
