//! agent.yaml and its catalogue to the record: names resolved to indices, schemas compiled,
//! everything sorted so the same sources always give the same record.

use std::collections::BTreeMap;

use stalwart_agent as ast;
use stalwart_diagnostics::{Diagnostic, FileId, Span};
use stalwart_record as rec;

use crate::codes;
use crate::schema::compile_schema;
use crate::value::push_json;

/// What lowering needs to know about the files it was given.
pub trait SourceMap {
    /// The record's index of the file (its place in `RecordBody::sources`).
    fn source_index(&self, file: FileId) -> u32;
    /// The 1-based line and the 1-based column (in characters) of a byte offset in the file.
    fn line_col(&self, file: FileId, offset: u32) -> (u32, u32);
}

/// A span of the sources as the record's place.
pub fn record_span(map: &dyn SourceMap, span: Span) -> rec::SourceSpan {
    let (line, col) = map.line_col(span.file, span.start);
    rec::SourceSpan {
        source: map.source_index(span.file),
        start: span.start,
        end: span.end,
        line,
        col,
    }
}

/// The result of lowering: the body, and the warnings lowering raised (schema keywords outside
/// the compiled subset). Lowering assumes the input resolved without errors.
#[derive(Debug, Clone, PartialEq)]
pub struct Lowered {
    pub body: rec::RecordBody,
    pub diagnostics: Vec<Diagnostic>,
}

/// Lowers a resolved agent description. `sources` becomes `RecordBody::sources` as given.
pub fn lower_agent(
    agent: &ast::AgentFile,
    tools: &[ast::ToolDecl],
    sources: Vec<rec::Source>,
    map: &dyn SourceMap,
) -> Lowered {
    let mut cx = Ctx {
        body: rec::RecordBody {
            sources,
            ..Default::default()
        },
        diagnostics: Vec::new(),
        map,
    };
    let mut decls: Vec<&ast::ToolDecl> = tools.iter().collect();
    decls.sort_by(|a, b| a.name.value.cmp(&b.name.value));
    decls.dedup_by(|a, b| a.name.value == b.name.value);
    let tool_index: BTreeMap<&str, u32> = decls
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.value.as_str(), i as u32))
        .collect();
    let mut agents: Vec<&ast::AgentDecl> = agent.agents.iter().collect();
    agents.sort_by(|a, b| a.name.value.cmp(&b.name.value));
    let agent_index: BTreeMap<&str, u32> = agents
        .iter()
        .enumerate()
        .map(|(i, a)| (a.name.value.as_str(), i as u32))
        .collect();

    for decl in &decls {
        let tool = cx.lower_tool(decl, &tool_index);
        cx.body.tools.push(tool);
    }
    for a in &agents {
        let lowered = cx.lower_agent_decl(a, &tool_index, &agent_index);
        cx.body.agents.push(lowered);
    }
    cx.body.settings = lower_settings(&agent.settings);
    let mut facts: Vec<&ast::FactDecl> = agent.facts.iter().collect();
    facts.sort_by(|a, b| a.name.value.cmp(&b.name.value));
    for fact in facts {
        let Some(&tool) = tool_index.get(fact.tool.value.as_str()) else {
            continue;
        };
        let equals = fact
            .equals
            .as_ref()
            .map(|v| push_json(&mut cx.body.values, &v.value));
        let span = cx.span(fact.span);
        cx.body.facts.push(rec::Fact {
            name: fact.name.value.clone(),
            tool,
            field: fact.field.value.clone(),
            equals,
            same: fact.same.as_ref().map(|s| s.value.clone()),
            span,
        });
    }
    cx.body.budget_steps = agent.budget.as_ref().map(|b| b.value);
    Lowered {
        body: cx.body,
        diagnostics: cx.diagnostics,
    }
}

struct Ctx<'a> {
    body: rec::RecordBody,
    diagnostics: Vec<Diagnostic>,
    map: &'a dyn SourceMap,
}

