//! A send's `template` (`{"name", "version"?, "variables", "locale"?}`), its form checked with
//! the request's shape; resolved after the idempotency replay (`service::find_for_send`).

use proto::ErrorCode;
use serde_json::{Map, Value};

use crate::error::{AppError, AppResult};

/// A BCP 47 tag in its canonical case (`pt-br` -> `pt-BR`); None when it is not well-formed.
pub fn canonical_locale(tag: &str) -> Option<String> {
    if tag.is_empty() || tag.len() > 64 {
        return None;
    }
    oxilangtag::LanguageTag::parse_and_normalize(tag)
        .ok()
        .map(|t| t.as_str().to_string())
}

/// An explicit locale, canonical. Errors: `invalid_request` naming `field`.
pub(crate) fn explicit_locale(locale: Option<&str>, field: &str) -> AppResult<Option<String>> {
    locale
        .map(|l| {
            canonical_locale(l).ok_or_else(|| {
                AppError::new(
                    ErrorCode::InvalidRequest,
                    format!("{field}: not a BCP 47 language tag (e.g. en, pt-BR)"),
                )
            })
        })
        .transpose()
}

/// A send's `template`: `{"name", "version"?, "variables", "locale"?}`, its form checked with
/// the request's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateSend {
    pub name: String,
    pub version: Option<i64>,
    pub variables: Map<String, Value>,
    /// Canonical.
    pub locale: Option<String>,
}

impl TemplateSend {
    /// Errors: `invalid_request` naming the field of `template`.
    pub fn parse(json: &str) -> AppResult<TemplateSend> {
        let bad = |why: &str| AppError::new(ErrorCode::InvalidRequest, format!("template{why}"));
        let Ok(Value::Object(map)) = serde_json::from_str::<Value>(json) else {
            return Err(bad(
                ": an object {\"name\", \"version\"?, \"variables\", \"locale\"?}",
            ));
        };
        if let Some(key) = map
            .keys()
            .find(|k| !["name", "version", "variables", "locale"].contains(&k.as_str()))
        {
            return Err(bad(&format!(".{key}: unknown field")));
        }
        let name = match map.get("name") {
            Some(Value::String(name)) if !name.is_empty() => name.clone(),
            _ => return Err(bad(".name: the template's name")),
        };
        let version = match map.get("version") {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_i64() {
                Some(n) if n >= 1 => Some(n),
                _ => return Err(bad(".version: a version number from 1")),
            },
        };
        let variables = match map.get("variables") {
            Some(Value::Object(vars)) => vars.clone(),
            _ => {
                return Err(bad(
                    ".variables: an object of the template's variables ({} when it has none)",
                ));
            }
        };
        let locale = match map.get("locale") {
            None | Some(Value::Null) => None,
            Some(Value::String(l)) => {
                Some(explicit_locale(Some(l), "template.locale")?.unwrap_or_default())
            }
            Some(_) => return Err(bad(".locale: a BCP 47 language tag")),
        };
        Ok(TemplateSend {
            name,
            version,
            variables,
            locale,
        })
    }

    /// As it counts in an Idempotency-Key's content.
    pub fn canonical(&self) -> Value {
        serde_json::json!({
            "name": self.name,
            "version": self.version,
            "variables": Value::Object(self.variables.clone()),
            "locale": self.locale,
        })
    }
}
