//! The selector's decision for one turn read on its own: the checks that end a turn before any
//! route is scored (too long, another language, a calculation, a negation, a how/why question),
//! the score of every route, and the plan the best route makes — or a question when two tie.
//!
//! A route's score adds what the turn shares with it — its action (a verb of its tool's or
//! intent's name or examples), a verb asking to see something for a reading tool, the words of
//! its names, its examples' and arguments' words, its description's words, the closest of its
//! examples — and takes off for actions and things the turn asks for that the route has nothing
//! of. A write is never read without its action or an example; a read without a verb only when
//! its name's words and every argument it needs are in the turn. Below the threshold nothing is
//! read; two routes to different tools within the margin are asked about.

use rust_stemmers::Stemmer;
use stalwart_record::{
    ArchivedAgent, ArchivedEffects, ArchivedReader, ArchivedRecordBody, ArchivedRole,
    ArchivedRouteTarget, Language, TermClass,
};

use crate::arguments::{ArgSpec, Filled, arg_specs, fill};
use crate::plan::{Plan, PlanKind, Score};
use crate::read::{ItemKind, Reading, read};
use crate::slots::{Slot, SlotKind, slots};

/// A turn longer than this (in bytes) is not read: it is no request a person types.
pub const MAX_TURN: usize = 4096;
/// The least score a route is read at.
pub const THRESHOLD: f32 = 2.0;
/// Two routes to different targets closer than this are asked about.
pub const MARGIN: f32 = 1.0;

/// What the selector works with for one agent in one language.
pub struct Ctx<'a> {
    pub body: &'a ArchivedRecordBody,
    pub agent: &'a ArchivedAgent,
    pub language: Language,
    pub reader: &'a ArchivedReader,
    pub stemmer: Stemmer,
}

/// A turn read.
pub struct Turn<'t> {
    pub text: &'t str,
    pub reading: Reading,
    pub slots: Vec<Slot>,
}

impl<'t> Turn<'t> {
    pub fn new(cx: &Ctx<'_>, text: &'t str) -> Self {
        let reading = read(cx.reader, &cx.stemmer, text);
        let slots = slots(&reading, cx.language, text);
        Self {
            text,
            reading,
            slots,
        }
    }

    /// The turn's terms, sorted, without repeats.
    pub fn term_ids(&self) -> Vec<u32> {
        self.terms().into_iter().map(|(t, _)| t).collect()
    }

    fn terms(&self) -> Vec<(u32, TermClass)> {
        let mut out: Vec<(u32, TermClass)> = self
            .reading
            .items
            .iter()
            .filter_map(|i| match i.kind {
                ItemKind::Term { term, class } => Some((term, class)),
                _ => None,
            })
            .collect();
        out.sort_unstable_by_key(|(t, _)| *t);
        out.dedup_by_key(|(t, _)| *t);
        out
    }
}

/// Why a turn was not read before any route was scored, if it was not.
pub fn precheck(turn: &Turn<'_>) -> Option<Stop> {
    if turn.text.len() > MAX_TURN {
        return Some(Stop::Unread("too_long"));
    }
    let r = &turn.reading;
    if r.items.is_empty() {
        return Some(Stop::Unread("nothing_read"));
    }
    if r.letters > 0 && r.other_script * 2 > r.letters {
        return Some(Stop::Unread("other_language"));
    }
    if r.foreign >= 1 && r.foreign >= r.native {
        return Some(Stop::Unread("other_language"));
    }
    if is_calculation(turn) {
        return Some(Stop::Compute);
    }
    if is_negated(r) {
        return Some(Stop::Unread("negated"));
    }
    // How or why, at the start or anywhere in a turn that ends with a question mark: a question
    // about a thing, not a request for it.
    let leading = r
        .items
        .iter()
        .filter(|i| !matches!(i.kind, ItemKind::Symbol(_) | ItemKind::Yes | ItemKind::No))
        .take(3);
    let asked = turn.text.trim_end().ends_with('?');
    if leading.into_iter().any(|i| i.kind == ItemKind::Question)
        || (asked && r.items.iter().any(|i| i.kind == ItemKind::Question))
    {
        return Some(Stop::Unread("question"));
    }
    None
}