impl Ctx<'_> {
    fn span(&self, span: Span) -> rec::SourceSpan {
        record_span(self.map, span)
    }

    /// Where the declaration's key `key` is written, if it is.
    fn key(&self, decl: &ast::ToolDecl, key: &str) -> Option<rec::SourceSpan> {
        decl.key_span(key).map(|s| self.span(s))
    }

    /// Places the schema nodes `first..` that one compile appended: each at its entry in the
    /// source (by its JSON pointer), else at `whole`; and each of its keywords at its entry.
    fn place_schema(
        &mut self,
        first: usize,
        pointers: &[String],
        places: &[(String, Span)],
        whole: Span,
    ) {
        let by_pointer: BTreeMap<&str, Span> =
            places.iter().map(|(p, s)| (p.as_str(), *s)).collect();
        let whole = self.span(whole);
        for (i, pointer) in pointers.iter().enumerate() {
            let span = by_pointer
                .get(pointer.as_str())
                .map_or(whole, |s| self.span(*s));
            let prefix = format!("{pointer}/");
            let keyword_spans: Vec<(String, rec::SourceSpan)> = by_pointer
                .range::<str, _>((
                    std::ops::Bound::Excluded(pointer.as_str()),
                    std::ops::Bound::Unbounded,
                ))
                .take_while(|(p, _)| p.starts_with(&prefix))
                .filter(|(p, _)| !p[prefix.len()..].contains('/'))
                .map(|(p, s)| (unescape(&p[prefix.len()..]), self.span(*s)))
                .collect();
            if let Some(node) = self.body.schema_nodes.get_mut(first + i) {
                node.span = span;
                node.keyword_spans = keyword_spans;
            }
        }
    }

    fn lower_tool(&mut self, decl: &ast::ToolDecl, tools: &BTreeMap<&str, u32>) -> rec::Tool {
        let idx = |name: &str| tools.get(name).copied();
        let mut partial = Vec::new();
        let arguments = decl.arguments.as_ref().map(|schema| {
            let first = self.body.schema_nodes.len();
            let compiled = compile_schema(
                &mut self.body.values,
                &mut self.body.schema_nodes,
                &schema.value,
            );
            let whole = decl.key_span("arguments").unwrap_or(schema.span);
            self.place_schema(first, &compiled.node_pointers, &decl.argument_places, whole);
            self.report_partial(decl, "arguments", schema.span, &compiled.partial_keywords);
            self.report_errors(decl, "arguments", schema.span, &compiled.errors);
            self.report_closed(decl, schema.span, &compiled.closed_objects);
            partial.extend(compiled.partial_keywords.iter().cloned());
            compiled.root
        });
        let result = decl.result.as_ref().map(|schema| {
            let first = self.body.schema_nodes.len();
            let compiled = compile_schema(
                &mut self.body.values,
                &mut self.body.schema_nodes,
                &schema.value,
            );
            let whole = decl.key_span("result").unwrap_or(schema.span);
            self.place_schema(first, &compiled.node_pointers, &[], whole);
            self.report_partial(decl, "result", schema.span, &compiled.partial_keywords);
            self.report_errors(decl, "result", schema.span, &compiled.errors);
            compiled.root
        });
        let mut check_spans = Vec::new();
        let checks = decl
            .checks
            .iter()
            .filter_map(|c| {
                let operand = match &c.operand.value {
                    ast::CheckOperand::Value(v) => {
                        rec::CheckOperand::Value(push_json(&mut self.body.values, v))
                    }
                    ast::CheckOperand::From { tool, field } => rec::CheckOperand::From {
                        tool: idx(&tool.value)?,
                        field: field.value.clone(),
                    },
                };
                check_spans.push(record_span(self.map, c.span));
                Some(rec::ArgumentCheck {
                    argument: c.argument.value.clone(),
                    op: check_op(c.op),
                    operand,
                })
            })
            .collect();
        let mut after_spans = Vec::new();
        let after = decl
            .after
            .iter()
            .filter_map(|a| {
                let after = rec::After {
                    tool: idx(&a.tool.value)?,
                    bind: binds(&a.bind),
                };
                after_spans.push(self.span(a.span));
                Some(after)
            })
            .collect();
        let mut not_after_spans = Vec::new();
        let not_after = decl
            .not_after
            .iter()
            .filter_map(|n| {
                let rule = match &n.value {
                    ast::NotAfterDecl::Untrusted => rec::NotAfter::Untrusted,
                    ast::NotAfterDecl::Tool(t) => rec::NotAfter::Tool(idx(t)?),
                };
                not_after_spans.push(self.span(n.span));
                Some(rule)
            })
            .collect();
        let spans = rec::ToolSpans {
            effects: self.key(decl, "effects"),
            arguments: self.key(decl, "arguments"),
            sends_out: self.key(decl, "sends_out"),
            requires: self.key(decl, "requires"),
            after: after_spans,
            not_after: not_after_spans,
            at_most: self.key(decl, "at_most"),
            undo: self.key(decl, "undo"),
            irreversible: self.key(decl, "irreversible"),
            checks: check_spans,
            spend: self.key(decl, "spend"),
        };
        rec::Tool {
            name: decl.name.value.clone(),
            description: decl.description.clone().unwrap_or_default(),
            effects: match decl.effects.as_ref().map(|e| e.value) {
                Some(ast::Effects::Reads) => rec::Effects::Reads,
                Some(ast::Effects::Changes) => rec::Effects::Changes,
                None => rec::Effects::Unknown,
            },
            arguments,
            argument_names: property_names(decl.arguments.as_ref().map(|s| &s.value)),
            result,
            result_fields: property_names(decl.result.as_ref().map(|s| &s.value)),
            sends_out: flag(&decl.sends_out),
            reads_outside: flag(&decl.reads_outside),
            requires: decl.requires.as_ref().map(|t| trust(t.value)),
            after,
            not_after,
            at_most: decl.at_most.as_ref().map(|a| rec::AtMost {
                count: a.value.count,
                per: a.value.per.map(period),
            }),
            undo: match decl.undo.as_ref().map(|u| &u.value) {
                None => rec::Undo::Unset,
                Some(ast::UndoDecl::None) => rec::Undo::None,
                Some(ast::UndoDecl::Tool { tool, bind }) => match idx(&tool.value) {
                    Some(t) => rec::Undo::Tool {
                        tool: t,
                        bind: binds(bind),
                    },
                    None => rec::Undo::Unset,
                },
            },
            irreversible: flag(&decl.irreversible),
            idempotency: match decl.idempotency.as_ref().map(|i| &i.value) {
                None => rec::Idempotency::None,
                Some(ast::IdempotencyDecl::Key(k)) => rec::Idempotency::Key(k.value.clone()),
                Some(ast::IdempotencyDecl::RetrySafe) => rec::Idempotency::RetrySafe,
            },
            checks,
            spend: decl.spend.as_ref().map(|s| rec::Spend {
                argument: s.value.argument.value.clone(),
                at_most: s.value.at_most,
                per: period(s.value.per),
            }),
            confidential: flag(&decl.confidential),
            argument_kinds: decl
                .argument_kinds
                .iter()
                .map(|(name, kind)| (name.value.clone(), argument_kind(kind.value)))
                .collect(),
            source: decl.source.as_ref().map(|s| rec::ToolSource {
                kind: match s.value.kind {
                    ast::SourceKind::Mcp => rec::ToolSourceKind::Mcp,
                    ast::SourceKind::Package => rec::ToolSourceKind::Package,
                },
                name: s.value.name.clone(),
                pin: s.value.pin.clone(),
            }),
            retrieves_from: decl.retrieves_from.as_ref().map(|s| s.value.clone()),
            writes_to: decl.writes_to.as_ref().map(|s| s.value.clone()),
            schema_partial: !partial.is_empty(),
            schema_partial_keywords: partial,
            gate: rec::Gate::default(),
            span: self.span(decl.span),
            spans,
        }
    }

    fn report_partial(
        &mut self,
        decl: &ast::ToolDecl,
        what: &str,
        span: Span,
        pointers: &[String],
    ) {
        for pointer in pointers {
            let keyword = pointer.rsplit('/').next().unwrap_or(pointer);
            let keyword = keyword.replace("~1", "/").replace("~0", "~");
            let at = if pointer.contains('/') && pointer.rfind('/') != Some(0) {
                format!(" at `{pointer}`")
            } else {
                String::new()
            };
            let why = if keyword == "$ref" {
                "a reference to another document or an anchor, which the tool check does not follow"
            } else {
                "which the tool check does not enforce"
            };
            self.diagnostics.push(
                Diagnostic::warning(
                    codes::SCHEMA_PARTIAL,
                    span,
                    format!(
                        "the {what} schema of `{}` uses `{keyword}`{at}, {why}",
                        decl.name.value
                    ),
                )
                .with_label("compiled without this keyword")
                .with_note(format!(
                    "`{}` is marked `schema_partial`: every call of it that writes is confirmed by a person",
                    decl.name.value
                )),
            );
        }
    }

    fn report_closed(&mut self, decl: &ast::ToolDecl, span: Span, pointers: &[String]) {
        for pointer in pointers {
            self.diagnostics.push(
                Diagnostic::warning(
                    codes::CLOSED_OBJECT,
                    span,
                    format!(
                        "the arguments schema of `{}` declares no member of the object at `{pointer}`: a call that gives it any member is refused",
                        decl.name.value
                    ),
                )
                .with_label("an object with no `properties`")
                .with_note("an argument the schema does not declare is refused at every level, even under `additionalProperties: true`")
                .with_help("list its members under `properties`, or give `additionalProperties` a schema (`{}` accepts any value), in the source or under `overrides:`"),
            );
        }
    }

    fn report_errors(
        &mut self,
        decl: &ast::ToolDecl,
        what: &str,
        span: Span,
        errors: &[crate::schema::SchemaError],
    ) {
        for e in errors {
            let at = if e.pointer.is_empty() {
                String::new()
            } else {
                format!(" at `{}`", e.pointer)
            };
            self.diagnostics.push(
                Diagnostic::error(
                    codes::SCHEMA_INVALID,
                    span,
                    format!(
                        "the {what} schema of `{}` cannot be compiled{at}: {}",
                        decl.name.value, e.message
                    ),
                )
                .with_label(e.kind.slug()),
            );
        }
    }

    fn lower_agent_decl(
        &mut self,
        a: &ast::AgentDecl,
        tools: &BTreeMap<&str, u32>,
        agents: &BTreeMap<&str, u32>,
    ) -> rec::Agent {
        let mut reach: Vec<u32> = a
            .tools
            .iter()
            .filter_map(|t| tools.get(t.value.as_str()).copied())
            .collect();
        reach.sort_unstable();
        reach.dedup();
        rec::Agent {
            name: a.name.value.clone(),
            model: a.model.as_ref().map(|m| m.value.clone()),
            tools: reach,
            hands_off_to: a
                .hands_off_to
                .iter()
                .filter_map(|h| agents.get(h.value.as_str()).copied())
                .collect(),
            privilege: a
                .privilege
                .as_ref()
                .map(|p| trust(p.value))
                .unwrap_or(rec::Trust::Low),
            on_unread: match a.on_unread.as_ref().map(|o| o.value) {
                None | Some(ast::OnUnread::Refuse) => rec::OnUnread::Refuse,
                Some(ast::OnUnread::Model) => rec::OnUnread::Model,
                Some(ast::OnUnread::Ask) => rec::OnUnread::Ask,
                Some(ast::OnUnread::Answer) => rec::OnUnread::Answer,
            },
            language: a.language.as_ref().map(|l| language(l.value)),
            budget_steps: a.budget.as_ref().map(|b| b.value),
            span: self.span(a.span),
        }
    }
}

