//! The proof against the runtime over generated agents: random agent graphs (agents with
//! hand-offs and privileges, catalogues with order rules, session limits, undos, marks from
//! reading outside, argument schemas, trust and `taint_policy: refuse`, custom steps around the
//! guard, after it, or straight to a tool, rulebook gates over intents and facts) are compiled
//! and proved, and
//!
//! - every witness the proof prints replays through `check_tool_call` (the conformance runner);
//! - for the obligations the proof answers unreachable that the runtime can show by itself
//!   (QG105, QG013, QG019: two guarded calls of one run; QG003: a call its `not_after` forbids,
//!   let through in the session a hand-off started), random conversations -- calls and
//!   hand-offs, each agent's session checked and reported through the runtime, within the
//!   proof's turns and depth -- never reach the forbidden state.
//!
//! The agents come from a fixed seed per case, so a failure names the case and its agent.yaml.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use stalwart_analyzer::witness::{to_yaml, witness_sessions};
use stalwart_driver::DiskLoader;
use stalwart_driver::verify::{VerifyOptions, verify_agent};
use stalwart_record::Record;
use stalwart_runtime::{Call, Decision, Env, Key, Outcome, Session};
use stalwart_tests::scenario::{DEFAULT_NOW, run_scenario};

const CASES: u64 = 256;
/// Random sessions run against each agent for the unreachable obligations.
const SESSIONS: usize = 24;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    fn subset(&mut self, n: usize, most: usize, one_in: usize) -> Vec<usize> {
        let mut out: BTreeSet<usize> = BTreeSet::new();
        for _ in 0..most {
            if self.chance(one_in) {
                out.insert(self.below(n));
            }
        }
        out.into_iter().collect()
    }
}

/// One generated tool, as the random sessions need to know it.
#[derive(Debug, Clone)]
struct GenTool {
    write: bool,
    /// Declares a required string argument `x`.
    has_x: bool,
    reads_outside: bool,
    /// `not_after` tools, and `untrusted`.
    not_after: Vec<usize>,
    not_after_untrusted: bool,
    confidential: bool,
    sends_out: bool,
    irreversible: bool,
    has_undo_tool: bool,
    no_undo: bool,
}