/// What ends a turn before routes are scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Unread(&'static str),
    Compute,
}

fn is_calculation(turn: &Turn<'_>) -> bool {
    let items = &turn.reading.items;
    if items.iter().any(|i| i.kind == ItemKind::Compute) {
        return true;
    }
    let is_number = |i: usize| {
        items.get(i).is_some_and(|it| {
            it.kind == ItemKind::Value
                && turn
                    .reading
                    .tokens
                    .get(it.token)
                    .is_some_and(|t| t.kind == crate::fold::TokenKind::Number)
        })
    };
    let spaced = |start: usize, end: usize| {
        let before = turn.text.get(..start).and_then(|t| t.chars().next_back());
        let after = turn.text.get(end..).and_then(|t| t.chars().next());
        before.is_some_and(char::is_whitespace) && after.is_some_and(char::is_whitespace)
    };
    items.iter().enumerate().any(|(i, item)| {
        let operator = match item.kind {
            ItemKind::Operator => true,
            ItemKind::Symbol(c) => match c {
                '+' | '*' | '×' | '÷' | '=' => true,
                '-' | '/' => spaced(item.start, item.end),
                _ => false,
            },
            _ => false,
        };
        operator && i > 0 && is_number(i - 1) && is_number(i + 1)
    })
}

/// A negation before an action (within three items, no punctuation between).
fn is_negated(r: &Reading) -> bool {
    r.items.iter().enumerate().any(|(i, item)| {
        item.kind == ItemKind::Negation
            && r.items
                .iter()
                .skip(i + 1)
                .take_while(|n| !matches!(n.kind, ItemKind::Symbol(',' | '.' | ';' | '!' | '?')))
                .take(4)
                .any(|n| {
                    matches!(
                        n.kind,
                        ItemKind::Term {
                            class: TermClass::Action | TermClass::Look,
                            ..
                        }
                    )
                })
    })
}

/// One route's score for a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub route: u32,
    pub score: f32,
    /// The route's target tool, if it is one.
    pub tool: Option<u32>,
    pub reachable: bool,
    pub eligible: bool,
    pub filled: Option<Filled>,
}

#[derive(Default, Clone, Copy)]
struct Acc {
    strong: u32,
    names: u32,
    objects: u32,
    context: u32,
    any: bool,
}

