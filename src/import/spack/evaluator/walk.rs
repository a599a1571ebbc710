//! The one walker over the statements of a method body: blocks, `if`/
//! `elif`/`else` under their conditions, `for` loops over literal lists and
//! `return`s that end some paths. What a statement produces (argument
//! lists, environment changes, install steps, filters, flags) is the
//! collector's: each consumer implements [`Collector`] and gets the
//! condition every statement runs under from the [`Frame`].
//!
//! The collectors: hook bodies (`statements::Body`), `flag_handler`
//! (`hooks::flags`), `url_for_version` for one version (`url_method`: its
//! conditions decide, so one arm runs), module-level loops
//! (`directives::module`: constants, and loops whose items are bound in the
//! module's scope),
//! directory properties (`hooks::property`: each `return` under its arm's
//! condition) and class bodies (`directives::class_body`: conditions
//! decided on Linux, loops over evaluable lists, `with` contexts; what
//! cannot be read is recorded and the walk carries on).

use tree_sitter::Node;

use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::evaluator::exprs::{Exprs, err, first_words};
use crate::import::spack::evaluator::value::{
    Eval, Unevaluable, Value, bind_target, children, text,
};
use crate::import::spack::evaluator::variant_info::VariantInfo;

/// Where the walk is: the expressions in scope and the conditions of the
/// current statement.
pub(crate) struct Frame<'a> {
    pub(crate) e: Exprs<'a>,
    /// The condition the current statement runs under: the arms of the
    /// enclosing `if`s, and no `return` reached before it.
    pub(crate) cond: Cond,
    /// The conditions of the enclosing `if` arms only.
    pub(crate) arms: Cond,
    /// The condition of the innermost arm as written (`True`: an `else`,
    /// or no arm).
    pub(crate) arm: Cond,
    /// The condition under which no `return` ran yet: after `if c: return
    /// x`, the rest of the body runs under `not c`.
    pub(crate) live: Cond,
    /// A `return` ended the block being run.
    pub(crate) done: bool,
    /// The arms being run, outermost first: (`if` statement, arm).
    pub(crate) path: Vec<(usize, usize)>,
    /// `if` statements numbered so far.
    next_if: usize,
}

impl<'a> Frame<'a> {
    /// The frame of a body in `src`, before its first statement.
    pub(crate) fn new(src: &'a str, variants: &'a [VariantInfo]) -> Self {
        Frame {
            e: Exprs::new(src, variants),
            cond: Cond::True,
            arms: Cond::True,
            arm: Cond::True,
            live: Cond::True,
            done: false,
            path: Vec::new(),
            next_if: 0,
        }
    }

    pub(crate) fn t(&self, node: Node) -> String {
        text(node, self.e.src).to_string()
    }
}

/// The [`Collector::frame`] and [`Collector::frame_mut`] of a collector
/// whose [`Frame`] is the field `$f`.
macro_rules! frame_in {
    ($f:ident) => {
        fn frame(&self) -> &$crate::import::spack::evaluator::walk::Frame<'a> {
            &self.$f
        }

        fn frame_mut(&mut self) -> &mut $crate::import::spack::evaluator::walk::Frame<'a> {
            &mut self.$f
        }
    };
}
pub(crate) use frame_in;

