//! The semantic pass of loading: every arena index stored in an archived body points inside the
//! arena it names.
//!
//! The pass runs once, after bytecheck, over every field that holds a [`ToolIdx`](crate::ToolIdx),
//! [`AgentIdx`](crate::AgentIdx), [`ValueIdx`](crate::ValueIdx), [`SchemaIdx`](crate::SchemaIdx),
//! [`ExprIdx`](crate::ExprIdx) or [`SourceIdx`](crate::SourceIdx). It is linear in the body's
//! size and allocates only to describe a fault. Only bounds are checked: arena references may form
//! cycles, and code that follows them guards its own depth.

use std::fmt;

use rkyv::rend::u32_le;

use crate::{
    ArchivedAdditional, ArchivedAgent, ArchivedCheckOperand, ArchivedExpr, ArchivedFact,
    ArchivedGatePath, ArchivedNotAfter, ArchivedReader, ArchivedRecordBody, ArchivedRoute,
    ArchivedRouteTarget, ArchivedSchemaNode, ArchivedSourceSpan, ArchivedTool, ArchivedUndo,
    ArchivedValue, ArchivedWord, ArchivedWordKind,
};

/// The arenas of a record body that indices refer to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arena {
    /// [`RecordBody::tools`](crate::RecordBody::tools).
    Tools,
    /// [`RecordBody::agents`](crate::RecordBody::agents).
    Agents,
    /// [`RecordBody::values`](crate::RecordBody::values).
    Values,
    /// [`RecordBody::schema_nodes`](crate::RecordBody::schema_nodes).
    SchemaNodes,
    /// [`RecordBody::exprs`](crate::RecordBody::exprs).
    Exprs,
    /// [`RecordBody::sources`](crate::RecordBody::sources).
    Sources,
    /// [`Selector::intents`](crate::Selector::intents).
    Intents,
    /// [`Selector::routes`](crate::Selector::routes).
    Routes,
    /// [`Reader::terms`](crate::Reader::terms) of the reader the index is stored in.
    Terms,
    /// [`Reader::words`](crate::Reader::words) of the reader the index is stored in.
    Words,
}

impl Arena {
    /// What one member of the arena is called.
    pub fn singular(self) -> &'static str {
        match self {
            Self::Tools => "tool",
            Self::Agents => "agent",
            Self::Values => "value",
            Self::SchemaNodes => "schema node",
            Self::Exprs => "expression",
            Self::Sources => "source file",
            Self::Intents => "intent",
            Self::Routes => "route",
            Self::Terms => "term",
            Self::Words => "word",
        }
    }

    /// What several members of the arena are called.
    pub fn plural(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Agents => "agents",
            Self::Values => "values",
            Self::SchemaNodes => "schema nodes",
            Self::Exprs => "expressions",
            Self::Sources => "source files",
            Self::Intents => "intents",
            Self::Routes => "routes",
            Self::Terms => "terms",
            Self::Words => "words",
        }
    }
}

/// An index that points outside its arena.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexFault {
    /// Where the index is stored, e.g. `tools[2].after[0].tool`.
    pub field: String,
    pub arena: Arena,
    pub index: u32,
    /// The arena's length.
    pub len: usize,
}

impl IndexFault {
    /// The same fault, seen from one level further out: `prefix` goes in front of the field.
    fn within(mut self, prefix: impl fmt::Display) -> Self {
        self.field = if self.field.is_empty() {
            prefix.to_string()
        } else {
            format!("{prefix}.{}", self.field)
        };
        self
    }
}

impl fmt::Display for IndexFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let members = if self.len == 1 {
            self.arena.singular()
        } else {
            self.arena.plural()
        };
        write!(
            f,
            "`{}` refers to {} {}, but the record has {} {members}",
            self.field,
            self.arena.singular(),
            self.index,
            self.len
        )
    }
}

type Checked = Result<(), IndexFault>;

/// Checks every index stored in `body`; the first one out of range is the error.
pub(crate) fn check_indices(body: &ArchivedRecordBody) -> Checked {
    let a = Lens {
        tools: body.tools.len(),
        agents: body.agents.len(),
        values: body.values.len(),
        schema_nodes: body.schema_nodes.len(),
        exprs: body.exprs.len(),
        sources: body.sources.len(),
        intents: body.selector.intents.len(),
        routes: body.selector.routes.len(),
        terms: 0,
        words: 0,
    };
    each(&body.tools, "tools", |tool| a.tool(tool))?;
    each(&body.agents, "agents", |agent| a.agent(agent))?;
    each(&body.facts, "facts", |fact| a.fact(fact))?;
    each(&body.values, "values", |value| a.value(value))?;
    each(&body.schema_nodes, "schema_nodes", |node| {
        a.schema_node(node)
    })?;
    each(&body.exprs, "exprs", |expr| a.expr(expr))?;
    each(&body.selector.intents, "selector.intents", |intent| {
        a.span(&intent.span, "span")
    })?;
    each(&body.selector.routes, "selector.routes", |route| {
        a.route(route)
    })?;
    each(&body.selector.readers, "selector.readers", |reader| {
        Lens {
            terms: reader.terms.len(),
            words: reader.words.len(),
            ..a
        }
        .reader(reader)
    })
}