/// Every route's score for `turn`, best first (eligible before the rest; ties by route order).
pub fn score_routes(cx: &Ctx<'_>, turn: &Turn<'_>) -> Vec<Scored> {
    let routes = &cx.body.selector.routes;
    let terms = turn.terms();
    let mut acc = vec![Acc::default(); routes.len()];
    let mut any_look = false;
    for &(term, class) in &terms {
        any_look |= class == TermClass::Look;
        let Some(t) = cx.reader.terms.get(term as usize) else {
            continue;
        };
        for posting in t.postings.iter() {
            let Some(a) = acc.get_mut(posting.route.to_native() as usize) else {
                continue;
            };
            a.any = true;
            match (class, &posting.role) {
                (TermClass::Look, _) => {}
                (TermClass::Action, ArchivedRole::Action) => a.strong += 1,
                (_, ArchivedRole::Name) => a.names += 1,
                (_, ArchivedRole::Object | ArchivedRole::Action) => a.objects += 1,
                (_, ArchivedRole::Context) => a.context += 1,
            }
        }
    }
    let turn_set: Vec<u32> = terms.iter().map(|(t, _)| *t).collect();
    let mut out = Vec::with_capacity(routes.len());
    for (r, route) in routes.iter().enumerate() {
        let a = acc.get(r).copied().unwrap_or_default();
        let tool = match route.target {
            ArchivedRouteTarget::Tool(t) => Some(t.to_native()),
            _ => None,
        };
        let reads = tool
            .and_then(|t| cx.body.tools.get(t as usize))
            .is_some_and(|t| t.effects == ArchivedEffects::Reads);
        let posted = |term: u32| {
            cx.reader
                .terms
                .get(term as usize)
                .is_some_and(|t| t.postings.iter().any(|p| p.route.to_native() as usize == r))
        };
        let foreign_actions = terms
            .iter()
            .filter(|(t, c)| *c == TermClass::Action && !posted(*t))
            .count() as u32;
        let stray_objects = terms
            .iter()
            .filter(|(t, c)| *c == TermClass::Object && !posted(*t))
            .count() as u32;
        // The closest example, and whether it shares two terms or more with the turn.
        let (example, example_shares) = cx.reader.profiles.get(r).map_or((0.0, false), |p| {
            p.examples
                .iter()
                .map(|e| {
                    let terms = e.iter().map(|t| t.to_native());
                    let shared = terms
                        .clone()
                        .filter(|t| turn_set.binary_search(t).is_ok())
                        .count();
                    (dice(&turn_set, terms), shared >= 2)
                })
                .fold((0.0f32, false), |a, b| if b.0 > a.0 { b } else { a })
        });
        let example_evidence = example >= 0.6 && example_shares;
        // A verb asking to see something reads a tool that the turn's things point to.
        let look = any_look && reads && (a.names > 0 || a.objects > 0);
        let mut score = 0.0;
        if a.strong > 0 {
            score += 3.0;
        } else if look {
            score += 1.5;
        }
        score += 1.0 * a.names.min(2) as f32
            + 0.6 * a.objects.min(3) as f32
            + 0.3 * a.context.min(2) as f32
            + 2.5 * example
            - 2.5 * foreign_actions as f32
            - 0.8 * stray_objects as f32;
        let reachable = match tool {
            Some(t) => cx.agent.tools.iter().any(|x| x.to_native() == t),
            None => true,
        };
        let evidence = a.strong > 0 || look || example_evidence || (reads && a.names > 0);
        out.push(Scored {
            route: r as u32,
            score,
            tool,
            reachable,
            eligible: evidence && foreign_actions == 0 && a.any,
            filled: None,
        });
        // A read without a verb must have its name's words and every value it needs.
        if let Some(s) = out.last_mut()
            && s.eligible
            && let Some(t) = tool
        {
            let filled = fill_route(cx, t, turn);
            let complete = filled.missing.is_empty() && filled.ambiguous.is_none();
            if complete {
                s.score += 1.0;
            }
            s.score -= 1.0 * filled.stray as f32;
            if a.strong == 0 && !look && !example_evidence && (!complete || filled.stray > 0) {
                s.eligible = false;
            }
            s.filled = Some(filled);
        }
        if let Some(s) = out.last_mut() {
            s.eligible &= s.score >= THRESHOLD;
        }
    }
    out.sort_by(|a, b| {
        b.eligible
            .cmp(&a.eligible)
            .then(b.score.total_cmp(&a.score))
            .then(a.route.cmp(&b.route))
    });
    out
}

/// Dice's coefficient of two sets of term indices (the first sorted).
fn dice(turn: &[u32], example: impl Iterator<Item = u32> + Clone) -> f32 {
    let len = example.clone().count();
    if len == 0 || turn.is_empty() {
        return 0.0;
    }
    let shared = example.filter(|t| turn.binary_search(t).is_ok()).count();
    2.0 * shared as f32 / (turn.len() + len) as f32
}

/// The tool's arguments filled from the turn's values.
pub fn fill_route(cx: &Ctx<'_>, tool: u32, turn: &Turn<'_>) -> Filled {
    let Some(t) = cx.body.tools.get(tool as usize) else {
        return Filled::default();
    };
    let specs = arg_specs(cx.body, t);
    fill(&specs, &turn.slots, 0, &|slot, spec| {
        names_argument(cx, slot, spec)
    })
}

