//! What each obligation asks of a transition: the condition under which transition `j` raises
//! its event, read off the state before it and the edge it takes, exactly as `explicit::take`
//! and `run_tool` push their events. `None` when a transition can never raise it.

use stalwart_graph::NodeKind;
use z3::ast::Bool;

use super::encode::{State, Unrolling, and, or};
use super::tables::{CALL, HANDS_OFF, RUNS, UNGUARDED};
use crate::catalogue::ToolFacts;
use crate::system::{Obligation, is_code};

impl Unrolling<'_, '_> {
    /// The tools named `name` (the catalogue may in principle repeat a name).
    fn tools_named(&self, name: &str) -> Vec<usize> {
        self.tables
            .tools_by_name
            .get(name)
            .cloned()
            .unwrap_or_default()
    }

    /// Nodes of a kind whose id is `id` and that satisfy `p`.
    fn nodes_named(&self, kind: NodeKind, id: &str, p: impl Fn(usize) -> bool) -> Vec<usize> {
        self.tables
            .nodes_by_id
            .get(id)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&v| self.sys.kinds.get(v) == Some(&kind) && p(v))
            .collect()
    }

    /// Whether transition `j` raises the obligation's event; `None` when it never can.
    pub(crate) fn event(&self, o: &Obligation, j: usize) -> Option<Bool> {
        let s = self.states.get(j)?;
        let subject = o.subject.as_str();
        let sys = self.sys;
        let tools = self.tools_named(subject);
        let run_of = |class: Option<u64>, p: &dyn Fn(&ToolFacts) -> bool| {
            let nodes: Vec<usize> = tools
                .iter()
                .filter(|&&t| self.tool(t).is_some_and(p))
                .flat_map(|&t| self.tables.tool_nodes.get(t).into_iter().flatten().copied())
                .collect();
            Some(match class {
                Some(c) => and(&[self.class_is(j, c), self.reaches_by(j, nodes, 1 << c)?]),
                None => and(&[self.runs(j), self.reaches_by(j, nodes, RUNS)?]),
            })
        };
        let untrusted = || Bool::or(&[s.tainted.clone(), s.run_untrusted.clone()]);
        match o.rule {
            "QG001" => run_of(Some(UNGUARDED), &|_| true),
            "QG014" => run_of(Some(UNGUARDED), &|f| f.has_order_rule()),
            "QG012" => Some(and(&[run_of(Some(UNGUARDED), &|f| f.write)?, untrusted()])),
            "QG003" => self.escaped_order(j, s, &tools),
            "QG105" => {
                let wrote = run_of(None, &|f| f.write).map(|r| and(&[r, s.run_wrote.clone()]));
                or([wrote, self.pending_other(j, s, &tools)]
                    .into_iter()
                    .flatten()
                    .collect())
            }
            "QG013" => {
                let undoable = self.steps.get(j)?.undoable.clone()?;
                let last = or(tools
                    .iter()
                    .filter(|&&t| self.tool(t).is_some_and(|f| f.write && f.irreversible))
                    .flat_map(|&t| self.tables.tool_nodes.get(t).into_iter().flatten())
                    .map(|&u| s.last_irreversible.eq(u as u64))
                    .collect())?;
                Some(and(&[undoable, last]))
            }
            "QG019" => Some(and(&[
                run_of(None, &|f| f.sends_out)?,
                s.run_confidential.clone(),
            ])),
            "QG021" => Some(and(&[
                run_of(None, &|f| {
                    f.writes_to
                        .as_ref()
                        .is_some_and(|st| sys.persistent.contains(st))
                })?,
                untrusted(),
            ])),
            "QG017" | "QG018" => {
                let code = o.rule == "QG017";
                Some(and(&[
                    run_of(None, &|f| {
                        f.argument_kinds.iter().any(|(_, k)| is_code(*k) == code)
                    })?,
                    s.via_model.clone(),
                ]))
            }
            "QG020" => run_of(None, &|f| {
                f.retrieves_from
                    .as_ref()
                    .is_some_and(|st| sys.unbound.contains(st))
            }),
            "QG002" => self.reaches(
                j,
                self.nodes_named(NodeKind::Step, subject, |v| {
                    sys.steps_after_guard.get(v).copied().unwrap_or(false)
                }),
            ),
            "QG016" => self.reaches(
                j,
                self.nodes_named(NodeKind::Step, subject, |v| {
                    sys.steps_route_tool.get(v).copied().unwrap_or(false)
                }),
            ),
            "QG011" => self.lower_privilege(j, s, subject),
            "reach_model" => self.reaches(
                j,
                (0..self.tables.nodes).filter(|&v| {
                    sys.kinds.get(v) == Some(&NodeKind::Model)
                        && sys
                            .node_agent
                            .get(v)
                            .copied()
                            .flatten()
                            .is_some_and(|a| sys.agent_name(a) == subject)
                }),
            ),
            _ => None,
        }
    }

    /// QG003: a guarded call of a tool whose `not_after` ran in another agent's session.
    fn escaped_order(&self, j: usize, s: &State, tools: &[usize]) -> Option<Bool> {
        let mut any = Vec::new();
        for &t in tools {
            let Some(f) = self.tool(t) else { continue };
            let mut escaped = Vec::new();
            for a in &f.not_after {
                if let Some(r) = self.slot_of(a)
                    && let (Some(esc), Some(ran)) = (s.escaped.get(r), s.session.get(r))
                    && esc.as_bool() != Some(false)
                {
                    escaped.push(and(&[esc.clone(), ran.not()]));
                }
            }
            if f.not_after_untrusted && s.escaped_taint.as_bool() != Some(false) {
                escaped.push(and(&[s.escaped_taint.clone(), s.tainted.not()]));
            }
            let (Some(escaped), Some(into)) = (
                or(escaped),
                self.reaches_by(
                    j,
                    self.tables.tool_nodes.get(t).into_iter().flatten().copied(),
                    1 << CALL,
                ),
            ) else {
                continue;
            };
            any.push(and(&[self.class_is(j, CALL), into, escaped]));
        }
        or(any)
    }

    /// QG105 for a pending write: another write runs while it is the run's last write without
    /// an undo.
    fn pending_other(&self, j: usize, s: &State, tools: &[usize]) -> Option<Bool> {
        let next = &self.states.get(j + 1)?.node;
        let pending = or(tools
            .iter()
            .filter(|&&t| {
                self.tool(t).is_some_and(|f| {
                    f.write && f.undo_tool.is_none() && !f.undo_none && !f.irreversible
                })
            })
            .flat_map(|&t| self.tables.tool_nodes.get(t).into_iter().flatten())
            .map(|&u| and(&[s.pending.eq(u as u64), next.ne(u as u64)]))
            .collect())?;
        let write = self.steps.get(j)?.write.clone()?;
        Some(and(&[write, pending]))
    }

    /// QG011: a step of a more privileged agent reached, not by a hand-off, from a less
    /// privileged agent's route.
    fn lower_privilege(&self, j: usize, s: &State, step: &str) -> Option<Bool> {
        let sys = self.sys;
        let mut any = Vec::new();
        for v in self.nodes_named(NodeKind::Step, step, |_| true) {
            let Some(owner) = sys.node_agent.get(v).copied().flatten() else {
                continue;
            };
            let lower = or((0..self.tables.agents)
                .filter(|&a| sys.privilege.get(a) < sys.privilege.get(owner))
                .map(|a| s.agent.eq(a as u64))
                .collect());
            let not_hand_off = !(1u8 << HANDS_OFF);
            let (Some(lower), Some(into)) = (lower, self.reaches_by(j, [v], not_hand_off)) else {
                continue;
            };
            any.push(and(&[into, self.class_is(j, HANDS_OFF).not(), lower]));
        }
        or(any)
    }
}