/// Runs `check` on every item, naming the failing one `name[i]`.
fn each<T>(items: &[T], name: &str, mut check: impl FnMut(&T) -> Checked) -> Checked {
    items
        .iter()
        .enumerate()
        .try_for_each(|(i, item)| check(item).map_err(|e| e.within(format_args!("{name}[{i}]"))))
}

/// Runs `check` on the value of an option, if any.
fn maybe<T>(item: Option<&T>, name: &str, check: impl FnOnce(&T) -> Checked) -> Checked {
    item.map_or(Ok(()), check).map_err(|e| e.within(name))
}

/// The arenas' lengths (`terms` and `words`: those of the reader being checked).
#[derive(Clone, Copy)]
struct Lens {
    tools: usize,
    agents: usize,
    values: usize,
    schema_nodes: usize,
    exprs: usize,
    sources: usize,
    intents: usize,
    routes: usize,
    terms: usize,
    words: usize,
}

impl Lens {
    fn index(&self, arena: Arena, index: &u32_le) -> Checked {
        let len = match arena {
            Arena::Tools => self.tools,
            Arena::Agents => self.agents,
            Arena::Values => self.values,
            Arena::SchemaNodes => self.schema_nodes,
            Arena::Exprs => self.exprs,
            Arena::Sources => self.sources,
            Arena::Intents => self.intents,
            Arena::Routes => self.routes,
            Arena::Terms => self.terms,
            Arena::Words => self.words,
        };
        let index = index.to_native();
        if usize::try_from(index).is_ok_and(|i| i < len) {
            Ok(())
        } else {
            Err(IndexFault {
                field: String::new(),
                arena,
                index,
                len,
            })
        }
    }

    /// `index` into `arena`, stored in the field `name`.
    fn field(&self, arena: Arena, index: &u32_le, name: &str) -> Checked {
        self.index(arena, index).map_err(|e| e.within(name))
    }

    fn span(&self, span: &ArchivedSourceSpan, name: &str) -> Checked {
        self.field(Arena::Sources, &span.source, "source")
            .map_err(|e| e.within(name))
    }

    fn tool(&self, tool: &ArchivedTool) -> Checked {
        maybe(tool.arguments.as_ref(), "arguments", |i| {
            self.index(Arena::SchemaNodes, i)
        })?;
        maybe(tool.result.as_ref(), "result", |i| {
            self.index(Arena::SchemaNodes, i)
        })?;
        each(&tool.after, "after", |after| {
            self.field(Arena::Tools, &after.tool, "tool")
        })?;
        each(&tool.not_after, "not_after", |not_after| match not_after {
            ArchivedNotAfter::Tool(i) => self.field(Arena::Tools, i, "tool"),
            ArchivedNotAfter::Untrusted => Ok(()),
        })?;
        match &tool.undo {
            ArchivedUndo::Tool { tool, .. } => self
                .field(Arena::Tools, tool, "tool")
                .map_err(|e| e.within("undo"))?,
            ArchivedUndo::Unset | ArchivedUndo::None => {}
        }
        each(&tool.checks, "checks", |check| match &check.operand {
            ArchivedCheckOperand::Value(i) => self.field(Arena::Values, i, "operand.value"),
            ArchivedCheckOperand::From { tool, .. } => {
                self.field(Arena::Tools, tool, "operand.from.tool")
            }
        })?;
        each(&tool.gate.paths, "gate.paths", |path| self.gate_path(path))?;
        self.span(&tool.span, "span")
    }

    fn gate_path(&self, path: &ArchivedGatePath) -> Checked {
        maybe(path.condition.as_ref(), "condition", |i| {
            self.index(Arena::Exprs, i)
        })?;
        self.span(&path.span, "span")
    }

    fn agent(&self, agent: &ArchivedAgent) -> Checked {
        each(&agent.tools, "tools", |i| self.index(Arena::Tools, i))?;
        each(&agent.hands_off_to, "hands_off_to", |i| {
            self.index(Arena::Agents, i)
        })?;
        self.span(&agent.span, "span")
    }

    fn route(&self, route: &ArchivedRoute) -> Checked {
        maybe(route.intent.as_ref(), "intent", |i| {
            self.index(Arena::Intents, i)
        })?;
        match &route.target {
            ArchivedRouteTarget::Tool(i) => self.field(Arena::Tools, i, "target.tool"),
            ArchivedRouteTarget::Say { .. } | ArchivedRouteTarget::Ask { .. } => Ok(()),
        }
    }

