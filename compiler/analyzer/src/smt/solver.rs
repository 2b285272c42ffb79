//! The one place that runs z3: a solver that takes the unrolling's constraints as they come,
//! answers a query under assumptions within what is left of the engine's time budget, and
//! hands back the model of a satisfiable query.

use std::cell::Cell;
use std::time::{Duration, Instant};

use z3::ast::Bool;
use z3::{Model, Params, SatResult, Solver};

/// A query's answer.
#[derive(Debug)]
pub(crate) enum Outcome {
    Sat(Model),
    Unsat,
    /// The solver gave up, or the budget ran out.
    Unknown,
}

/// An incremental solver with a deadline.
#[derive(Debug)]
pub(crate) struct Smt {
    solver: Solver,
    deadline: Instant,
    /// The timeout last given to the solver, in milliseconds.
    timeout: Cell<u32>,
}

impl Smt {
    /// A solver that answers unknown once `budget_ms` milliseconds have passed.
    pub(crate) fn new(budget_ms: u32) -> Self {
        Self::until(Instant::now() + Duration::from_millis(u64::from(budget_ms)))
    }

    /// A solver for the rulebook's conditions (integers, reals and booleans), answering unknown
    /// once `budget_ms` milliseconds have passed.
    pub(crate) fn for_conditions(budget_ms: u32) -> Self {
        let smt = Self {
            solver: Solver::new(),
            deadline: Instant::now() + Duration::from_millis(u64::from(budget_ms)),
            timeout: Cell::new(0),
        };
        smt.set_timeout(smt.left_ms());
        smt
    }

    /// Another solver, with the same deadline.
    pub(crate) fn sibling(&self) -> Self {
        Self::until(self.deadline)
    }

    /// A solver that answers unknown from `deadline` on.
    pub(crate) fn until(deadline: Instant) -> Self {
        // Bit-vectors and booleans only: z3 bit-blasts them into its incremental SAT solver.
        let solver = Solver::new_for_logic("QF_BV").unwrap_or_default();
        let smt = Self {
            solver,
            deadline,
            timeout: Cell::new(0),
        };
        smt.set_timeout(smt.left_ms());
        smt
    }

    fn set_timeout(&self, ms: u32) {
        let mut params = Params::new();
        params.set_u32("timeout", ms.max(1));
        // The SAT solver's in-processing pays off on long searches; these are many short ones.
        params.set_u32("sat.simplify.delay", 1_000_000);
        self.solver.set_params(&params);
        self.timeout.set(ms);
    }

    /// Milliseconds left of the budget.
    pub(crate) fn left_ms(&self) -> u32 {
        let left = self.deadline.saturating_duration_since(Instant::now());
        u32::try_from(left.as_millis()).unwrap_or(u32::MAX)
    }

    pub(crate) fn assert(&self, constraint: &Bool) {
        self.solver.assert(constraint);
    }

    /// Checks the constraints so far with `assumptions` assumed.
    pub(crate) fn check(&self, assumptions: &[Bool]) -> Outcome {
        let left = self.left_ms();
        if left == 0 {
            return Outcome::Unknown;
        }
        // The timeout is set again only when what is left falls well below it: setting
        // parameters is not free.
        if left < self.timeout.get() / 2 {
            self.set_timeout(left);
        }
        match self.solver.check_assumptions(assumptions) {
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
