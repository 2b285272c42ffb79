//! The one place that runs z3: a solver that takes the unrolling's constraints as they come,
//! answers a query under an assumption within what is left of the engine's time budget, and
//! hands back the model of a satisfiable query.

use std::time::{Duration, Instant};

use z3::ast::Bool;
use z3::{Model, Params, SatResult, Solver};

/// A query's answer.
#[derive(Debug)]
pub(crate) enum Outcome {
    Sat(Model),
    /// No model: the query's event cannot happen within the unrolling.
    Unsat,
    /// The solver gave up, or the budget ran out.
    Unknown,
}

/// An incremental solver with a deadline.
#[derive(Debug)]
pub(crate) struct Smt {
    solver: Solver,
    deadline: Instant,
}

impl Smt {
    /// A solver that answers unknown once `budget_ms` milliseconds have passed.
    pub(crate) fn new(budget_ms: u32) -> Self {
        Self {
            solver: Solver::new_for_logic("QF_BV").unwrap_or_default(),
            deadline: Instant::now() + Duration::from_millis(u64::from(budget_ms)),
        }
    }

    pub(crate) fn assert(&self, constraint: &Bool) {
        self.solver.assert(constraint);
    }

    /// Checks the constraints so far with `assumption` assumed.
    pub(crate) fn check(&self, assumption: &Bool) -> Outcome {
        let left = self.deadline.saturating_duration_since(Instant::now());
        let ms = u32::try_from(left.as_millis()).unwrap_or(u32::MAX);
        if ms == 0 {
            return Outcome::Unknown;
        }
        let mut params = Params::new();
        params.set_u32("timeout", ms);
        self.solver.set_params(&params);
        match self
            .solver
            .check_assumptions(std::slice::from_ref(assumption))
        {
            SatResult::Sat => match self.solver.get_model() {
                Some(model) => Outcome::Sat(model),
                None => Outcome::Unknown,
            },
            SatResult::Unsat => Outcome::Unsat,
            SatResult::Unknown => Outcome::Unknown,
        }
    }

    /// The constraints asserted so far, as SMT-LIB text.
    pub(crate) fn smtlib(&self) -> String {
        self.solver.to_smt2()
    }
}