/// A random agent.yaml, its tools, and the rulebook it names (empty when none).
fn generate(seed: u64) -> (String, Vec<GenTool>, String) {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let agents = 1 + r.below(3);
    let tools = 1 + r.below(4);
    let mut yaml = String::from("agents:\n");
    for a in 0..agents {
        let listed = {
            let mut l = r.subset(tools, 3, 2);
            if l.is_empty() {
                l.push(r.below(tools));
            }
            l
        };
        let names: Vec<String> = listed.iter().map(|t| format!("t{t}")).collect();
        let _ = writeln!(yaml, "  a{a}:");
        let _ = writeln!(yaml, "    model: \"anthropic:claude-sonnet-5-5\"");
        let _ = writeln!(yaml, "    tools: [{}]", names.join(", "));
        let others: Vec<String> = r
            .subset(agents, 2, 2)
            .into_iter()
            .filter(|&b| b != a)
            .map(|b| format!("a{b}"))
            .collect();
        if !others.is_empty() {
            let _ = writeln!(yaml, "    hands_off_to: [{}]", others.join(", "));
        }
        let privilege = ["low", "medium", "high"][r.below(3)];
        let _ = writeln!(yaml, "    privilege: {privilege}");
    }
    yaml.push_str("tools:\n");
    let mut gen_tools = Vec::new();
    for t in 0..tools {
        let write = r.chance(2);
        let irreversible = write && r.chance(4);
        let undo_tool = (write && !irreversible && r.chance(3)).then(|| r.below(tools));
        let no_undo = write && !irreversible && undo_tool.is_none() && r.chance(2);
        let reads_outside = r.chance(4);
        let mut g = GenTool {
            write,
            has_x: r.chance(3),
            reads_outside,
            not_after: Vec::new(),
            not_after_untrusted: false,
            confidential: r.chance(4),
            sends_out: r.chance(4),
            irreversible,
            has_undo_tool: undo_tool.is_some(),
            no_undo,
        };
        let _ = writeln!(yaml, "  - name: t{t}");
        let effects = if write { "changes" } else { "reads" };
        let _ = writeln!(yaml, "    effects: {effects}");
        if reads_outside {
            yaml.push_str("    reads_outside: true\n");
        }
        if g.confidential {
            yaml.push_str("    confidential: true\n");
        }
        if g.has_x {
            yaml.push_str(
                "    arguments: {type: object, properties: {x: {type: string}}, required: [x]}\n",
            );
        }
        if r.chance(4) {
            yaml.push_str("    requires: high\n");
        }
        if g.sends_out {
            yaml.push_str("    sends_out: true\n");
        }
        if irreversible {
            yaml.push_str("    irreversible: true\n");
        }
        if let Some(u) = undo_tool {
            let _ = writeln!(yaml, "    undo: {{tool: t{u}}}");
        } else if no_undo {
            yaml.push_str("    undo: none\n");
        }
        let after: Vec<String> = r
            .subset(tools, 1, 4)
            .into_iter()
            .filter(|&u| u != t)
            .map(|u| format!("t{u}"))
            .collect();
        if !after.is_empty() {
            let _ = writeln!(yaml, "    after: [{}]", after.join(", "));
        }
        g.not_after = r
            .subset(tools, 1, 3)
            .into_iter()
            .filter(|&u| u != t)
            .collect();
        let mut not_after: Vec<String> = g.not_after.iter().map(|u| format!("t{u}")).collect();
        if r.chance(5) {
            g.not_after_untrusted = true;
            not_after.push("untrusted".into());
        }
        if !not_after.is_empty() {
            let _ = writeln!(yaml, "    not_after: [{}]", not_after.join(", "));
        }
        if r.chance(4) {
            let _ = writeln!(yaml, "    at_most: {}", 1 + r.below(2));
        }
        gen_tools.push(g);
    }
    if r.chance(3) {
        yaml.push_str("steps:\n");
        let agent = r.below(agents);
        let call = r.below(tools);
        let _ = writeln!(yaml, "  s0:\n    agent: a{agent}");
        match r.below(4) {
            0 | 1 => {
                let from = r.below(agents);
                let _ = writeln!(yaml, "    from: [a{from}_model]");
            }
            // A step between the guard and the tools (QG002).
            2 => yaml.push_str("    from: [guard]\n"),
            _ => {}
        }
        if r.chance(3) {
            // A step that routes straight to a tool (QG016).
            let _ = writeln!(yaml, "    routes: [tool:t{call}, end]");
        } else {
            let _ = writeln!(yaml, "    routes: [a{agent}_model, end]");
            let _ = writeln!(yaml, "    calls: [t{call}]");
        }
    }
    if r.chance(3) {
        yaml.push_str("settings:\n  taint_policy: refuse\n");
    }
    let policy = if r.chance(2) {
        rulebook(&mut r, tools)
    } else {
        String::new()
    };
    if !policy.is_empty() {
        yaml.push_str("rulebook: ./policy.co\n");
    }
    (yaml, gen_tools, policy)
}

/// A Colang 1.0 rulebook governing some of the tools: for each, a flow that starts with the
/// person's intent `ask t<n>` and runs the tool when its facts hold (none, `$f<n>`, or `$f<n>
/// and $g<n>`), and refuses otherwise.
fn rulebook(r: &mut Rng, tools: usize) -> String {
    let mut co = String::new();
    for t in r.subset(tools, 3, 2) {
        let _ = writeln!(co, "define user ask t{t}\n  \"do t{t}\"\n");
        let _ = writeln!(co, "define flow gate t{t}\n  user ask t{t}");
        match r.below(3) {
            0 => {
                let _ = writeln!(co, "  execute t{t}\n");
            }
            k => {
                let condition = if k == 1 {
                    format!("$f{t}")
                } else {
                    format!("$f{t} and $g{t}")
                };
                let _ = writeln!(
                    co,
                    "  if {condition}\n    execute t{t}\n  else\n    bot refuse\n"
                );
            }
        }
    }
    co
}

