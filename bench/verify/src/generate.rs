//! Generated agents: `n` tools spread over agents of at most 25 tools each, with the declarations
//! the proof reads (reads and writes, order rules, session limits, outside reads, undo pairs,
//! irreversible writes, sends_out and confidential tools), hand-offs from each agent to the next,
//! and one custom step per agent. Deterministic: the same `n` gives the same agent.yaml.

use std::fmt::Write as _;

/// Tools per agent.
const PER_AGENT: usize = 25;

fn name(i: usize) -> String {
    format!("tool_{i:04}")
}

/// The agent.yaml of an agent with `n` tools.
pub fn agent_yaml(n: usize) -> String {
    let agents = n.div_ceil(PER_AGENT).max(1);
    let mut out = String::new();
    let _ = writeln!(out, "# A generated agent: {n} tools, {agents} agent(s).");
    out.push_str("budget: {steps: 40}\nagents:\n");
    for a in 0..agents {
        let _ = writeln!(out, "  agent_{a:03}:");
        let _ = writeln!(out, "    model: \"anthropic:claude-sonnet-5-5\"");
        if a % 3 == 2 {
            let _ = writeln!(out, "    privilege: high");
        }
        let tools: Vec<String> = (a * PER_AGENT..((a + 1) * PER_AGENT).min(n))
            .map(name)
            .collect();
        let _ = writeln!(out, "    tools: [{}]", tools.join(", "));
        if a + 1 < agents {
            let _ = writeln!(out, "    hands_off_to: [agent_{:03}]", a + 1);
        }
    }
    out.push_str("tools:\n");
    for i in 0..n {
        tool(&mut out, i, n);
    }
    out.push_str("steps:\n");
    for a in 0..agents {
        let _ = writeln!(out, "  summarize_{a:03}:");
        let _ = writeln!(out, "    agent: agent_{a:03}");
        let _ = writeln!(out, "    routes: [agent_{a:03}_model, end]");
    }
    out
}

/// One tool's declaration. Within each agent's block of 25: the first tool reads, every fifth
/// tool reads from outside, writes follow a read of their block (`after`), some writes are
/// limited to one call a session, some may not follow an outside read, some undo each other, and
/// the last of a block is an irreversible write that sends out.
fn tool(out: &mut String, i: usize, n: usize) {
    let k = i % PER_AGENT;
    let block = i - k;
    let _ = writeln!(out, "  - name: {}", name(i));
    let _ = writeln!(
        out,
        "    arguments: {{type: object, properties: {{id: {{type: string}}}}, required: [id]}}"
    );
    if k == 0 || k.is_multiple_of(5) {
        out.push_str("    effects: reads\n");
        if k.is_multiple_of(5) && k > 0 {
            out.push_str("    reads_outside: true\n");
        }
        if k == 10 {
            out.push_str("    confidential: true\n");
        }
        return;
    }
    out.push_str("    effects: changes\n");
    let _ = writeln!(out, "    idempotency: {{key: id}}");
    let _ = writeln!(
        out,
        "    result: {{type: object, properties: {{ok: {{type: boolean}}}}}}"
    );
    let _ = writeln!(out, "    after: [{}]", name(block));
    if k % 4 == 1 {
        out.push_str("    at_most: 1\n");
    }
    if k % 4 == 2 {
        out.push_str("    not_after: [untrusted]\n");
    }
    let last = k == PER_AGENT - 1 || i + 1 == n;
    if last {
        out.push_str("    irreversible: true\n    sends_out: true\n");
    } else if k % 2 == 1
        && i + 1 < n
        && !(i + 1).is_multiple_of(PER_AGENT)
        && !(k + 1).is_multiple_of(5)
    {
        let _ = writeln!(out, "    undo: {{tool: {}, bind: {{id: id}}}}", name(i + 1));
    } else {
        out.push_str("    undo: none\n");
    }
}
