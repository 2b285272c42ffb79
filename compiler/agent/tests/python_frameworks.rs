//! Python tool modules as LangChain, CrewAI and MCP SDK users write them, read statically:
//! Pydantic models and `Field(...)`, `args_schema`, `BaseTool` classes, `@mcp.tool()`, injected
//! parameters, `StructuredTool.from_function`, date and UUID types, module constants.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use serde_json::{Value, json};
use stalwart_agent::{Effects, IdempotencyDecl, ToolDecl, parse_python_module};
use stalwart_diagnostics::FileId;

fn read(text: &str) -> Vec<ToolDecl> {
    let parse = parse_python_module(FileId(0), text, "tools");
    let messages: Vec<String> = parse
        .diagnostics
        .iter()
        .map(|d| d.message.clone())
        .collect();
    assert_eq!(messages, Vec::<String>::new());
    parse.value
}

fn one(text: &str) -> ToolDecl {
    let mut tools = read(text);
    assert_eq!(tools.len(), 1, "{tools:#?}");
    tools.pop().unwrap()
}

fn arguments(t: &ToolDecl) -> Value {
    t.arguments.as_ref().unwrap().value.clone()
}

#[test]
fn langchain_tool_with_a_name_and_an_args_schema_model() {
    let t = one(r#"
from typing import Literal, Optional
from langchain_core.tools import tool
from pydantic import BaseModel, Field

class SearchInput(BaseModel):
    """What to search."""
    query: str = Field(description="the words", min_length=1)
    limit: int = Field(10, ge=1, le=50)
    order: Literal["new", "old"] = "new"
    site: Optional[str] = None
    tags: list[str] = Field(default_factory=list, max_length=5)

@tool("web_search", args_schema=SearchInput, return_direct=True)
def search(query: str, limit: int = 10, order: str = "new", site=None, tags=None) -> str:
    """Search the web."""
"#);
    assert_eq!(t.name.value, "web_search");
    assert_eq!(t.description.as_deref(), Some("Search the web."));
    assert_eq!(
        arguments(&t),
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "the words", "minLength": 1},
                "limit": {"type": "integer", "default": 10, "minimum": 1, "maximum": 50},
                "order": {"enum": ["new", "old"], "default": "new"},
                "site": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    );
}

#[test]
fn nested_models_annotated_fields_and_dates() {
    let t = one(r#"
from datetime import date, datetime
from typing import Annotated
from uuid import UUID
from pydantic import BaseModel, Field, EmailStr
from mcp.server.fastmcp import FastMCP, Context

mcp = FastMCP("shop")

class Tank(BaseModel):
    class Shrimp(BaseModel):
        name: Annotated[str, Field(max_length=10)]
    shrimp: list[Shrimp]

@mcp.tool(name="book", description="Book a visit")
async def book(tank: Tank, when: datetime, day: date, id: UUID, mail: EmailStr,
               ctx: Context, note: str | None = None) -> dict:
    pass
"#);
    assert_eq!(t.name.value, "book");
    assert_eq!(t.description.as_deref(), Some("Book a visit"));
    assert_eq!(
        arguments(&t),
        json!({
            "type": "object",
            "properties": {
                "tank": {
                    "type": "object",
                    "properties": {"shrimp": {"type": "array", "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string", "maxLength": 10}},
                        "required": ["name"],
                        "additionalProperties": false
                    }}},
                    "required": ["shrimp"],
                    "additionalProperties": false
                },
                "when": {"type": "string", "format": "date-time"},
                "day": {"type": "string", "format": "date"},
                "id": {"type": "string", "format": "uuid"},
                "mail": {"type": "string", "format": "email"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}
            },
            "required": ["tank", "when", "day", "id", "mail"],
            "additionalProperties": false
        })
    );
}

#[test]
fn mcp_sdk_annotations_map_as_an_answer_s_hints_do() {
    let t = one(r#"
from mcp.types import ToolAnnotations
@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=True), title="Look")
def look(q: str) -> str:
    """Look."""
