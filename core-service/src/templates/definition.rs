//! What a template is, checked once when a version is made, and how it renders: named
//! variables with a `max_length`, one variant per locale (a canonical BCP 47 tag), placeholders
//! `{{name}}` replaced in one pass, values placed in URLs percent-encoded.

use std::collections::BTreeMap;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use proto::ErrorCode;
use serde_json::{Map, Value};

use super::send::canonical_locale;
use crate::error::{AppError, AppResult};
use crate::messaging::content::{self, Category, MAX_BODY_CHARS};

/// The longest `max_length` a variable may declare.
pub const MAX_VARIABLE_LENGTH: i64 = 1000;
/// The longest template or variable name.
pub const MAX_NAME: usize = 64;
/// The most variants a template may have.
pub const MAX_VARIANTS: usize = 100;
/// The most variables a template may declare.
pub const MAX_VARIABLES: usize = 100;
/// A URL's longest rendering (as a send's `image_url` and button URLs).
const MAX_URL: usize = 2048;

/// Everything but RFC 3986's unreserved characters is percent-encoded in a URL.
const URL_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn invalid(detail: impl Into<String>) -> AppError {
    AppError::new(ErrorCode::InvalidRequest, detail)
}

/// A name of lowercase letters, digits and `_`, 1 to 64 characters (templates and their
/// variables alike).
pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// RFC 4647 lookup: the first of `range`, then `range` cut at its last subtag (a single-letter
/// subtag left at the end goes with it), and so on, that `available` holds (compared without
/// regard to case).
pub fn lookup<'a>(
    available: impl Iterator<Item = &'a str> + Clone,
    range: &str,
) -> Option<&'a str> {
    let mut candidate = range;
    while !candidate.is_empty() {
        if let Some(found) = available
            .clone()
            .find(|tag| tag.eq_ignore_ascii_case(candidate))
        {
            return Some(found);
        }
        candidate = match candidate.rfind('-') {
            Some(at) => &candidate[..at],
            None => "",
        };
        if let Some(at) = candidate.rfind('-')
            && candidate.len() - at == 2
        {
            candidate = &candidate[..at];
        }
    }
    None
}

/// A piece of a text: as written, or a variable's place.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Variable(&'a str),
}

/// The pieces of `text`; an error (what is wrong) when `{{` or `}}` appear otherwise than
/// around a variable's name.
fn pieces(text: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let before = &rest[..open];
        if before.contains("}}") {
            return Err("`}}` without `{{`".into());
        }
        if !before.is_empty() {
            out.push(Piece::Text(before));
        }
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            return Err("`{{` without `}}`".into());
        };
        let name = &after[..close];
        if !valid_name(name) {
            return Err(format!(
                "`{{{{{name}}}}}` is not a placeholder: placeholders are `{{{{name}}}}`, a name of \
                 lowercase letters, digits and `_`"
            ));
        }
        out.push(Piece::Variable(name));
        rest = &after[close + 2..];
    }
    if rest.contains("}}") {
        return Err("`}}` without `{{`".into());
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    Ok(out)
}

/// A variant's content.
#[derive(Debug, Clone, PartialEq)]
pub enum Variant {
    Body(String),
    /// Marketing's structured content; variables in `text`, `title` and button URLs.
    Content(Map<String, Value>),
}

/// A version's variables and variants, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// Each variable's `max_length`.
    pub variables: BTreeMap<String, i64>,
    /// By canonical locale.
    pub variants: BTreeMap<String, Variant>,
    pub default_locale: String,
}

/// A variant as received: `body`, or `message_content` as JSON text.
#[derive(Debug, Clone, Default)]
pub struct VariantInput {
    pub body: Option<String>,
    pub message_content_json: Option<String>,
}

/// Where a text sits in a variant, and what may be placed there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Text (`body`, `text`, `title`): values as given.
    Text { max_chars: usize },
    /// A button's URL: values percent-encoded, the rendering an https URL.
    Url,
    /// No variables (`image_url`, button labels).
    Fixed,
}

