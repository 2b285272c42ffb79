//! Rulebook front ends: Colang 1.0, Colang 2.x and rule sheets (lexers, parsers, typed ASTs).
