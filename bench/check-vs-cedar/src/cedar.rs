//! Cedar's side: the shop's refund rule written as a Cedar schema and policy set, the entities
//! and the request of each case, and the reading of Cedar's answer in the tool check's words.
//!
//! The mapping. Cedar answers Allow or Deny with the policies that decided it; the tool check
//! answers allow, confirm or refuse with reasons. Each policy carries `@decision` and `@reason`
//! annotations: Deny is `refuse` with the `@reason` of the forbid that decided it (or `refuse`, the
//! rulebook's words, when no permit applied); Allow is the `@decision` of the permits that
//! decided it (`confirm`: every refund is a write the person confirms) with their `@reason`s.
//! - The principal is the agent (`Agent::"billing"`, privilege `high`), the action
//!   `Action::"refund_card"`, the resource the order (`Order::"4411"`, attribute `paid`: the fact
//!   `order_paid` the application gives the check).
//! - The context holds the arguments (`order_id`, `amount` as a decimal, `note` when given) and
//!   `taint`: the marks the caller must work out for itself (Cedar reads no history).
//! - `note` is declared optional in the schema so that a request carrying it is valid and the
//!   `forbid` decides (the tool check refuses it at its schema step instead).

use std::str::FromStr;

use cedar_policy::{
    Authorizer, Context, Decision, Entities, EntityUid, PolicySet, Request, Response, Schema,
    ValidationMode, Validator,
};
use serde_json::{Value, json};

use crate::{Case, Verdict};

/// The schema: agents, orders and the refund action with its context.
pub const SCHEMA: &str = r#"
entity Agent { privilege: String };
entity Order { paid: Bool };
action refund_card appliesTo {
  principal: Agent,
  resource: Order,
  context: { order_id: String, amount: decimal, note?: String, taint: Set<String> }
};
"#;

/// The policy set: the refund of a paid order confirms (clean or tainted, with its reason), an
/// undeclared argument is forbidden, anything else is denied by default.
pub const POLICIES: &str = r#"
@id("refund_write")
@decision("confirm")
@reason("write")
permit (principal == Agent::"billing", action == Action::"refund_card", resource is Order)
when { resource.paid && !(context has note) && context.taint.isEmpty() };

@id("refund_tainted")
@decision("confirm")
@reason("tainted_call")
permit (principal == Agent::"billing", action == Action::"refund_card", resource is Order)
when { resource.paid && !(context has note) && !context.taint.isEmpty() };

@id("undeclared_argument")
@reason("argument_schema")
forbid (principal, action == Action::"refund_card", resource)
when { context has note };
"#;

/// Schema, policies and authorizer, built once.
pub struct Cedar {
    pub schema: Schema,
    pub policies: PolicySet,
    pub authorizer: Authorizer,
    pub action: EntityUid,
}

impl Cedar {
    /// Parses the schema and the policies and validates the policies against the schema (strict).
    pub fn new() -> Result<Self, String> {
        let (schema, _) = Schema::from_cedarschema_str(SCHEMA).map_err(|e| e.to_string())?;
        let policies = PolicySet::from_str(POLICIES).map_err(|e| e.to_string())?;
        let result = Validator::new(schema.clone()).validate(&policies, ValidationMode::Strict);
        if !result.validation_passed() {
            return Err(format!("the policies do not validate: {result}"));
        }
        let action = EntityUid::from_str(r#"Action::"refund_card""#).map_err(|e| e.to_string())?;
        Ok(Self {
            schema,
            policies,
            authorizer: Authorizer::new(),
            action,
        })
    }

    /// A case's request and entities, built from JSON and validated against the schema.
    pub fn build(&self, input: &Input) -> Result<(Request, Entities), String> {
        self.build_owned(input.clone())
    }

    /// [`Cedar::build`] consuming its input (what the timed loop calls).
    pub fn build_owned(&self, input: Input) -> Result<(Request, Entities), String> {
        let principal = EntityUid::from_json(input.principal).map_err(|e| e.to_string())?;
        let action = EntityUid::from_json(input.action).map_err(|e| e.to_string())?;
        let resource = EntityUid::from_json(input.resource).map_err(|e| e.to_string())?;
        let context = Context::from_json_value(input.context, Some((&self.schema, &action)))
            .map_err(|e| e.to_string())?;
        let entities = Entities::from_json_value(input.entities, Some(&self.schema))
            .map_err(|e| e.to_string())?;
        let request = Request::new(principal, action, resource, context, Some(&self.schema))
            .map_err(|e| e.to_string())?;
        Ok((request, entities))
    }

    /// `is_authorized` on a built request.
    pub fn decide(&self, request: &Request, entities: &Entities) -> Response {
        self.authorizer
            .is_authorized(request, &self.policies, entities)
    }

    /// Builds the request from JSON, then decides: what a caller holding JSON pays.
    pub fn decide_json(&self, input: Input) -> Option<Response> {
        let (request, entities) = self.build_owned(input).ok()?;
        Some(self.decide(&request, &entities))
    }

    /// Cedar's answer in the tool check's words (see the module's mapping).
    pub fn verdict(&self, response: &Response) -> Verdict {
        let mut reasons: Vec<String> = response
            .diagnostics()
            .reason()
            .filter_map(|id| self.policies.annotation(id, "reason"))
            .map(str::to_string)
            .collect();
        reasons.sort();
        match response.decision() {
            Decision::Deny => Verdict {
                decision: "refuse",
                reasons: if reasons.is_empty() {
                    vec!["refuse".into()]
                } else {
                    reasons
                },
            },
            Decision::Allow => {
                let decision = response
                    .diagnostics()
                    .reason()
                    .filter_map(|id| self.policies.annotation(id, "decision"))
                    .next()
                    .map(|d| if d == "confirm" { "confirm" } else { "allow" })
                    .unwrap_or("allow");
                Verdict { decision, reasons }
            }
        }
    }
}

/// A request as JSON: entity references, the context and the entities.
#[derive(Debug, Clone)]
pub struct Input {
    pub principal: Value,
    pub action: Value,
    pub resource: Value,
    pub context: Value,
    pub entities: Value,
}

/// A case's request as JSON.
pub fn input(case: Case) -> Input {
    let paid = !matches!(case, Case::Unpaid);
    let mut context = json!({
        "order_id": "4411",
        "amount": {"__extn": {"fn": "decimal", "arg": "40.00"}},
        "taint": [],
    });
    if case == Case::Note {
        context["note"] = json!("goodwill");
    }
    if case == Case::Tainted {
        context["taint"] = json!(["untrusted:read_inbox"]);
    }
    Input {
        principal: json!({"type": "Agent", "id": "billing"}),
        action: json!({"type": "Action", "id": "refund_card"}),
        resource: json!({"type": "Order", "id": "4411"}),
        context,
        entities: json!([
            {"uid": {"type": "Agent", "id": "billing"}, "attrs": {"privilege": "high"}, "parents": []},
            {"uid": {"type": "Order", "id": "4411"}, "attrs": {"paid": paid}, "parents": []},
        ]),
    }
}