/// What a consumer collects from the statements of a method body; the
/// walk itself (blocks, branches, loops, returns) is the provided methods.
pub(crate) trait Collector<'a> {
    /// Appended to the name of a statement the walk does not take
    /// (`" in flag_handler"`).
    const IN: &'static str = "";

    /// A loop's variables are bound in a frame of their own, dropped after
    /// each item (class bodies, module-level loops); a method body's stay
    /// bound after the loop, as Python's do.
    const LOOP_FRAME: bool = false;

    fn frame(&self) -> &Frame<'a>;
    fn frame_mut(&mut self) -> &mut Frame<'a>;

    /// An assignment, augmented assignment or call statement.
    fn expression(&mut self, e: Node) -> Eval<()>;

    /// A `return` statement (the frame's `live` and `done` already say
    /// which paths it ends); `cond` is the condition it runs under.
    fn ret(&mut self, stmt: Node, cond: Cond) -> Eval<()>;

    /// The condition of an `if` or `elif`.
    fn condition(&self, node: Node) -> Eval<Cond> {
        self.frame().e.cond(node)
    }

    /// No statement of the current block runs any more.
    fn stopped(&self) -> bool {
        self.frame().done
    }

    /// A `with` statement.
    fn with_statement(&mut self, stmt: Node) -> Eval<()> {
        err(stmt, format!("`with_statement`{}", Self::IN))
    }

    /// A `for` statement the collector refuses (before its loop is run).
    fn check_loop(&self, _stmt: Node, _iterable: Node) -> Eval<()> {
        Ok(())
    }

    fn block(&mut self, stmts: &[Node]) -> Eval<()> {
        for stmt in stmts {
            if self.stopped() {
                break;
            }
            if let Err(e) = self.statement(*stmt) {
                self.failed(*stmt, e)?;
            }
        }
        Ok(())
    }

    /// A statement of a block could not be walked: its error ends the walk
    /// unless the collector records it and carries on (the class body).
    fn failed(&mut self, _stmt: Node, e: Unevaluable) -> Eval<()> {
        Err(e)
    }

    fn statement(&mut self, stmt: Node) -> Eval<()> {
        match stmt.kind() {
            "expression_statement" => {
                let Some(e) = children(stmt).first().copied() else {
                    return Ok(());
                };
                match e.kind() {
                    "string" => Ok(()),
                    "assignment" | "augmented_assignment" | "call" => self.expression(e),
                    _ => self.other_expression(e),
                }
            }
            "if_statement" => self.if_statement(stmt),
            "with_statement" => self.with_statement(stmt),
            "for_statement" => self.for_statement(stmt),
            "return_statement" => self.return_statement(stmt),
            "pass_statement" => Ok(()),
            _ => self.other_statement(stmt),
        }
    }

    /// An expression statement that is no assignment, call or docstring.
    fn other_expression(&mut self, e: Node) -> Eval<()> {
        err(
            e,
            format!("statement `{}`", first_words(&self.frame().t(e))),
        )
    }

    /// A statement the walk does not take (`raise`, `while`, `try`, …).
    fn other_statement(&mut self, stmt: Node) -> Eval<()> {
        err(stmt, format!("`{}`{}", stmt.kind(), Self::IN))
    }

    /// Each arm under its condition and the negations of the arms before
    /// it; arms that cannot hold any more are not read.
    fn if_statement(&mut self, stmt: Node) -> Eval<()> {
        let missing = |what: &str| Unevaluable::new(stmt, what);
        let c = self.condition(
            stmt.child_by_field_name("condition")
                .ok_or_else(|| missing("if"))?,
        )?;
        let (outer, outer_arms) = {
            let f = self.frame_mut();
            f.next_if += 1;
            (f.cond.clone(), f.arms.clone())
        };
        let id = self.frame().next_if;
        let then = stmt
            .child_by_field_name("consequence")
            .ok_or_else(|| missing("if"))?;
        let arm_cond =
            |rest: &Cond, c: &Cond, outer: &Cond| outer.clone().and(rest.clone()).and(c.clone());
        let conds = (
            arm_cond(&Cond::True, &c, &outer),
            arm_cond(&Cond::True, &c, &outer_arms),
            c.clone(),
        );
        self.branch((id, 0), conds, then)?;
        let mut rest = c.not();
        let mut cursor = stmt.walk();
        let alternatives: Vec<Node> = stmt
            .children_by_field_name("alternative", &mut cursor)
            .collect();
        for (arm, alt) in alternatives.into_iter().enumerate() {
            if rest == Cond::False {
                break;
            }
            let arm = (id, arm + 1);
            match alt.kind() {
                "elif_clause" => {
                    let c = self.condition(
                        alt.child_by_field_name("condition")
                            .ok_or_else(|| Unevaluable::new(alt, "elif"))?,
                    )?;
                    let body = alt
                        .child_by_field_name("consequence")
                        .ok_or_else(|| Unevaluable::new(alt, "elif"))?;
                    let conds = (
                        arm_cond(&rest, &c, &outer),
                        arm_cond(&rest, &c, &outer_arms),
                        c.clone(),
                    );
                    self.branch(arm, conds, body)?;
                    rest = rest.and(c.not());
                }
                "else_clause" => {
                    let body = alt
                        .child_by_field_name("body")
                        .ok_or_else(|| Unevaluable::new(alt, "else"))?;
                    let conds = (
                        outer.clone().and(rest.clone()),
                        outer_arms.clone().and(rest.clone()),
                        Cond::True,
                    );
                    self.branch(arm, conds, body)?;
                }
                _ => {}
            }
        }
        let f = self.frame_mut();
        f.cond = outer.and(f.live.clone());
        f.arms = outer_arms;
        Ok(())
    }

    /// One arm: `conds` is (the condition it runs under, its arms only,
    /// its own as written).
    fn branch(&mut self, arm: (usize, usize), conds: (Cond, Cond, Cond), body: Node) -> Eval<()> {
        if conds.0 == Cond::False || conds.1 == Cond::False {
            return Ok(());
        }
        let (saved, saved_arms, saved_arm) = {
            let f = self.frame_mut();
            f.path.push(arm);
            (
                std::mem::replace(&mut f.cond, conds.0),
                std::mem::replace(&mut f.arms, conds.1),
                std::mem::replace(&mut f.arm, conds.2),
            )
        };
        let r = self.block(&children(body));
        let f = self.frame_mut();
        let returned = f.done;
        f.path.pop();
        if f.done && f.live != Cond::False {
            // A conditional return: the statements after this block run
            // where it did not return.
            f.done = false;
        }
        f.cond = saved.and(f.live.clone());
        f.arms = saved_arms;
        f.arm = saved_arm;
        r?;
        self.arm_end(body, returned)
    }

    /// After an arm that ran (`body`, the block of its statements);
    /// `returned`: a `return` ended it.
    fn arm_end(&mut self, _body: Node, _returned: bool) -> Eval<()> {
        Ok(())
    }

    /// `for x in <literal list>:`: the body once per item.
    fn for_statement(&mut self, stmt: Node) -> Eval<()> {
        let (Some(left), Some(right), Some(body)) = (
            stmt.child_by_field_name("left"),
            stmt.child_by_field_name("right"),
            stmt.child_by_field_name("body"),
        ) else {
            return err(stmt, "for");
        };
        self.check_loop(stmt, right)?;
        for item in self.loop_items(right)? {
            self.bind_item(left, item)?;
            let r = self.block(&children(body));
            self.item_done();
            r?;
        }
        Ok(())
    }

    /// The items a `for` loops over: a literal list.
    fn loop_items(&self, iterable: Node) -> Eval<Vec<Value>> {
        self.frame()
            .e
            .value(iterable)?
            .iter_items()
            .ok_or_else(|| Unevaluable::new(iterable, "loop over a non-list"))
    }

    /// Bind one item to a loop's target (`x`, `a, b`).
    fn bind_item(&mut self, target: Node, item: Value) -> Eval<()> {
        let e = &mut self.frame_mut().e;
        if Self::LOOP_FRAME {
            e.scope.push();
        }
        let bound = bind_target(target, e.src, item, &mut e.scope);
        if bound.is_err() && Self::LOOP_FRAME {
            e.scope.pop();
        }
        bound
    }

    /// After the body ran for one item.
    fn item_done(&mut self) {
        if Self::LOOP_FRAME {
            self.frame_mut().e.scope.pop();
        }
    }

    /// `return x`: under a condition (`if c: return x`), the rest of the
    /// body runs under `not c`.
    fn return_statement(&mut self, stmt: Node) -> Eval<()> {
        let f = self.frame_mut();
        let cond = f.cond.clone();
        f.done = true;
        f.live = if cond == Cond::True {
            Cond::False
        } else {
            f.live.clone().and(cond.clone().not())
        };
        self.ret(stmt, cond)
    }
}