/// Whether the word next to a value names the argument (`order 4411` for `order_id`).
pub fn names_argument(cx: &Ctx<'_>, slot: &Slot, spec: &ArgSpec) -> bool {
    let named = |term: Option<u32>| {
        term.is_some_and(|term| {
            spec.words
                .iter()
                .filter(|w| !matches!(w.as_str(), "id" | "no" | "number" | "num"))
                .any(|w| term_of(cx, w) == Some(term))
        })
    };
    named(slot.before) || (matches!(slot.kind, SlotKind::Number { .. }) && named(slot.after))
}

/// The term a word reads as in this reader, if any.
pub fn term_of(cx: &Ctx<'_>, word: &str) -> Option<u32> {
    let r = cx.reader;
    if let Ok(at) = r.words.binary_search_by(|w| w.text.as_str().cmp(word))
        && let Some(w) = r.words.get(at)
    {
        return match w.kind {
            stalwart_record::ArchivedWordKind::Term(t) => Some(t.to_native()),
            _ => None,
        };
    }
    let stem = cx.stemmer.stem(word);
    let at = r
        .stems
        .binary_search_by(|e| e.stem.as_str().cmp(stem.as_ref()))
        .ok()?;
    r.stems.get(at).map(|e| e.term.to_native())
}

/// The name a route is read as: its intent, else its tool.
pub fn route_name(cx: &Ctx<'_>, route: u32) -> String {
    let Some(r) = cx.body.selector.routes.get(route as usize) else {
        return String::new();
    };
    if let Some(intent) = r
        .intent
        .as_ref()
        .and_then(|i| cx.body.selector.intents.get(i.to_native() as usize))
    {
        return intent.name.as_str().to_string();
    }
    match &r.target {
        ArchivedRouteTarget::Tool(t) => tool_name(cx, t.to_native()),
        ArchivedRouteTarget::Say { message } | ArchivedRouteTarget::Ask { message, .. } => {
            message.as_str().to_string()
        }
    }
}

pub fn tool_name(cx: &Ctx<'_>, tool: u32) -> String {
    cx.body
        .tools
        .get(tool as usize)
        .map(|t| t.name.as_str().to_string())
        .unwrap_or_default()
}

/// Tools of this agent that two specific actions of the turn ask for at once, if there are two.
pub fn two_at_once(cx: &Ctx<'_>, turn: &Turn<'_>) -> Vec<u32> {
    let mut tools: Vec<u32> = Vec::new();
    for (term, class) in turn.terms() {
        if class != TermClass::Action {
            continue;
        }
        let Some(t) = cx.reader.terms.get(term as usize) else {
            continue;
        };
        let targets: Vec<u32> = t
            .postings
            .iter()
            .filter(|p| p.role == ArchivedRole::Action)
            .filter_map(|p| cx.body.selector.routes.get(p.route.to_native() as usize))
            .filter_map(|r| match r.target {
                ArchivedRouteTarget::Tool(x) => Some(x.to_native()),
                _ => None,
            })
            .filter(|x| cx.agent.tools.iter().any(|a| a.to_native() == *x))
            .collect();
        if let [one] = targets.as_slice()
            && !tools.contains(one)
        {
            tools.push(*one);
        }
    }
    if tools.len() >= 2 {
        return tools;
    }
    // A verb asking to see one thing, then (`and then`, `e depois`) an action on another: two
    // steps; the reading tool is the one whose name the turn's things point to.
    let items = &turn.reading.items;
    let position = |f: &dyn Fn(&ItemKind) -> bool| items.iter().position(|i| f(&i.kind));
    let look_at = position(&|k| {
        matches!(
            k,
            ItemKind::Term {
                class: TermClass::Look,
                ..
            }
        )
    });
    let action_at = position(&|k| {
        matches!(
            k,
            ItemKind::Term {
                class: TermClass::Action,
                ..
            }
        )
    });
    let (Some(look_at), Some(action_at), [action_tool]) = (look_at, action_at, tools.as_slice())
    else {
        return Vec::new();
    };
    let (from, to) = (look_at.min(action_at), look_at.max(action_at));
    let joined = items
        .get(from..to)
        .is_some_and(|between| between.iter().any(|i| i.kind == ItemKind::Then));
    if !joined {
        return Vec::new();
    }
    let reader_tool = turn
        .terms()
        .iter()
        .filter(|(_, c)| matches!(c, TermClass::Object | TermClass::Other))
        .filter_map(|(t, _)| cx.reader.terms.get(*t as usize))
        .flat_map(|t| t.postings.iter())
        .filter(|p| p.role == ArchivedRole::Name)
        .filter_map(|p| cx.body.selector.routes.get(p.route.to_native() as usize))
        .filter_map(|r| match r.target {
            ArchivedRouteTarget::Tool(x) => Some(x.to_native()),
            _ => None,
        })
        .find(|x| {
            *x != *action_tool
                && cx.agent.tools.iter().any(|a| a.to_native() == *x)
                && cx
                    .body
                    .tools
                    .get(*x as usize)
                    .is_some_and(|t| t.effects == ArchivedEffects::Reads)
        });
    match reader_tool {
        Some(read) if look_at < action_at => vec![read, *action_tool],
        Some(read) => vec![*action_tool, read],
        None => Vec::new(),
    }
}