/// The texts of a variant with where each sits: (field path, slot, text).
fn slots(variant: &Variant) -> Vec<(String, Slot, &str)> {
    match variant {
        Variant::Body(body) => vec![(
            "body".into(),
            Slot::Text {
                max_chars: MAX_BODY_CHARS,
            },
            body.as_str(),
        )],
        Variant::Content(map) => {
            let mut out = Vec::new();
            let text = |key: &str| map.get(key).and_then(Value::as_str);
            if let Some(t) = text("text") {
                out.push((
                    "message_content.text".into(),
                    Slot::Text {
                        max_chars: MAX_BODY_CHARS,
                    },
                    t,
                ));
            }
            if let Some(t) = text("title") {
                out.push((
                    "message_content.title".into(),
                    Slot::Text { max_chars: 200 },
                    t,
                ));
            }
            if let Some(t) = text("image_url") {
                out.push(("message_content.image_url".into(), Slot::Fixed, t));
            }
            if let Some(buttons) = map.get("buttons").and_then(Value::as_array) {
                for (i, button) in buttons.iter().enumerate() {
                    if let Some(label) = button.get("label").and_then(Value::as_str) {
                        out.push((
                            format!("message_content.buttons[{i}].label"),
                            Slot::Fixed,
                            label,
                        ));
                    }
                    if let Some(url) = button.get("url").and_then(Value::as_str) {
                        out.push((format!("message_content.buttons[{i}].url"), Slot::Url, url));
                    }
                }
            }
            out
        }
    }
}

/// Replaces each placeholder of `text` with its value (percent-encoded in a URL). `text` was
/// checked when its version was made.
fn fill(text: &str, slot: Slot, values: &dyn Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    for piece in pieces(text).unwrap_or_default() {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Variable(name) if slot == Slot::Url => {
                out.extend(utf8_percent_encode(&values(name), URL_VALUE));
            }
            Piece::Variable(name) => out.push_str(&values(name)),
        }
    }
    out
}

fn https_url(url: &str) -> bool {
    url.len() <= MAX_URL
        && url::Url::parse(url)
            .is_ok_and(|u| u.scheme() == "https" && u.host_str().is_some_and(|h| !h.is_empty()))
}

impl Definition {
    /// Checks a version's variables, variants and default locale for `category` (utility or
    /// marketing). Errors: `invalid_request`, naming the variant and the variable.
    pub fn parse(
        category: Category,
        variables: &BTreeMap<String, Option<i64>>,
        variants: &BTreeMap<String, VariantInput>,
        default_locale: &str,
    ) -> AppResult<Definition> {
        if variables.len() > MAX_VARIABLES {
            return Err(invalid(format!(
                "variables: at most {MAX_VARIABLES} per template"
            )));
        }
        let mut declared = BTreeMap::new();
        for (name, max_length) in variables {
            if !valid_name(name) {
                return Err(invalid(format!(
                    "variables.{name}: a variable's name is 1 to 64 lowercase letters, digits or `_`"
                )));
            }
            match max_length {
                None => {
                    return Err(invalid(format!(
                        "variables.{name}.max_length: required (1 to {MAX_VARIABLE_LENGTH})"
                    )));
                }
                Some(n) if !(1..=MAX_VARIABLE_LENGTH).contains(n) => {
                    return Err(invalid(format!(
                        "variables.{name}.max_length: 1 to {MAX_VARIABLE_LENGTH}"
                    )));
                }
                Some(n) => declared.insert(name.clone(), *n),
            };
        }
        if variants.is_empty() {
            return Err(invalid("variants: at least one"));
        }
        if variants.len() > MAX_VARIANTS {
            return Err(invalid(format!("variants: at most {MAX_VARIANTS}")));
        }
        let mut checked = BTreeMap::new();
        let mut kind: Option<(&str, bool)> = None;
        for (tag, input) in variants {
            let Some(locale) = canonical_locale(tag) else {
                return Err(invalid(format!(
                    "variants.{tag}: not a BCP 47 language tag (e.g. en, pt-BR)"
                )));
            };
            if checked.contains_key(&locale) {
                return Err(invalid(format!(
                    "variants.{tag}: the same locale as variants.{locale}"
                )));
            }
            let variant = variant_of(category, tag, input)?;
            let is_content = matches!(variant, Variant::Content(_));
            match kind {
                Some((first, content)) if content != is_content => {
                    return Err(invalid(format!(
                        "variants.{tag}: every variant of a template is a body or every one \
                         message_content ({first} is not like {tag})"
                    )));
                }
                _ => kind = Some((tag, is_content)),
            }
            check_variant(tag, &variant, &declared)?;
            checked.insert(locale, variant);
        }
        let Some(default) = canonical_locale(default_locale) else {
            return Err(invalid(
                "default_locale: not a BCP 47 language tag (e.g. en, pt-BR)",
            ));
        };
        if !checked.contains_key(&default) {
            return Err(invalid(format!("default_locale: {default} has no variant")));
        }
        Ok(Definition {
            variables: declared,
            variants: checked,
            default_locale: default,
        })
    }