"#);
    assert_eq!(t.effects.as_ref().map(|e| e.value), Some(Effects::Reads));
    assert_eq!(
        t.idempotency.as_ref().map(|i| i.value.clone()),
        Some(IdempotencyDecl::RetrySafe)
    );
    assert_eq!(t.reads_outside.as_ref().map(|r| r.value), Some(true));
}

#[test]
fn langchain_and_crewai_base_tool_classes() {
    let tools = read(
        r#"
from typing import Optional, Type
from langchain_core.tools import BaseTool
from crewai.tools import BaseTool as CrewBase
from pydantic import BaseModel, Field

class ReadInput(BaseModel):
    file_path: str = Field(..., description="name of file")

class ReadFileTool(BaseTool):
    name: str = "read_file"
    args_schema: Type[BaseModel] = ReadInput
    description: str = "Read file from disk"
    def _run(self, file_path: str, run_manager=None) -> str:
        pass

class Ping(BaseTool):
    """Ping a host."""
    name = "ping"
    def _run(self, host: str, count: int = 3) -> str:
        pass
"#,
    );
    let names: Vec<&str> = tools.iter().map(|t| t.name.value.as_str()).collect();
    assert_eq!(names, vec!["read_file", "ping"]);
    assert_eq!(tools[0].description.as_deref(), Some("Read file from disk"));
    assert_eq!(
        arguments(&tools[0]),
        json!({"type": "object", "properties": {"file_path": {"type": "string", "description": "name of file"}}, "required": ["file_path"], "additionalProperties": false})
    );
    assert_eq!(tools[1].description.as_deref(), Some("Ping a host."));
    assert_eq!(
        arguments(&tools[1]),
        json!({"type": "object", "properties": {"host": {"type": "string"}, "count": {"type": "integer", "default": 3}}, "required": ["host"], "additionalProperties": false})
    );
    assert_eq!(
        tools[1].result.as_ref().map(|r| r.value.clone()),
        Some(json!({"type": "string"}))
    );
}

#[test]
fn injected_parameters_and_module_constants() {
    let t = one(r#"
from typing import Annotated, List
from langchain_core.tools import tool, InjectedToolArg
from langchain_core.runnables import RunnableConfig

DESCRIPTION = ("A search engine. "
               "Useful for news.")

@tool(description=DESCRIPTION, parse_docstring=False)
async def search(queries: List[str], max_results: Annotated[int, InjectedToolArg] = 5,
                 config: RunnableConfig = None) -> str:
    """Fetches results."""
"#);
    assert_eq!(
        t.description.as_deref(),
        Some("A search engine. Useful for news.")
    );
    assert_eq!(
        arguments(&t),
        json!({"type": "object", "properties": {"queries": {"type": "array", "items": {"type": "string"}}}, "required": ["queries"], "additionalProperties": false})
    );
}

#[test]
fn structured_tool_from_function_and_dataclasses_and_enums() {
    let tools = read(
        r#"
from dataclasses import dataclass, field
from enum import Enum
from langchain_core.tools import StructuredTool

class Unit(str, Enum):
    C = "celsius"
    F = "fahrenheit"

@dataclass
class Place:
    city: str
    unit: Unit = Unit.C
    tags: list[str] = field(default_factory=list)

def weather(place: Place, days: int = 1) -> dict:
    """The weather of a place."""

weather_tool = StructuredTool.from_function(func=weather, name="weather")
"#,
    );
    assert_eq!(tools.len(), 1);
    let t = &tools[0];
    assert_eq!(t.name.value, "weather");
    assert_eq!(t.description.as_deref(), Some("The weather of a place."));
    assert_eq!(
        arguments(t),
        json!({
            "type": "object",
            "properties": {
                "place": {"type": "object", "properties": {
                    "city": {"type": "string"},
                    "unit": {"enum": ["celsius", "fahrenheit"]},
                    "tags": {"type": "array", "items": {"type": "string"}}
                }, "required": ["city"], "additionalProperties": false},
                "days": {"type": "integer", "default": 1}
            },
            "required": ["place"],
            "additionalProperties": false
        })
    );
}