fn lower_settings(s: &ast::SettingsDecl) -> rec::Settings {
    let d = rec::Settings::default();
    rec::Settings {
        taint_policy: match s.taint_policy.as_ref().map(|t| t.value) {
            Some(ast::TaintPolicy::Refuse) => rec::TaintPolicy::Refuse,
            _ => rec::TaintPolicy::Confirm,
        },
        confirmation_expiry_secs: s
            .confirmation_expiry
            .as_ref()
            .map(|e| e.value)
            .unwrap_or(d.confirmation_expiry_secs),
        language: s
            .language
            .as_ref()
            .map_or(rec::Language::En, |l| language(l.value)),
        lapsed_refuses_all: s.lapsed_refuses_all.as_ref().is_some_and(|b| b.value),
        compiled_only: s.compiled_only.as_ref().is_some_and(|b| b.value),
    }
}

fn language(l: ast::Language) -> rec::Language {
    match l {
        ast::Language::En => rec::Language::En,
        ast::Language::PtBr => rec::Language::PtBr,
    }
}

fn flag(v: &Option<ast::Spanned<bool>>) -> bool {
    v.as_ref().is_some_and(|b| b.value)
}

fn binds(pairs: &[(ast::Spanned<String>, ast::Spanned<String>)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.value.clone(), b.value.clone()))
        .collect()
}