    /// The variables as stored and answered: `{"<name>": {"max_length"}}`.
    pub fn variables_json(&self) -> Value {
        Value::Object(
            self.variables
                .iter()
                .map(|(name, n)| (name.clone(), serde_json::json!({ "max_length": n })))
                .collect(),
        )
    }

    /// The variants as stored and answered: `{"<locale>": {"body"} | {"message_content"}}`.
    pub fn variants_json(&self) -> Value {
        Value::Object(
            self.variants
                .iter()
                .map(|(locale, variant)| {
                    let value = match variant {
                        Variant::Body(body) => serde_json::json!({ "body": body }),
                        Variant::Content(map) => {
                            serde_json::json!({ "message_content": Value::Object(map.clone()) })
                        }
                    };
                    (locale.clone(), value)
                })
                .collect(),
        )
    }

    /// A stored version (written by [`Definition::variables_json`] and
    /// [`Definition::variants_json`]).
    pub fn from_stored(variables: &str, variants: &str, default_locale: &str) -> AppResult<Self> {
        let corrupt = || AppError::internal("a stored template version does not parse");
        let variables: Map<String, Value> =
            serde_json::from_str(variables).map_err(|_| corrupt())?;
        let variants: Map<String, Value> = serde_json::from_str(variants).map_err(|_| corrupt())?;
        Ok(Definition {
            variables: variables
                .into_iter()
                .map(|(name, v)| (name, v["max_length"].as_i64().unwrap_or(0)))
                .collect(),
            variants: variants
                .into_iter()
                .map(|(locale, v)| {
                    let variant = match (v.get("body"), v.get("message_content")) {
                        (Some(Value::String(body)), _) => Variant::Body(body.clone()),
                        (_, Some(Value::Object(map))) => Variant::Content(map.clone()),
                        _ => return Err(corrupt()),
                    };
                    Ok((locale, variant))
                })
                .collect::<AppResult<_>>()?,
            default_locale: default_locale.to_string(),
        })
    }

    /// The locale a message is rendered in: the explicit `locale` by lookup (none found: 400
    /// `invalid_request` naming `template.locale`); else the recipient's own language by
    /// lookup, when given; else the default.
    pub fn choose_locale(&self, explicit: Option<&str>, language: Option<&str>) -> AppResult<&str> {
        let available = self.variants.keys().map(String::as_str);
        if let Some(wanted) = explicit {
            return lookup(available, wanted).ok_or_else(|| {
                invalid(format!(
                    "template.locale: the template has no variant for {wanted} (it has {})",
                    self.variants.keys().cloned().collect::<Vec<_>>().join(", ")
                ))
            });
        }
        Ok(language
            .and_then(|l| lookup(available, l))
            .unwrap_or(self.default_locale.as_str()))
    }

    /// Renders the variant of `locale` with `values` (the send's `template.variables`): every
    /// declared variable exactly once, each a string of 1 to `max_length` characters, not only
    /// spaces. Returns the body or the structured content, as a send would carry them.
    ///
    /// Errors: `template_variable_missing`, `template_variable_unknown`,
    /// `template_variable_invalid` (not a string, empty, over `max_length`, or a URL it is
    /// placed in no longer valid), each naming the variable.
    pub fn render(&self, locale: &str, values: &Map<String, Value>) -> AppResult<Rendered> {
        if let Some(name) = self.variables.keys().find(|n| !values.contains_key(*n)) {
            return Err(AppError::new(
                ErrorCode::TemplateVariableMissing,
                format!("template.variables.{name}: required by the template"),
            ));
        }
        if let Some(name) = values.keys().find(|n| !self.variables.contains_key(*n)) {
            return Err(AppError::new(
                ErrorCode::TemplateVariableUnknown,
                format!("template.variables.{name}: not a variable of the template"),
            ));
        }
        let mut strings = BTreeMap::new();
        for (name, max) in &self.variables {
            let bad = |why: String| {
                AppError::new(
                    ErrorCode::TemplateVariableInvalid,
                    format!("template.variables.{name}: {why}"),
                )
            };
            let Some(Value::String(value)) = values.get(name) else {
                return Err(bad("a string".into()));
            };
            if value.trim().is_empty() {
                return Err(bad("empty: give the text to place".into()));
            }
            if value.chars().count() as i64 > *max {
                return Err(bad(format!("at most {max} characters")));
            }
            strings.insert(name.as_str(), value.as_str());
        }
        let variant = self
            .variants
            .get(locale)
            .ok_or_else(|| AppError::internal("a chosen locale has no variant"))?;
        let value_of = |name: &str| strings.get(name).copied().unwrap_or_default().to_string();
        let rendered = render_variant(variant, &value_of);
        for (field, slot, text) in slots(variant) {
            if slot != Slot::Url {
                continue;
            }
            let url = fill(text, slot, &value_of);
            if !https_url(&url) {
                let names: Vec<String> = pieces(text)
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|p| match p {
                        Piece::Variable(n) => Some(n.to_string()),
                        Piece::Text(_) => None,
                    })
                    .collect();
                return Err(AppError::new(
                    ErrorCode::TemplateVariableInvalid,
                    format!(
                        "template.variables.{}: the URL it is placed in ({field}) is no longer an \
                         https URL of at most {MAX_URL} characters",
                        names.join(", template.variables.")
                    ),
                ));
            }
        }
        Ok(rendered)
    }
}