fn options() -> VerifyOptions {
    let mut o = VerifyOptions {
        cache: false,
        engines: Some(vec!["explicit".to_string()]),
        ..VerifyOptions::default()
    };
    o.bounds.depth = 12;
    o.bounds.turns = 2;
    o
}

#[test]
fn generated_agents_witnesses_replay_and_unreachable_states_stay_unreached() {
    // Two threads, each every other case: the machine's two cores.
    let parts: Vec<(Vec<String>, usize, usize)> = std::thread::scope(|scope| {
        let running: Vec<_> = (0..2).map(|k| scope.spawn(move || run_cases(k))).collect();
        running.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let failures: Vec<String> = parts.iter().flat_map(|p| p.0.clone()).collect();
    let witnesses: usize = parts.iter().map(|p| p.1).sum();
    let unreachable_checked: usize = parts.iter().map(|p| p.2).sum();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(witnesses >= 400, "only {witnesses} witnesses");
    assert!(
        unreachable_checked >= 100,
        "only {unreachable_checked} unreachable obligations"
    );
}

/// Runs the cases `first`, `first + 2`, …: the failures, the witnesses replayed and the
/// unreachable obligations held against random conversations.
fn run_cases(first: u64) -> (Vec<String>, usize, usize) {
    let mut failures = Vec::new();
    let mut witnesses = 0;
    let mut unreachable_checked = 0;
    for case in (first..CASES).step_by(2) {
        let (yaml, tools, policy) = generate(case);
        let dir = tempfile::tempdir().unwrap();
        let agent = dir.path().join("agent.yaml");
        std::fs::write(&agent, &yaml).unwrap();
        if !policy.is_empty() {
            std::fs::write(dir.path().join("policy.co"), &policy).unwrap();
        }
        let outcome = verify_agent(Arc::new(DiskLoader), &agent, &options());
        let (Some(graph), Some(body), Some(proof)) =
            (&outcome.graph, &outcome.body, &outcome.proof)
        else {
            failures.push(format!(
                "case {case}: does not verify: {:?}\n{yaml}\n{policy}",
                outcome.diagnostics
            ));
            continue;
        };
        for s in witness_sessions(graph, body, &proof.findings, "agent.yaml") {
            let path = dir.path().join(&s.file);
            let text = to_yaml(&s.scenario);
            std::fs::write(&path, &text).unwrap();
            witnesses += 1;
            if let Err(e) = run_scenario(&path) {
                failures.push(format!("case {case}: {e}\n{yaml}\n{policy}\n{text}"));
            }
        }
        let unreachable: Vec<(String, String)> = proof
            .verdicts
            .iter()
            .filter(|v| v.engines.iter().all(|(_, a)| a == "unreachable"))
            .filter(|v| matches!(v.rule.as_str(), "QG105" | "QG013" | "QG019" | "QG003"))
            .map(|v| (v.rule.clone(), v.subject.clone()))
            .collect();
        if unreachable.is_empty() {
            continue;
        }
        unreachable_checked += unreachable.len();
        let entry_agents: Vec<String> = graph
            .agents
            .iter()
            .filter(|a| {
                graph
                    .edges
                    .iter()
                    .any(|e| e.from == "router" && e.agent.as_deref() == Some(a.name.as_str()))
            })
            .map(|a| a.name.clone())
            .collect();
        compile(&agent, dir.path());
        let record = Record::read(dir.path().join("record").join("record.bin")).unwrap();
        let agents: Agents = graph
            .agents
            .iter()
            .map(|a| {
                let tools = a
                    .tools
                    .iter()
                    .filter_map(|t| t.strip_prefix('t')?.parse().ok())
                    .collect();
                (a.name.clone(), (tools, a.hands_off_to.clone()))
            })
            .collect();
        let mut r = Rng(case.wrapping_add(77) | 1);
        for _ in 0..SESSIONS {
            let Some(name) = entry_agents.get(r.below(entry_agents.len())) else {
                break;
            };
            if let Some(reached) =
                random_session(&record, &agents, name, &tools, &unreachable, &mut r)
            {
                failures.push(format!(
                    "case {case}: the proof says {reached} is unreachable, and the runtime lets this session reach it: agent {name}\n{yaml}\n{policy}"
                ));
                break;
            }
        }
    }
    (failures, witnesses, unreachable_checked)
}

fn compile(agent: &Path, dir: &Path) {
    let outcome = stalwart_driver::compile_agent(
        Arc::new(DiskLoader),
        agent,
        &stalwart_driver::CompileOptions {
            out: Some(dir.join("record")),
        },
    );
    assert!(!outcome.has_errors(), "{:?}", outcome.diagnostics);
}

/// Each agent's tools (by number) and the agents it hands off to.
type Agents = BTreeMap<String, (Vec<usize>, Vec<String>)>;

/// One agent's session in a random conversation, with what ran in it.
struct Held {
    agent: String,
    session: Session,
    ran: BTreeSet<usize>,
    tainted: bool,
}

/// Runs a random conversation through the runtime from `agent`: up to two turns of up to three
/// actions each -- a call of one of the agent's tools, or a hand-off to an agent it hands off
/// to, which starts that agent's session -- well within the proof's depth of twelve steps a run
/// (a call takes at most four, a hand-off two). Writes are confirmed with the token the check
/// gives, and every allowed call is reported `ran`. Returns the first unreachable obligation a
/// run reached.
fn random_session(
    record: &Record,
    agents: &Agents,
    agent: &str,
    tools: &[GenTool],
    unreachable: &[(String, String)],
    r: &mut Rng,
) -> Option<String> {
    let body = record.body();
    let key = Key::new("diff", [7; 32], DEFAULT_NOW + 86_400).for_record(&record.header().digest);
    let env = Env {
        key: &key,
        now: DEFAULT_NOW,
    };
    let mut sessions = 0;
    let mut start = |agent: &str| {
        sessions += 1;
        Held {
            agent: agent.to_string(),
            session: Session::new(agent, format!("diff-{sessions}")),
            ran: BTreeSet::new(),
            tainted: false,
        }
    };
    let mut held = start(agent);
    for turn in 0..2 {
        stalwart_runtime::read(env, &mut held.session, &format!("turn {turn}"));
        // The tools that ran in this run, in order; what ran in the sessions the run left.
        let mut ran: Vec<usize> = Vec::new();
        let mut escaped: BTreeSet<usize> = BTreeSet::new();
        let mut escaped_taint = false;
        for _ in 0..1 + r.below(3) {
            let (listed, hands_off_to) = agents.get(&held.agent)?;
            if r.chance(4)
                && let Some(to) = hands_off_to.get(r.below(hands_off_to.len()))
            {
                escaped.extend(held.ran.iter().copied());
                escaped_taint |= held.tainted;
                held = start(to);
                continue;
            }
            let t = *listed.get(r.below(listed.len()))?;
            let mut call = Call {
                tool: format!("t{t}"),
                ..Call::default()
            };
            if r.chance(2) {
                call.intent = Some(format!("ask t{t}"));
            }
            if tools.get(t).is_some_and(|g| g.has_x) {
                call.arguments = serde_json::json!({"x": "v"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default()
                    .into();
            }
            for fact in ["f", "g"] {
                if r.chance(2) {
                    call.context
                        .insert(format!("{fact}{t}"), serde_json::Value::Bool(true));
                }
            }
            let s = &mut held.session;
            let mut check = stalwart_runtime::check_tool_call(body, env, s, &call);
            if check.decision == Decision::Confirm {
                call.confirmation = check.confirmation.clone();
                check = stalwart_runtime::check_tool_call(body, env, s, &call);
            }
            if check.decision != Decision::Allow {
                continue;
            }
            let step = s.calls().count() as u32;
            let _ = stalwart_runtime::report(env, s, step, Outcome::Ran, None);
            let gen_tool = tools.get(t)?;
            let escapes = gen_tool
                .not_after
                .iter()
                .any(|x| escaped.contains(x) && !held.ran.contains(x))
                || (gen_tool.not_after_untrusted && escaped_taint && !held.tainted);
            if escapes && let Some(hit) = named(unreachable, "QG003", t) {
                return Some(hit);
            }
            if let Some(reached) = forbidden(&ran, t, tools, unreachable) {
                return Some(reached);
            }
            ran.push(t);
            held.ran.insert(t);
            held.tainted |= gen_tool.reads_outside;
        }
    }
    None
}

/// `"<rule> on t<t>"` when the proof answered that obligation unreachable.
fn named(unreachable: &[(String, String)], rule: &str, t: usize) -> Option<String> {
    let subject = format!("t{t}");
    unreachable
        .iter()
        .any(|(r, s)| r == rule && *s == subject)
        .then(|| format!("{rule} on {subject}"))
}

/// The unreachable obligation a run that ran `before` and then `now` reaches, if any: QG105 on
/// a write with no undo in a run with another write, QG013 on the run's last irreversible write
/// followed by a write with an undo, QG019 on a tool that sends out after a confidential one.
fn forbidden(
    before: &[usize],
    now: usize,
    tools: &[GenTool],
    unreachable: &[(String, String)],
) -> Option<String> {
    let tool = |i: usize| tools.get(i);
    let named = |rule: &str, t: usize| named(unreachable, rule, t);
    let t = tool(now)?;
    let candidate = |i: usize| {
        tool(i).is_some_and(|x| x.write && !x.has_undo_tool && !x.no_undo && !x.irreversible)
    };
    // QG013 names the last irreversible write of the run, as the model does.
    let last_irreversible = before
        .iter()
        .rev()
        .find(|&&b| tool(b).is_some_and(|u| u.irreversible));
    if let Some(&b) = last_irreversible
        && t.write
        && t.has_undo_tool
        && let Some(hit) = named("QG013", b)
    {
        return Some(hit);
    }
    for &b in before {
        let Some(u) = tool(b) else { continue };
        if t.write && u.write {
            if candidate(now)
                && let Some(hit) = named("QG105", now)
            {
                return Some(hit);
            }
            if candidate(b)
                && b != now
                && let Some(hit) = named("QG105", b)
            {
                return Some(hit);
            }
        }
        if u.confidential
            && t.sends_out
            && let Some(hit) = named("QG019", now)
        {
            return Some(hit);
        }
    }
    None
}

#[test]
fn a_run_of_two_writes_is_the_forbidden_state_of_qg105_on_the_one_without_an_undo() {
    let write = GenTool {
        write: true,
        has_x: false,
        reads_outside: false,
        not_after: Vec::new(),
        not_after_untrusted: false,
        confidential: false,
        sends_out: false,
        irreversible: false,
        has_undo_tool: false,
        no_undo: false,
    };
    let undone = GenTool {
        no_undo: true,
        ..write.clone()
    };
    let tools = [write, undone];
    let claimed = [("QG105".to_string(), "t0".to_string())];
    assert_eq!(
        forbidden(&[1], 0, &tools, &claimed),
        Some("QG105 on t0".to_string())
    );
    assert_eq!(
        forbidden(&[0], 1, &tools, &claimed),
        Some("QG105 on t0".to_string())
    );
    assert_eq!(forbidden(&[], 0, &tools, &claimed), None);
    assert_eq!(forbidden(&[1], 1, &tools, &claimed), None);
}
