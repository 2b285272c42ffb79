//! The selector (DESIGN §6, spec ch45 "The router"): every turn read into a plan before any model
//! sees it, by native code on the record, with no model.
//!
//! [`plan`] reads the person's turn against the record's routes — the rulebook's intents with
//! their examples and flows, and the catalogue's tools with their names, arguments and
//! descriptions — in the language the setting chooses (never guessed from the turn), and says
//! where the turn goes: a tool step written from the person's words, a chain of listing reads, a
//! fixed question, a write put to the person, a refusal naming the rule, or unread. A turn
//! nothing reads is asked to be said again once; after that the agent's `on_unread` decides.
//!
//! The crate depends on the record alone. `compile` builds the readers the compiler puts in the
//! record; everything else runs on a loaded record: `read` (a turn's words), `slots` (its
//! values), `select` (routes scored, the plan of the best), `arguments` (values to a tool's
//! arguments), `call` (the call a plan writes, and chains), `plan` (the plan and its JSON),
//! `words` (the texts of questions and reasons).

pub mod arguments;
pub mod call;
pub mod compile;
pub mod fold;
pub mod lexicon;
pub mod plan;
pub mod read;
pub mod select;
pub mod slots;
pub mod words;

use std::fmt;

use rust_stemmers::Stemmer;
use stalwart_record::{ArchivedOnUnread, ArchivedRecordBody, Language};

pub use call::RunResult;
pub use compile::compile_readers;
pub use lexicon::{language_by_name, language_name};
pub use plan::{Plan, PlanKind, PlanSlot, PlannedCall, Record, Score, SlotAt, Unread};

use crate::read::ItemKind;
use crate::select::{Ctx, Stop, Turn, precheck, route_plan, score_of, score_routes, two_at_once};

/// A person's earlier turn in the session, as the history recorded it.
#[derive(Debug, Clone, Copy)]
pub struct Earlier<'a> {
    pub text: &'a str,
    /// Recorded as the answer to a question (`reply`), not as a new turn (`read`).
    pub reply: bool,
}

/// What the selector is asked to read.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub agent: &'a str,
    pub turn: &'a str,
    /// The language the request names; `None`: the agent's `language:`, else the record's
    /// `settings.language`, else English.
    pub language: Option<Language>,
    /// The person's earlier turns in this session, oldest first.
    pub earlier: &'a [Earlier<'a>],
    /// The reported results of the calls this turn's run made (a chain's reads).
    pub results: &'a [RunResult<'a>],
}

/// Why no plan could be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// The record has no agent of that name.
    UnknownAgent { agent: String, agents: Vec<String> },
    /// The record holds no reader for the language (compiled by a compiler without one).
    NoReader { language: Language },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownAgent { agent, agents } => write!(
                f,
                "unknown agent `{agent}`: the record has {}",
                if agents.is_empty() {
                    "none".to_string()
                } else {
                    agents.join(", ")
                }
            ),
            Self::NoReader { language } => write!(
                f,
                "the record holds no selector for `{}`: compile it again",
                language_name(*language)
            ),
        }
    }
}

impl std::error::Error for PlanError {}

/// At most this many earlier turns are read again to know what the last plan asked.
const MAX_EARLIER: usize = 8;

/// The plan for the request's turn. Deterministic: the same record and request always give the
/// same plan.
pub fn plan(body: &ArchivedRecordBody, req: &Request<'_>) -> Result<Plan, PlanError> {
    let agent = body
        .agents
        .iter()
        .find(|a| a.name.as_str() == req.agent)
        .ok_or_else(|| PlanError::UnknownAgent {
            agent: req.agent.to_string(),
            agents: body
                .agents
                .iter()
                .map(|a| a.name.as_str().to_string())
                .collect(),
        })?;
    let language = req
        .language
        .or_else(|| agent.language.as_ref().map(archived_language))
        .unwrap_or_else(|| archived_language(&body.settings.language));
    let reader = body
        .selector
        .readers
        .iter()
        .find(|r| archived_language(&r.language) == language)
        .ok_or(PlanError::NoReader { language })?;
    let cx = Ctx {
        body,
        agent,
        language,
        reader,
        stemmer: Stemmer::create(lexicon::algorithm(language)),
    };
    // The conversation since the last new turn: what the plans before this one asked.
    let from = req
        .earlier
        .iter()
        .rposition(|e| !e.reply)
        .unwrap_or(0)
        .max(req.earlier.len().saturating_sub(MAX_EARLIER));
    let mut previous: Option<Step<'_>> = None;
    for e in req.earlier.get(from..).unwrap_or(&[]) {
        previous = Some(step(&cx, e.text, previous.as_ref(), &[]));
    }
    Ok(step(&cx, req.turn, previous.as_ref(), req.results).plan)
}