/// One JSON pointer segment as written (`~1` is `/`, `~0` is `~`).
fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// Top-level property names of an object schema, in declaration order.
fn property_names(schema: Option<&serde_json::Value>) -> Vec<String> {
    schema
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.as_object())
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

fn trust(t: ast::Trust) -> rec::Trust {
    match t {
        ast::Trust::Untrusted => rec::Trust::Untrusted,
        ast::Trust::Low => rec::Trust::Low,
        ast::Trust::Medium => rec::Trust::Medium,
        ast::Trust::High => rec::Trust::High,
    }
}

fn period(p: ast::Period) -> rec::Period {
    match p {
        ast::Period::Hour => rec::Period::Hour,
        ast::Period::Day => rec::Period::Day,
        ast::Period::Week => rec::Period::Week,
        ast::Period::Month => rec::Period::Month,
    }
}

fn check_op(op: ast::CheckOp) -> rec::CheckOp {
    match op {
        ast::CheckOp::AtMost => rec::CheckOp::AtMost,
        ast::CheckOp::AtLeast => rec::CheckOp::AtLeast,
        ast::CheckOp::Equals => rec::CheckOp::Equals,
        ast::CheckOp::OneOf => rec::CheckOp::OneOf,
    }
}

fn argument_kind(k: ast::ArgumentKind) -> rec::ArgumentKind {
    match k {
        ast::ArgumentKind::Code => rec::ArgumentKind::Code,
        ast::ArgumentKind::Shell => rec::ArgumentKind::Shell,
        ast::ArgumentKind::Sql => rec::ArgumentKind::Sql,
        ast::ArgumentKind::Query => rec::ArgumentKind::Query,
        ast::ArgumentKind::Path => rec::ArgumentKind::Path,
        ast::ArgumentKind::Url => rec::ArgumentKind::Url,
        ast::ArgumentKind::Template => rec::ArgumentKind::Template,
        ast::ArgumentKind::Destination => rec::ArgumentKind::Destination,
    }
}