/// A rendered variant: what a send carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Rendered {
    Body(String),
    Content(Value),
}

fn render_variant(variant: &Variant, values: &dyn Fn(&str) -> String) -> Rendered {
    let text = Slot::Text { max_chars: 0 };
    match variant {
        Variant::Body(body) => Rendered::Body(fill(body, text, values)),
        Variant::Content(map) => {
            let mut out = map.clone();
            for key in ["text", "title"] {
                if let Some(Value::String(t)) = map.get(key) {
                    out.insert(key.into(), Value::String(fill(t, text, values)));
                }
            }
            if let Some(Value::Array(buttons)) = out.get_mut("buttons") {
                for button in buttons {
                    if let Some(Value::String(url)) = button.get("url").cloned() {
                        button["url"] = Value::String(fill(&url, Slot::Url, values));
                    }
                }
            }
            Rendered::Content(Value::Object(out))
        }
    }
}

/// A variant of `category` from its input, its shape checked as a send's content would be.
fn variant_of(category: Category, tag: &str, input: &VariantInput) -> AppResult<Variant> {
    let body = input.body.as_deref();
    let content = input.message_content_json.as_deref();
    match (category, body, content) {
        (_, Some(_), Some(_)) => Err(invalid(format!(
            "variants.{tag}: body or message_content, not both"
        ))),
        (Category::Utility, _, Some(_)) => Err(invalid(format!(
            "variants.{tag}: a utility variant is {{\"body\"}}"
        ))),
        (_, None, None) => Err(invalid(format!(
            "variants.{tag}: {} needed",
            if category == Category::Marketing {
                "body or message_content"
            } else {
                "body"
            }
        ))),
        (_, Some(body), None) => Ok(Variant::Body(body.to_string())),
        (_, None, Some(json)) => match serde_json::from_str::<Value>(json) {
            Ok(Value::Object(map)) => Ok(Variant::Content(map)),
            _ => Err(invalid(format!(
                "variants.{tag}.message_content: an object"
            ))),
        },
    }
}

