//! Where a store lives: `sqlite:PATH` (the default: a file, or a folder that holds
//! `conversations.sqlite`), a bare path (the same), or `postgres://…` / `postgresql://…`.
//!
//! A URL is shown only with its password hidden ([`StoreUrl::shown`]): every message the store
//! prints names the store that way.

use std::path::PathBuf;

use stalwart_host::HostError;

use crate::codes::STORE_URL;

/// The file a folder given as an SQLite store holds.
pub const SQLITE_FILE: &str = "conversations.sqlite";

/// A store's address, read.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreUrl {
    Sqlite(PathBuf),
    /// The URL as given, to connect with; never printed.
    Postgres(String),
}

impl std::fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown())
    }
}

impl StoreUrl {
    /// Reads a store's address.
    pub fn parse(text: &str) -> Result<Self, HostError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(HostError::new(STORE_URL, "the store's URL is empty"));
        }
        if let Some(rest) = text
            .strip_prefix("postgres://")
            .or_else(|| text.strip_prefix("postgresql://"))
        {
            if rest.is_empty() {
                return Err(HostError::new(
                    STORE_URL,
                    format!("`{}` names no server", hide_password(text)),
                ));
            }
            return Ok(StoreUrl::Postgres(text.to_string()));
        }
        let path = match text.strip_prefix("sqlite:") {
            Some(rest) => rest.strip_prefix("//").unwrap_or(rest),
            None => {
                if let Some((scheme, _)) = text.split_once("://") {
                    return Err(HostError::new(
                        STORE_URL,
                        format!(
                            "unknown store `{}`: a store is `sqlite:PATH` or `postgres://…` \
                             (not `{scheme}`)",
                            hide_password(text)
                        ),
                    ));
                }
                text
            }
        };
        if path.is_empty() {
            return Err(HostError::new(STORE_URL, "`sqlite:` names no file"));
        }
        let mut file = PathBuf::from(path);
        if path.ends_with('/') || file.is_dir() {
            file = file.join(SQLITE_FILE);
        }
        Ok(StoreUrl::Sqlite(file))
    }

    /// The address as messages show it: a PostgreSQL URL with its password hidden.
    pub fn shown(&self) -> String {
        match self {
            StoreUrl::Sqlite(path) => format!("sqlite:{}", path.display()),
            StoreUrl::Postgres(url) => hide_password(url),
        }
    }
}

/// `postgres://user:secret@host/db?password=x` → `postgres://user:***@host/db?password=***`.
pub fn hide_password(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (s, r),
        None => return url.to_string(),
    };
    let (authority_end, _) = rest
        .char_indices()
        .find(|(_, c)| matches!(c, '/' | '?'))
        .unwrap_or((rest.len(), ' '));
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((name, _)) => format!("{name}:***@{host}"),
            None => format!("{user}@{host}"),
        },
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                    _ => pair.to_string(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hidden_wherever_the_url_holds_them() {
        assert_eq!(
            hide_password("postgres://ana:s3cret@db.example:5433/chats"),
            "postgres://ana:***@db.example:5433/chats"
        );
        assert_eq!(
            hide_password("postgresql://ana@127.0.0.1/chats?password=s3cret&sslmode=disable"),
            "postgresql://ana@127.0.0.1/chats?password=***&sslmode=disable"
        );
        assert_eq!(
            hide_password("postgres://127.0.0.1:5432"),
            "postgres://127.0.0.1:5432"
        );
    }

    #[test]
    fn a_store_is_sqlite_by_default_and_postgres_by_scheme() {
        assert_eq!(
            StoreUrl::parse("sqlite:chats.db").ok(),
            Some(StoreUrl::Sqlite(PathBuf::from("chats.db")))
        );
        assert_eq!(
            StoreUrl::parse("notes-chats/").ok(),
            Some(StoreUrl::Sqlite(PathBuf::from(
                "notes-chats/conversations.sqlite"
            )))
        );
        assert_eq!(
            StoreUrl::parse("postgres://a:b@h/d")
                .map(|u| u.shown())
                .ok(),
            Some("postgres://a:***@h/d".to_string())
        );
        let bad = StoreUrl::parse("mysql://root:pw@h/d")
            .err()
            .map(|e| e.message);
        assert_eq!(
            bad.as_deref(),
            Some(
                "unknown store `mysql://root:***@h/d`: a store is `sqlite:PATH` or `postgres://…` (not `mysql`)"
            )
        );
    }
}