/// The plan a scored route makes for this turn (its tool reached, or its message said).
pub fn route_plan(
    cx: &Ctx<'_>,
    scored: &Scored,
    turn: &Turn<'_>,
    results: &[crate::call::RunResult<'_>],
) -> Plan {
    let route = cx.body.selector.routes.get(scored.route as usize);
    let mut plan = Plan::new(PlanKind::Unread, cx.language);
    let Some(route) = route else {
        return plan;
    };
    plan.intent = route
        .intent
        .as_ref()
        .and_then(|i| cx.body.selector.intents.get(i.to_native() as usize))
        .map(|i| i.name.as_str().to_string());
    plan.flow = route.flow.as_ref().map(|f| f.as_str().to_string());
    match &route.target {
        ArchivedRouteTarget::Say { message } => {
            plan.kind = PlanKind::Declined;
            plan.reason = Some(message.as_str().to_string());
            plan.rule = plan.flow.clone();
        }
        ArchivedRouteTarget::Ask { message, text } => {
            plan.kind = PlanKind::Ask;
            plan.reason = Some(message.as_str().to_string());
            plan.rule = plan.flow.clone();
            plan.question = Some(
                text.as_ref()
                    .map_or(message.as_str(), |t| t.as_str())
                    .to_string(),
            );
        }
        ArchivedRouteTarget::Tool(t) => {
            let t = t.to_native();
            if !scored.reachable {
                plan.kind = PlanKind::Declined;
                plan.rule = Some("unknown_tool".into());
                plan.reason = Some(format!(
                    "unknown_tool: {} is not a tool of agent {}",
                    tool_name(cx, t),
                    cx.agent.name.as_str()
                ));
                plan.agents = cx
                    .body
                    .agents
                    .iter()
                    .filter(|a| a.tools.iter().any(|x| x.to_native() == t))
                    .map(|a| a.name.as_str().to_string())
                    .collect();
                return plan;
            }
            let filled = scored
                .filled
                .clone()
                .unwrap_or_else(|| fill_route(cx, t, turn));
            let slots: Vec<(i32, &Slot)> = turn.slots.iter().map(|s| (0, s)).collect();
            let terms = turn.term_ids();
            return crate::call::tool_plan(cx, plan, t, &filled, &slots, &terms, results);
        }
    }
    plan
}

/// The score summary of a plan read from `scores`.
pub fn score_of(cx: &Ctx<'_>, scores: &[Scored], best: Option<&Scored>) -> Score {
    let Some(best) = best else {
        let top = scores.first();
        return Score {
            read_as: None,
            score: 0.0,
            runner_up: top.map(|s| (route_name(cx, s.route), s.score)),
        };
    };
    let best_target = best.tool;
    let runner = scores
        .iter()
        .find(|s| s.route != best.route && (s.tool != best_target || best_target.is_none()));
    Score {
        read_as: Some(route_name(cx, best.route)),
        score: best.score,
        runner_up: runner.map(|s| (route_name(cx, s.route), s.score)),
    }
}