fn archived_language(l: &stalwart_record::ArchivedLanguage) -> Language {
    match l {
        stalwart_record::ArchivedLanguage::En => Language::En,
        stalwart_record::ArchivedLanguage::PtBr => Language::PtBr,
    }
}

/// One turn planned, with what the next turn needs of it.
struct Step<'t> {
    plan: Plan,
    turn: Turn<'t>,
    /// The tool the plan is about (a question about its arguments).
    tool: Option<u32>,
}

fn step<'t>(
    cx: &Ctx<'_>,
    text: &'t str,
    previous: Option<&Step<'_>>,
    results: &[RunResult<'_>],
) -> Step<'t> {
    let turn = Turn::new(cx, text);
    let record_as = if previous.is_some_and(|p| p.plan.asks()) {
        Record::Reply
    } else {
        Record::Read
    };
    let (mut plan, mut tool) = alone(cx, &turn, results);
    if let Some(p) = previous {
        // The answer to "may the model have it?".
        if p.plan.on_unread == Some(Unread::Ask) {
            let answer = yes_or_no(&turn);
            if answer == Some(true) || (answer.is_none() && plan.kind == PlanKind::Unread) {
                let mut out = Plan::new(PlanKind::Unread, cx.language);
                out.reason = p.plan.reason.clone();
                if answer == Some(true) {
                    out.on_unread = Some(Unread::Model);
                    out.for_model = p.plan.for_model.clone();
                } else {
                    out.on_unread = Some(Unread::Refuse);
                }
                out.record_as = record_as;
                return Step {
                    plan: out,
                    turn,
                    tool: None,
                };
            }
            if answer == Some(false) {
                let mut out = Plan::new(PlanKind::Unread, cx.language);
                out.reason = p.plan.reason.clone();
                out.on_unread = Some(Unread::Refuse);
                out.record_as = record_as;
                return Step {
                    plan: out,
                    turn,
                    tool: None,
                };
            }
        }
        // The answer to a question about a call: the values of both turns together.
        if p.plan.kind == PlanKind::Ask
            && let Some((merged, t)) = merge(cx, p, &turn, &plan, tool, results)
        {
            plan = merged;
            tool = Some(t);
        }
    }
    if plan.kind == PlanKind::Unread {
        let said_again = previous.is_some_and(|p| p.plan.on_unread == Some(Unread::AskAgain));
        if said_again {
            apply_on_unread(cx, &mut plan, text);
        } else {
            plan.on_unread = Some(Unread::AskAgain);
            plan.question = Some(words::ask_again(cx.language).to_string());
        }
    }
    plan.record_as = record_as;
    Step { plan, turn, tool }
}

/// What the agent's `on_unread` does with a turn nothing read, asked again already.
fn apply_on_unread(cx: &Ctx<'_>, plan: &mut Plan, text: &str) {
    match cx.agent.on_unread {
        ArchivedOnUnread::Refuse => plan.on_unread = Some(Unread::Refuse),
        ArchivedOnUnread::Model => {
            plan.on_unread = Some(Unread::Model);
            plan.for_model = Some(text.to_string());
        }
        ArchivedOnUnread::Ask => {
            plan.on_unread = Some(Unread::Ask);
            plan.question = Some(words::ask_model(cx.language).to_string());
            plan.for_model = Some(text.to_string());
        }
        ArchivedOnUnread::Answer => {
            plan.on_unread = Some(Unread::Answer);
            plan.reason = Some(
                "answer: no documents store here grounds an answer, so the turn is refused".into(),
            );
        }
    }
}

/// Yes, no, or neither: a turn of yes (or no) words with nothing to read besides.
fn yes_or_no(turn: &Turn<'_>) -> Option<bool> {
    let items = &turn.reading.items;
    let meaningful = items.iter().any(|i| {
        matches!(
            i.kind,
            ItemKind::Term { .. } | ItemKind::Value | ItemKind::Unknown | ItemKind::Foreign
        )
    });
    if meaningful {
        return None;
    }
    let no = items
        .iter()
        .any(|i| matches!(i.kind, ItemKind::No | ItemKind::Negation));
    let yes = items.iter().any(|i| i.kind == ItemKind::Yes);
    match (yes, no) {
        (_, true) => Some(false),
        (true, false) => Some(true),
        _ => None,
    }
}