    fn reader(&self, reader: &ArchivedReader) -> Checked {
        each(&reader.terms, "terms", |term| {
            each(&term.postings, "postings", |p| {
                self.field(Arena::Routes, &p.route, "route")
            })
        })?;
        each(&reader.words, "words", |word| self.word(word))?;
        each(&reader.phrases, "phrases", |word| self.word(word))?;
        each(&reader.stems, "stems", |stem| {
            self.field(Arena::Terms, &stem.term, "term")
        })?;
        each(&reader.near, "near", |near| {
            self.field(Arena::Words, &near.word, "word")
        })?;
        each(&reader.profiles, "profiles", |profile| {
            each(&profile.examples, "examples", |example| {
                each(example, "terms", |t| self.index(Arena::Terms, t))
            })
        })
    }

    fn word(&self, word: &ArchivedWord) -> Checked {
        match &word.kind {
            ArchivedWordKind::Term(i) => self.field(Arena::Terms, i, "kind.term"),
            _ => Ok(()),
        }
    }

    fn fact(&self, fact: &ArchivedFact) -> Checked {
        self.field(Arena::Tools, &fact.tool, "tool")?;
        maybe(fact.equals.as_ref(), "equals", |i| {
            self.index(Arena::Values, i)
        })?;
        self.span(&fact.span, "span")
    }

    fn value(&self, value: &ArchivedValue) -> Checked {
        match value {
            ArchivedValue::Array(items) => each(items, "array", |i| self.index(Arena::Values, i)),
            ArchivedValue::Object(members) => each(members, "object", |member| {
                self.index(Arena::Values, &member.1)
            }),
            ArchivedValue::Null
            | ArchivedValue::Bool(_)
            | ArchivedValue::Number(_)
            | ArchivedValue::String(_) => Ok(()),
        }
    }

    fn schema_node(&self, node: &ArchivedSchemaNode) -> Checked {
        each(&node.properties, "properties", |property| {
            self.index(Arena::SchemaNodes, &property.1)
        })?;
        match &node.additional {
            ArchivedAdditional::Schema(i) => self.field(Arena::SchemaNodes, i, "additional")?,
            ArchivedAdditional::Allow | ArchivedAdditional::Deny => {}
        }
        each(&node.enum_values, "enum_values", |i| {
            self.index(Arena::Values, i)
        })?;
        maybe(node.constant.as_ref(), "constant", |i| {
            self.index(Arena::Values, i)
        })?;
        maybe(node.items.as_ref(), "items", |i| {
            self.index(Arena::SchemaNodes, i)
        })?;
        each(&node.any_of, "any_of", |i| {
            self.index(Arena::SchemaNodes, i)
        })?;
        each(&node.all_of, "all_of", |i| {
            self.index(Arena::SchemaNodes, i)
        })?;
        each(&node.one_of, "one_of", |i| {
            self.index(Arena::SchemaNodes, i)
        })?;
        maybe(node.reference.as_ref(), "reference", |i| {
            self.index(Arena::SchemaNodes, i)
        })?;
        maybe(node.property_names.as_ref(), "property_names", |i| {
            self.index(Arena::SchemaNodes, i)
        })?;
        each(&node.pattern_properties, "pattern_properties", |p| {
            self.index(Arena::SchemaNodes, &p.1)
        })
    }

    fn expr(&self, expr: &ArchivedExpr) -> Checked {
        match expr {
            ArchivedExpr::Fact(_)
            | ArchivedExpr::Arg(_)
            | ArchivedExpr::Result(_)
            | ArchivedExpr::Unknown => Ok(()),
            ArchivedExpr::Member { base, .. } => self.field(Arena::Exprs, base, "member"),
            ArchivedExpr::IsNone(i) => self.field(Arena::Exprs, i, "is_none"),
            ArchivedExpr::In { item, collection } => {
                self.field(Arena::Exprs, item, "in.item")?;
                self.field(Arena::Exprs, collection, "in.collection")
            }
            ArchivedExpr::List(items) | ArchivedExpr::Call { args: items, .. } => {
                each(items, "list", |i| self.index(Arena::Exprs, i))
            }
            ArchivedExpr::Method { receiver, args, .. } => {
                self.field(Arena::Exprs, receiver, "method.receiver")?;
                each(args, "method.args", |i| self.index(Arena::Exprs, i))
            }
            ArchivedExpr::Literal(i) => self.field(Arena::Values, i, "literal"),
            ArchivedExpr::Not(i) => self.field(Arena::Exprs, i, "not"),
            ArchivedExpr::And(left, right) => {
                self.field(Arena::Exprs, left, "and[0]")?;
                self.field(Arena::Exprs, right, "and[1]")
            }
            ArchivedExpr::Or(left, right) => {
                self.field(Arena::Exprs, left, "or[0]")?;
                self.field(Arena::Exprs, right, "or[1]")
            }
            ArchivedExpr::Compare { left, right, .. } => {
                self.field(Arena::Exprs, left, "compare.left")?;
                self.field(Arena::Exprs, right, "compare.right")
            }
        }
    }
}
