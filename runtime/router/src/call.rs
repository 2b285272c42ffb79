//! The call a plan writes for a tool: its arguments typed by the schema, each with its origin and
//! the slot it came from; and, when values are missing, the chain that reads them first — the
//! catalogue's listing tools (reads, not of outside content, whose result declares a field named
//! like the missing argument, and whose own arguments the turn gives), a round at a time — or the
//! question that names them.

use serde_json::{Map, Value};
use stalwart_record::ArchivedEffects;

use crate::arguments::{ArgKind, Filled, arg_specs, fill};
use crate::plan::{Plan, PlanKind, PlanSlot, PlannedCall, SlotAt};
use crate::select::{Ctx, names_argument, term_of, tool_name};
use crate::slots::Slot;
use crate::words;

/// A reported result of a call of this turn's run.
#[derive(Debug, Clone, Copy)]
pub struct RunResult<'a> {
    pub step: u32,
    pub tool: &'a str,
    pub result: &'a Value,
}

/// The plan that calls tool `t` with what `filled` gave: a tool step or a confirm when every
/// required argument has a value; else a chain when listing tools produce the missing values,
/// or a question. `slots` are the values `filled` indexes, each with the turn it came from.
pub fn tool_plan(
    cx: &Ctx<'_>,
    mut plan: Plan,
    t: u32,
    filled: &Filled,
    slots: &[(i32, &Slot)],
    turn_terms: &[u32],
    results: &[RunResult<'_>],
) -> Plan {
    let Some(tool) = cx.body.tools.get(t as usize) else {
        return plan;
    };
    let name = tool.name.as_str().to_string();
    let mut arguments = Map::new();
    let mut origins = Map::new();
    let specs = arg_specs(cx.body, tool);
    for spec in &specs {
        if let Some(given) = filled.given.iter().find(|g| g.argument == spec.name) {
            arguments.insert(spec.name.clone(), given.value.clone());
            origins.insert(spec.name.clone(), Value::String("typed".into()));
            if let Some((turn, slot)) = slots.get(given.slot) {
                plan.slots.push(PlanSlot {
                    argument: spec.name.clone(),
                    value: given.value.clone(),
                    at: SlotAt::Turn {
                        turn: *turn,
                        start: slot.start,
                        end: slot.end,
                    },
                });
            }
        }
    }
    if let Some((argument, values)) = &filled.ambiguous {
        plan.kind = PlanKind::Ask;
        plan.missing = vec![argument.clone()];
        plan.choices = values.clone();
        plan.question = Some(words::which_value(cx.language, argument, values));
        plan.call = Some(PlannedCall {
            tool: name,
            arguments,
            origins,
        });
        return plan;
    }
    let mut missing = filled.missing.clone();
    let mut reads = Vec::new();
    if !missing.is_empty() {
        let mut still = Vec::new();
        for m in &missing {
            match produce(cx, t, m, slots, turn_terms) {
                Some(Produced { tool: producer }) => {
                    let kind = specs.iter().find(|s| &s.name == m).map(|s| s.kind);
                    let producer_name = tool_name(cx, producer);
                    match produced_value(results, &producer_name, m, kind) {
                        Some((step, value)) => {
                            arguments.insert(m.clone(), value.clone());
                            origins.insert(m.clone(), Value::String(format!("result:{step}.{m}")));
                            plan.slots.push(PlanSlot {
                                argument: m.clone(),
                                value,
                                at: SlotAt::Result { step },
                            });
                        }
                        None => {
                            if let Some(call) = producer_call(cx, &producer, slots) {
                                if !reads.iter().any(|r: &PlannedCall| r.tool == call.tool) {
                                    reads.push(call);
                                }
                                still.push(m.clone());
                            } else {
                                reads.clear();
                                still = missing.clone();
                                break;
                            }
                        }
                    }
                }
                None => {
                    // Nothing produces it: the plan asks.
                    reads.clear();
                    still = missing.clone();
                    break;
                }
            }
        }
        missing = still;
    }
    // Order arguments as declared.
    let mut ordered = Map::new();
    let mut ordered_origins = Map::new();
    for spec in &specs {
        if let Some(v) = arguments.get(&spec.name) {
            ordered.insert(spec.name.clone(), v.clone());
            if let Some(o) = origins.get(&spec.name) {
                ordered_origins.insert(spec.name.clone(), o.clone());
            }
        }
    }
    plan.call = Some(PlannedCall {
        tool: name.clone(),
        arguments: ordered,
        origins: ordered_origins,
    });
    if !missing.is_empty() && !reads.is_empty() {
        plan.kind = PlanKind::Chain;
        plan.reads = reads;
        plan.missing = missing;
    } else if !missing.is_empty() {
        plan.kind = PlanKind::Ask;
        plan.question = Some(words::missing(cx.language, &name, &missing));
        plan.missing = missing;
    } else if tool.effects == ArchivedEffects::Reads {
        plan.kind = PlanKind::ToolStep;
    } else {
        plan.kind = PlanKind::Confirm;
    }
    plan
}

/// A listing tool that produces a missing value.
struct Produced {
    tool: u32,
}

/// The listing tool of this agent that produces argument `m` of tool `t`: a read (not of
/// outside content) whose result declares a field `m`, other than `t`, and whose own required
/// arguments the turn gives. When several do, the one the turn names; `None` when none, or
/// several and the turn names none or more than one.
fn produce(
    cx: &Ctx<'_>,
    t: u32,
    m: &str,
    slots: &[(i32, &Slot)],
    turn_terms: &[u32],
) -> Option<Produced> {
    let candidates: Vec<u32> = cx
        .agent
        .tools
        .iter()
        .map(|x| x.to_native())
        .filter(|&p| p != t)
        .filter(|&p| {
            cx.body.tools.get(p as usize).is_some_and(|tool| {
                tool.effects == ArchivedEffects::Reads
                    && !tool.reads_outside
                    && tool.result_fields.iter().any(|f| f.as_str() == m)
            })
        })
        .filter(|&p| producer_call(cx, &p, slots).is_some())
        .collect();
    match candidates.as_slice() {
        [] => None,
        [one] => Some(Produced { tool: *one }),
        several => {
            let named: Vec<u32> = several
                .iter()
                .copied()
                .filter(|&p| {
                    crate::compile::name_parts(&tool_name(cx, p))
                        .iter()
                        .filter_map(|w| term_of(cx, w))
                        .any(|term| turn_terms.binary_search(&term).is_ok())
                })
                .collect();
            match named.as_slice() {
                [one] => Some(Produced { tool: *one }),
                _ => None,
            }
        }
    }
}

/// The call of listing tool `p` with its required arguments from the turn's values.
fn producer_call(cx: &Ctx<'_>, p: &u32, slots: &[(i32, &Slot)]) -> Option<PlannedCall> {
    let tool = cx.body.tools.get(*p as usize)?;
    let specs = arg_specs(cx.body, tool);
    let own: Vec<Slot> = slots.iter().map(|(_, s)| (*s).clone()).collect();
    let filled = fill(&specs, &own, 0, &|slot, spec| {
        names_argument(cx, slot, spec)
    });
    if !filled.missing.is_empty() || filled.ambiguous.is_some() {
        return None;
    }
    let mut arguments = Map::new();
    let mut origins = Map::new();
    for g in &filled.given {
        arguments.insert(g.argument.clone(), g.value.clone());
        origins.insert(g.argument.clone(), Value::String("typed".into()));
    }
    Some(PlannedCall {
        tool: tool.name.as_str().to_string(),
        arguments,
        origins,
    })
}

/// The value a listing tool's reported result gives for `field`, typed for the argument.
fn produced_value(
    results: &[RunResult<'_>],
    producer: &str,
    field: &str,
    kind: Option<ArgKind>,
) -> Option<(u32, Value)> {
    results
        .iter()
        .rev()
        .filter(|r| r.tool == producer)
        .find_map(|r| {
            let v = r.result.get(field)?;
            let ok = match (kind?, v) {
                (ArgKind::Id | ArgKind::Email | ArgKind::Url | ArgKind::Text, Value::String(s)) => {
                    !s.is_empty()
                }
                (ArgKind::Number, Value::Number(_)) => true,
                (ArgKind::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
                _ => false,
            };
            ok.then(|| (r.step, v.clone()))
        })
}