/// One variant's checks: placeholders well-formed and only where variables may go, exactly
/// the declared variables used, and the rendering at every variable's `max_length` a valid
/// send (within its lengths, URLs https).
fn check_variant(tag: &str, variant: &Variant, declared: &BTreeMap<String, i64>) -> AppResult<()> {
    let mut used = std::collections::BTreeSet::new();
    for (field, slot, text) in slots(variant) {
        let parsed =
            pieces(text).map_err(|why| invalid(format!("variants.{tag}.{field}: {why}")))?;
        for piece in parsed {
            let Piece::Variable(name) = piece else {
                continue;
            };
            if slot == Slot::Fixed {
                return Err(invalid(format!(
                    "variants.{tag}.{field}: {{{{{name}}}}}: variables go only in body, text, \
                     title and button URLs"
                )));
            }
            if !declared.contains_key(name) {
                return Err(invalid(format!(
                    "variants.{tag}.{field}: {{{{{name}}}}} is not among the template's variables"
                )));
            }
            used.insert(name.to_string());
        }
    }
    if let Some(name) = declared.keys().find(|n| !used.contains(*n)) {
        return Err(invalid(format!(
            "variants.{tag}: does not use the variable {name} (every variant uses every variable)"
        )));
    }
    // The longest rendering: every value at its max_length, of a letter that URLs keep as it is.
    let longest = |name: &str| "a".repeat(declared.get(name).copied().unwrap_or(0) as usize);
    for (field, slot, text) in slots(variant) {
        let rendered = fill(text, slot, &longest);
        match slot {
            Slot::Text { max_chars } if rendered.chars().count() > max_chars => {
                return Err(invalid(format!(
                    "variants.{tag}.{field}: with every variable at its max_length it is {} \
                     characters, over {max_chars}",
                    rendered.chars().count()
                )));
            }
            Slot::Url if !https_url(&rendered) => {
                return Err(invalid(format!(
                    "variants.{tag}.{field}: rendered, it is not an https URL of at most {MAX_URL} \
                     characters"
                )));
            }
            _ => {}
        }
    }
    // The rest of the shape as a send checks it (required text, buttons, unknown fields).
    let (body, content) = match render_variant(variant, &longest) {
        Rendered::Body(body) => (Some(body), None),
        Rendered::Content(value) => (None, Some(value.to_string())),
    };
    let category = if matches!(variant, Variant::Content(_)) {
        Category::Marketing
    } else {
        Category::Utility
    };
    content::check_content(category, body.as_deref(), content.as_deref())
        .map_err(|err| invalid(format!("variants.{tag}: {}", err.detail)))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(list: &[(&str, i64)]) -> BTreeMap<String, Option<i64>> {
        list.iter()
            .map(|(n, m)| (n.to_string(), Some(*m)))
            .collect()
    }

    fn bodies(list: &[(&str, &str)]) -> BTreeMap<String, VariantInput> {
        list.iter()
            .map(|(l, b)| {
                (
                    l.to_string(),
                    VariantInput {
                        body: Some(b.to_string()),
                        message_content_json: None,
                    },
                )
            })
            .collect()
    }

    fn detail(r: AppResult<Definition>) -> String {
        r.unwrap_err().detail
    }

    #[test]
    fn placeholders_are_exactly_double_braces_around_a_name() {
        assert_eq!(
            pieces("Hi {{name}}, order {{order_id}}.").unwrap(),
            vec![
                Piece::Text("Hi "),
                Piece::Variable("name"),
                Piece::Text(", order "),
                Piece::Variable("order_id"),
                Piece::Text("."),
            ]
        );
        for bad in [
            "{{ name }}",
            "{{Name}}",
            "{{}}",
            "a {{b",
            "a }} b",
            "{{a}}}}",
            "{{{a}}",
        ] {
            assert!(pieces(bad).is_err(), "{bad}");
        }
        assert!(pieces("{single} braces are text").is_ok());
    }

    #[test]
    fn lookup_cuts_the_range_from_the_end() {
        let tags = ["en", "pt", "zh-Hant"];
        let found = |range| lookup(tags.iter().copied(), range);
        assert_eq!(found("pt-BR"), Some("pt"));
        assert_eq!(found("PT-br"), Some("pt"));
        assert_eq!(found("zh-Hant-TW"), Some("zh-Hant"));
        assert_eq!(found("en-a-bbb-x-y"), Some("en"));
        assert_eq!(found("fr-FR"), None);
        assert_eq!(found("zh-Hans"), None);
    }

    #[test]
    fn locales_are_stored_canonical() {
        assert_eq!(canonical_locale("pt-br").as_deref(), Some("pt-BR"));
        assert_eq!(
            canonical_locale("ZH-hant-tw").as_deref(),
            Some("zh-Hant-TW")
        );
        assert_eq!(canonical_locale("en").as_deref(), Some("en"));
        for bad in ["", "e", "abcdefghi", "en_US", "pt--BR", "en-"] {
            assert_eq!(canonical_locale(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_variant_uses_exactly_the_declared_variables() {
        let v = vars(&[("name", 20)]);
        let ok = Definition::parse(
            Category::Utility,
            &v,
            &bodies(&[("en", "Hi {{name}}"), ("pt-br", "Olá {{name}}")]),
            "EN",
        )
        .unwrap();
        assert_eq!(ok.default_locale, "en");
        assert!(ok.variants.contains_key("pt-BR"));
        // Without an explicit locale: the reader's language by lookup, else the default (a
        // recipient who does not follow is given no language, so the default).
        assert_eq!(ok.choose_locale(None, Some("pt-BR")).unwrap(), "pt-BR");
        assert_eq!(ok.choose_locale(None, Some("de")).unwrap(), "en");
        assert_eq!(ok.choose_locale(None, None).unwrap(), "en");
        let unused = detail(Definition::parse(
            Category::Utility,
            &v,
            &bodies(&[("en", "Hi {{name}}"), ("pt-BR", "Olá")]),
            "en",
        ));
        assert!(
            unused.contains("variants.pt-BR") && unused.contains("name"),
            "{unused}"
        );
        let undeclared = detail(Definition::parse(
            Category::Utility,
            &v,
            &bodies(&[("en", "Hi {{name}} {{order}}")]),
            "en",
        ));
        assert!(undeclared.contains("variants.en.body") && undeclared.contains("{{order}}"));
    }

    #[test]
    fn the_longest_rendering_must_fit() {
        let long = "x".repeat(4090);
        let d = detail(Definition::parse(
            Category::Utility,
            &vars(&[("name", 10)]),
            &bodies(&[("en", &format!("{long}{{{{name}}}}"))]),
            "en",
        ));
        assert!(d.contains("variants.en.body") && d.contains("4100"), "{d}");
    }

    #[test]
    fn a_default_locale_needs_its_variant_and_max_length_is_required() {
        let d = detail(Definition::parse(
            Category::Utility,
            &vars(&[]),
            &bodies(&[("en", "Hi")]),
            "pt",
        ));
        assert!(d.starts_with("default_locale"), "{d}");
        let mut v = vars(&[]);
        v.insert("name".into(), None);
        let d = detail(Definition::parse(
            Category::Utility,
            &v,
            &bodies(&[("en", "Hi {{name}}")]),
            "en",
        ));
        assert!(d.contains("variables.name.max_length"), "{d}");
    }

    fn marketing(content: &str) -> BTreeMap<String, VariantInput> {
        [(
            "en".to_string(),
            VariantInput {
                body: None,
                message_content_json: Some(content.into()),
            },
        )]
        .into()
    }

    #[test]
    fn values_in_urls_are_percent_encoded_and_checked() {
        let def = Definition::parse(
            Category::Marketing,
            &vars(&[("code", 40), ("name", 40)]),
            &marketing(
                r#"{"text":"Hi {{name}}","buttons":[{"label":"Shop","url":"https://shop.example/o?c={{code}}"}]}"#,
            ),
            "en",
        )
        .unwrap();
        let values: Map<String, Value> =
            serde_json::from_str(r#"{"code":"a b&c=d/é","name":"{{code}}"}"#).unwrap();
        let Rendered::Content(content) = def.render("en", &values).unwrap() else {
            panic!("content");
        };
        assert_eq!(
            content["buttons"][0]["url"],
            "https://shop.example/o?c=a%20b%26c%3Dd%2F%C3%A9"
        );
        // One pass: a value that looks like a placeholder stays as given.
        assert_eq!(content["text"], "Hi {{code}}");
        let in_label = detail(Definition::parse(
            Category::Marketing,
            &vars(&[("x", 5)]),
            &marketing(r#"{"text":"t","buttons":[{"label":"{{x}}","url":"https://a.example"}]}"#),
            "en",
        ));
        assert!(in_label.contains("buttons[0].label"), "{in_label}");
    }

    #[test]
    fn rendering_names_the_variable_at_fault() {
        let def = Definition::parse(
            Category::Utility,
            &vars(&[("name", 5)]),
            &bodies(&[("en", "Hi {{name}}")]),
            "en",
        )
        .unwrap();
        let render = |json: &str| {
            def.render("en", &serde_json::from_str(json).unwrap())
                .map_err(|e| (e.code, e.detail))
        };
        assert_eq!(
            render(r#"{"name":"Sam"}"#).unwrap(),
            Rendered::Body("Hi Sam".into())
        );
        assert_eq!(
            render("{}").unwrap_err().0,
            ErrorCode::TemplateVariableMissing
        );
        assert_eq!(
            render(r#"{"name":"Sam","x":"1"}"#).unwrap_err().0,
            ErrorCode::TemplateVariableUnknown
        );
        for bad in [r#"{"name":"Samuel"}"#, r#"{"name":" "}"#, r#"{"name":5}"#] {
            let (code, detail) = render(bad).unwrap_err();
            assert_eq!(code, ErrorCode::TemplateVariableInvalid, "{bad}");
            assert!(detail.contains("template.variables.name"), "{detail}");
        }
    }
}