/// The plan of a turn read on its own, and the tool it is about.
fn alone(cx: &Ctx<'_>, turn: &Turn<'_>, results: &[RunResult<'_>]) -> (Plan, Option<u32>) {
    let mut plan = Plan::new(PlanKind::Unread, cx.language);
    match precheck(turn) {
        Some(Stop::Unread(reason)) => {
            plan.reason = Some(reason.to_string());
            return (plan, None);
        }
        Some(Stop::Compute) => {
            plan.kind = PlanKind::Declined;
            plan.rule = Some("compute".into());
            plan.reason = Some(words::compute_off(cx.language).to_string());
            return (plan, None);
        }
        None => {}
    }
    let two = two_at_once(cx, turn);
    if !two.is_empty() {
        plan.kind = PlanKind::Ask;
        plan.choices = two.iter().map(|&t| select::tool_name(cx, t)).collect();
        plan.question = Some(words::which_tool(cx.language, &plan.choices));
        plan.reason = Some("two_tools".into());
        return (plan, None);
    }
    let scores = score_routes(cx, turn);
    let eligible: Vec<&select::Scored> = scores.iter().filter(|s| s.eligible).collect();
    let Some(best) = eligible.first().copied() else {
        plan.reason = Some("nothing_read".into());
        plan.score = score_of(cx, &scores, None);
        return (plan, None);
    };
    let runner = eligible
        .iter()
        .copied()
        .find(|s| s.tool != best.tool || best.tool.is_none() && s.route != best.route);
    if let Some(runner) = runner
        && runner.score > best.score - select::MARGIN
    {
        plan.score = score_of(cx, &scores, Some(best));
        match (best.tool, runner.tool) {
            (Some(a), Some(b)) if best.reachable && runner.reachable => {
                plan.kind = PlanKind::Ask;
                plan.choices = vec![select::tool_name(cx, a), select::tool_name(cx, b)];
                plan.question = Some(words::which_tool(cx.language, &plan.choices));
                plan.reason = Some("tie".into());
            }
            _ => plan.reason = Some("tie".into()),
        }
        return (plan, None);
    }
    let mut plan = route_plan(cx, best, turn, results);
    plan.score = score_of(cx, &scores, Some(best));
    (plan, best.tool)
}

/// The answer to a question about a call (its missing values, which value, which tool): the
/// earlier turn's values and this turn's together, when this turn is no new request.
fn merge(
    cx: &Ctx<'_>,
    previous: &Step<'_>,
    turn: &Turn<'_>,
    alone: &Plan,
    alone_tool: Option<u32>,
    results: &[RunResult<'_>],
) -> Option<(Plan, u32)> {
    let tool = match (previous.tool, alone_tool) {
        // A new request for something else stands on its own.
        (_, Some(t)) if alone.kind != PlanKind::Ask && alone.kind != PlanKind::Unread => {
            let chosen = previous
                .plan
                .choices
                .iter()
                .any(|c| *c == select::tool_name(cx, t));
            if !chosen {
                return None;
            }
            t
        }
        (Some(p), Some(t)) if p != t => return None,
        (Some(p), _) => p,
        (None, Some(t)) => {
            if !previous
                .plan
                .choices
                .iter()
                .any(|c| *c == select::tool_name(cx, t))
            {
                return None;
            }
            t
        }
        (None, None) => return None,
    };
    let earlier = &previous.turn.slots;
    let mut all: Vec<slots::Slot> = earlier.clone();
    all.extend(turn.slots.iter().cloned());
    let tagged: Vec<(i32, &slots::Slot)> = all
        .iter()
        .enumerate()
        .map(|(i, s)| (if i < earlier.len() { -1 } else { 0 }, s))
        .collect();
    let t = cx.body.tools.get(tool as usize)?;
    let specs = arguments::arg_specs(cx.body, t);
    let filled = arguments::fill(&specs, &all, earlier.len(), &|slot, spec| {
        select::names_argument(cx, slot, spec)
    });
    let mut base = Plan::new(PlanKind::Unread, cx.language);
    if alone_tool == Some(tool) && alone.intent.is_some() {
        base.intent = alone.intent.clone();
        base.flow = alone.flow.clone();
        base.score = alone.score.clone();
    } else {
        base.intent = previous.plan.intent.clone();
        base.flow = previous.plan.flow.clone();
        base.score = previous.plan.score.clone();
    }
    let mut terms = turn.term_ids();
    terms.extend(previous.turn.term_ids());
    terms.sort_unstable();
    terms.dedup();
    let merged = call::tool_plan(cx, base, tool, &filled, &tagged, &terms, results);
    // A question that got no value nearer its answer stays as the turn alone made it.
    let progressed = merged.slots.len() > previous.plan.slots.len()
        || merged.kind != PlanKind::Ask
        || alone_tool == Some(tool);
    progressed.then_some((merged, tool))
}
