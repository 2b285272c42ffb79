//! What a compiled schema says as a whole, found on its nodes once they are all written: chains
//! of references that come back without reaching a value (`ref-cycle`), and objects below the
//! root that declare no member (for the warning on argument schemas).

use stalwart_record::{Additional, SchemaIdx, TypeSet};

use super::{Ctx, MAX_SCHEMA_DEPTH, SchemaErrorKind, arena_index};

impl Ctx<'_, '_> {
    /// Reports every chain of in-place edges (`$ref`, `allOf`, `anyOf`, `oneOf`) among the nodes
    /// of this compile that comes back to a node it left: such a schema never reaches a value.
    pub(super) fn find_ref_cycles(&mut self) {
        let count = self.pointers.len();
        // 0: not visited, 1: on the current path, 2: done.
        let mut state = vec![0u8; count];
        let mut reported = std::collections::BTreeSet::new();
        for start in 0..count {
            if state.get(start) != Some(&0) {
                continue;
            }
            let mut path: Vec<(usize, Vec<usize>)> = vec![(start, self.in_place_edges(start))];
            if let Some(s) = state.get_mut(start) {
                *s = 1;
            }
            while let Some((node, edges)) = path.last_mut() {
                let node = *node;
                let Some(next) = edges.pop() else {
                    if let Some(s) = state.get_mut(node) {
                        *s = 2;
                    }
                    path.pop();
                    continue;
                };
                match state.get(next) {
                    Some(0) => {
                        if let Some(s) = state.get_mut(next) {
                            *s = 1;
                        }
                        let edges = self.in_place_edges(next);
                        path.push((next, edges));
                    }
                    Some(1) => {
                        let from = path.iter().position(|(n, _)| *n == next).unwrap_or(0);
                        let chain: Vec<usize> = path.iter().skip(from).map(|(n, _)| *n).collect();
                        let mut key = chain.clone();
                        key.sort_unstable();
                        if reported.insert(key) {
                            self.report_cycle(&chain, next);
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// The in-place edges of node `local` (an index relative to `first`), as local indices.
    fn in_place_edges(&self, local: usize) -> Vec<usize> {
        let Some(node) = self.builder.nodes.get(self.first + local) else {
            return Vec::new();
        };
        let mut edges: Vec<usize> = node
            .reference
            .iter()
            .chain(&node.all_of)
            .chain(&node.any_of)
            .chain(&node.one_of)
            .filter_map(|&i| (i as usize).checked_sub(self.first))
            .collect();
        edges.reverse();
        edges
    }

    fn report_cycle(&mut self, chain: &[usize], back_to: usize) {
        let name = |i: &usize| {
            let p = self.pointers.get(*i).map(String::as_str).unwrap_or("");
            if p.is_empty() {
                "#".to_owned()
            } else {
                format!("#{p}")
            }
        };
        let mut steps: Vec<String> = chain.iter().map(name).collect();
        steps.push(name(&back_to));
        let at = self.pointers.get(back_to).cloned().unwrap_or_default();
        let message = format!(
            "`$ref` comes back to `{}` without reaching a value: {}",
            name(&back_to),
            steps
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(" → ")
        );
        self.error(&at, SchemaErrorKind::RefCycle, message);
    }

    /// The value-level object schemas below the root that declare no member.
    pub(super) fn closed_objects(&self, root: SchemaIdx) -> Vec<String> {
        let mut out = Vec::new();
        for (local, pointer) in self.pointers.iter().enumerate() {
            let idx = arena_index(self.first + local);
            if idx == root || !self.value_level.get(local).copied().unwrap_or(false) {
                continue;
            }
            let Some(node) = self.builder.nodes.get(self.first + local) else {
                continue;
            };
            if node.types != TypeSet::OBJECT {
                continue;
            }
            if !self.declares_members(idx, 0) {
                out.push(pointer.clone());
            }
        }
        out
    }

    /// Whether node `idx` (or a schema it applies in place) declares any member.
    fn declares_members(&self, idx: SchemaIdx, depth: usize) -> bool {
        let Some(node) = self.builder.nodes.get(idx as usize) else {
            return false;
        };
        if depth > MAX_SCHEMA_DEPTH {
            return true;
        }
        !node.properties.is_empty()
            || !node.required.is_empty()
            || !node.pattern_properties.is_empty()
            || matches!(node.additional, Additional::Schema(_))
            || node.has_enum
            || node.constant.is_some()
            || node
                .reference
                .iter()
                .chain(&node.all_of)
                .chain(&node.any_of)
                .chain(&node.one_of)
                .any(|&i| self.declares_members(i, depth + 1))
    }
}
