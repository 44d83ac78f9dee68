//! The shape of a send request, parsed once: category, recipient number, body or structured
//! content, and the Idempotency-Key.

use proto::ErrorCode;
use serde_json::{Map, Value};

use crate::domain::PhoneNumber;
use crate::error::{AppError, AppResult};
use crate::templates::send::TemplateSend;

/// Longest `body` (and marketing `text`), in characters.
pub const MAX_BODY_CHARS: usize = 4096;

pub use proto::vocabulary::Category;

/// A category a category send may name (not `service`).
///
/// Errors: `invalid_message_category`.
pub fn parse_sendable(input: Option<&str>) -> AppResult<Category> {
    input
        .and_then(proto::vocabulary::SendCategory::from_wire)
        .map(Category::from)
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::InvalidMessageCategory,
                "category must be authentication, utility or marketing",
            )
        })
}

/// A send request that has passed every shape check.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub to: PhoneNumber,
    pub category: Category,
    pub body: Option<String>,
    /// Canonical JSON (keys sorted).
    pub content: Option<Value>,
    /// The template that supplies the content instead, rendered after the idempotency replay
    /// (then `body` and `content` hold its rendering).
    pub template: Option<TemplateSend>,
    pub idempotency_key: Option<String>,
}

fn content_error(why: &str) -> AppError {
    AppError::new(ErrorCode::InvalidMessageContent, why.to_string())
}

fn parse_to(to: Option<&str>) -> AppResult<PhoneNumber> {
    PhoneNumber::parse(to.unwrap_or_default())
}

/// An Idempotency-Key: 1 to 255 visible ASCII characters.
pub fn parse_idempotency_key(key: Option<&str>) -> AppResult<Option<String>> {
    match key {
        None => Ok(None),
        Some(k)
            if !k.is_empty() && k.len() <= 255 && k.bytes().all(|b| (0x21..=0x7e).contains(&b)) =>
        {
            Ok(Some(k.to_string()))
        }
        Some(_) => Err(AppError::new(
            ErrorCode::InvalidIdempotencyKey,
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
        )),
    }
}

fn non_empty(body: Option<&str>) -> Option<&str> {
    body.filter(|b| !b.is_empty())
}

fn check_body_length(body: &str) -> AppResult<()> {
    if body.chars().count() > MAX_BODY_CHARS {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            "body: at most 4096 characters",
        ));
    }
    Ok(())
}

fn parse_content(json: Option<&str>) -> AppResult<Option<Map<String, Value>>> {
    match json {
        None => Ok(None),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Null) => Ok(None),
            Ok(Value::Object(map)) => Ok(Some(map)),
            _ => Err(content_error("message_content must be an object")),
        },
    }
}

fn only_keys(map: &Map<String, Value>, allowed: &[&str]) -> AppResult<()> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(AppError::new(
            ErrorCode::InvalidRequest,
            format!("message_content.{k}: unknown field"),
        )),
        None => Ok(()),
    }
}

fn https_url(value: &Value) -> bool {
    value
        .as_str()
        .and_then(|s| url::Url::parse(s).ok())
        .is_some_and(|u| {
            u.scheme() == "https" && u.host_str().is_some() && u.as_str().len() <= 2048
        })
}

fn short_text(value: &Value, max: usize) -> bool {
    value
        .as_str()
        .is_some_and(|s| !s.trim().is_empty() && s.chars().count() <= max)
}

/// `{"code": "4 to 8 digits"}`.
fn check_authentication(map: &Map<String, Value>) -> AppResult<()> {
    only_keys(map, &["code"])?;
    let ok = map
        .get("code")
        .and_then(Value::as_str)
        .is_some_and(|c| (4..=8).contains(&c.len()) && c.bytes().all(|b| b.is_ascii_digit()));
    if !ok {
        return Err(content_error(
            "authentication content is {\"code\": \"4 to 8 digits\"}",
        ));
    }
    Ok(())
}

/// `{"text", "title"?, "image_url"? (https), "buttons"? (up to 3 of {"label","url"})}`.
fn check_marketing(map: &Map<String, Value>) -> AppResult<()> {
    only_keys(map, &["text", "title", "image_url", "buttons"])?;
    if !map
        .get("text")
        .is_some_and(|t| short_text(t, MAX_BODY_CHARS))
    {
        return Err(content_error(
            "marketing content needs text (1 to 4096 characters)",
        ));
    }
    if map.get("title").is_some_and(|t| !short_text(t, 200)) {
        return Err(content_error("title: 1 to 200 characters"));
    }
    if map.get("image_url").is_some_and(|u| !https_url(u)) {
        return Err(content_error("image_url: an https URL"));
    }
    if let Some(buttons) = map.get("buttons") {
        let Some(list) = buttons.as_array().filter(|l| l.len() <= 3) else {
            return Err(content_error("buttons: up to 3"));
        };
        for button in list {
            let ok = button.as_object().is_some_and(|b| {
                b.len() == 2
                    && b.get("label").is_some_and(|l| short_text(l, 40))
                    && b.get("url").is_some_and(https_url)
            });
            if !ok {
                return Err(content_error(
                    "buttons: each {\"label\" (1 to 40), \"url\" (https)}",
                ));
            }
        }
    }
    Ok(())
}

/// A send's content as received: `body`, `message_content` (JSON text) or `template` (JSON
/// text).
#[derive(Debug, Clone, Copy, Default)]
pub struct RawContent<'a> {
    pub body: Option<&'a str>,
    pub content_json: Option<&'a str>,
    pub template_json: Option<&'a str>,
}

/// Parses a category send (console or app) in DESIGN's order: category, `to`, body/content
/// (or the form of `template`), Idempotency-Key.
pub fn parse_category_send(
    to: Option<&str>,
    category: Option<&str>,
    raw: RawContent<'_>,
    idempotency_key: Option<&str>,
) -> AppResult<Outgoing> {
    let category = parse_sendable(category)?;
    let to = parse_to(to)?;
    let (body, content, template) = check_content_or_template(category, raw)?;
    Ok(Outgoing {
        to,
        category,
        body,
        content,
        template,
        idempotency_key: parse_idempotency_key(idempotency_key)?,
    })
}

/// The content of a category message, or the template that will supply it: a template
/// together with `body` or `message_content` is `invalid_message_content`.
pub fn check_content_or_template(
    category: Category,
    raw: RawContent<'_>,
) -> AppResult<(Option<String>, Option<Value>, Option<TemplateSend>)> {
    let Some(template) = raw.template_json else {
        let (body, content) = check_content(category, raw.body, raw.content_json)?;
        return Ok((body, content, None));
    };
    if non_empty(raw.body).is_some() || parse_content(raw.content_json)?.is_some() {
        return Err(content_error(
            "template supplies the content: send it without body and message_content",
        ));
    }
    Ok((None, None, Some(TemplateSend::parse(template)?)))
}

/// The body or structured content of a category message, checked as that category needs:
/// returns them as stored (the content as canonical JSON).
pub fn check_content(
    category: Category,
    body: Option<&str>,
    content_json: Option<&str>,
) -> AppResult<(Option<String>, Option<Value>)> {
    let body = non_empty(body);
    let content = parse_content(content_json)?;
    match category {
        Category::Utility => {
            let Some(body) = body else {
                return Err(AppError::new(
                    ErrorCode::MessageBodyRequired,
                    "utility messages need a body",
                ));
            };
            if content.is_some() {
                return Err(content_error("body and message_content are exclusive"));
            }
            check_body_length(body)?;
        }
        Category::Authentication => {
            let Some(map) = &content else {
                return Err(content_error(
                    "authentication messages need message_content",
                ));
            };
            if body.is_some() {
                return Err(content_error("body and message_content are exclusive"));
            }
            check_authentication(map)?;
        }
        Category::Marketing => match (body, &content) {
            (Some(_), Some(_)) => {
                return Err(content_error("body and message_content are exclusive"));
            }
            (None, None) => {
                return Err(content_error(
                    "marketing messages need body or message_content",
                ));
            }
            (Some(body), None) => check_body_length(body)?,
            (None, Some(map)) => check_marketing(map)?,
        },
        Category::Service => unreachable!("a category message is never service"),
    }
    Ok((body.map(str::to_string), content.map(Value::Object)))
}

pub fn parse_service_send(
    to: Option<&str>,
    body: Option<&str>,
    idempotency_key: Option<&str>,
) -> AppResult<Outgoing> {
    let to = parse_to(to)?;
    let Some(body) = non_empty(body) else {
        return Err(AppError::new(
            ErrorCode::MessageBodyRequired,
            "service messages need a body",
        ));
    };
    check_body_length(body)?;
    Ok(Outgoing {
        to,
        category: Category::Service,
        body: Some(body.to_string()),
        content: None,
        template: None,
        idempotency_key: parse_idempotency_key(idempotency_key)?,
    })
}

/// Structured content as the business is shown it (history, a message, threads): an
/// authentication message's `code` replaced by `"******"`; everything else as stored.
pub fn masked_for_business(category: Category, content: Option<String>) -> Option<String> {
    if category != Category::Authentication {
        return content;
    }
    content.map(|c| match serde_json::from_str::<Value>(&c) {
        Ok(mut value) => {
            if let Some(code) = value.get_mut("code") {
                *code = Value::String("******".into());
            }
            value.to_string()
        }
        Err(_) => c,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A send without a template.
    fn parse_category_send(
        to: Option<&str>,
        category: Option<&str>,
        body: Option<&str>,
        content_json: Option<&str>,
        idempotency_key: Option<&str>,
    ) -> AppResult<Outgoing> {
        super::parse_category_send(
            to,
            category,
            RawContent {
                body,
                content_json,
                template_json: None,
            },
            idempotency_key,
        )
    }

    #[test]
    fn a_template_goes_alone() {
        let raw = |body, content_json| RawContent {
            body,
            content_json,
            template_json: Some(r#"{"name":"shipped","variables":{"order":"A1"}}"#),
        };
        let ok = super::parse_category_send(TO, Some("utility"), raw(None, None), None).unwrap();
        assert_eq!(ok.template.unwrap().name, "shipped");
        for (body, content) in [(Some("hi"), None), (None, Some(r#"{"text":"x"}"#))] {
            assert_eq!(
                code(super::parse_category_send(
                    TO,
                    Some("marketing"),
                    raw(body, content),
                    None
                )),
                ErrorCode::InvalidMessageContent
            );
        }
        let bad = RawContent {
            template_json: Some(r#"{"name":"x","variables":{},"locale":"not a tag"}"#),
            ..RawContent::default()
        };
        let err = super::parse_category_send(TO, Some("utility"), bad, None).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert!(err.detail.starts_with("template.locale"), "{}", err.detail);
    }

    #[test]
    fn a_business_never_sees_an_authentication_code() {
        let code = Some(r#"{"code":"482913"}"#.to_string());
        assert_eq!(
            masked_for_business(Category::Authentication, code.clone()).as_deref(),
            Some(r#"{"code":"******"}"#)
        );
        assert_eq!(masked_for_business(Category::Marketing, code.clone()), code);
        assert_eq!(masked_for_business(Category::Authentication, None), None);
    }

    fn code(r: AppResult<Outgoing>) -> ErrorCode {
        r.unwrap_err().code
    }

    const TO: Option<&str> = Some("+14155550123");

    #[test]
    fn category_is_checked_first_then_the_number_then_the_content() {
        assert_eq!(
            code(parse_category_send(None, None, None, None, None)),
            ErrorCode::InvalidMessageCategory
        );
        assert_eq!(
            code(parse_category_send(None, Some("Utility"), None, None, None)),
            ErrorCode::InvalidMessageCategory
        );
        assert_eq!(
            code(parse_category_send(
                Some("123"),
                Some("utility"),
                None,
                None,
                None
            )),
            ErrorCode::InvalidPhoneNumber
        );
        assert_eq!(
            code(parse_category_send(TO, Some("utility"), None, None, None)),
            ErrorCode::MessageBodyRequired
        );
        assert_eq!(
            code(parse_category_send(
                TO,
                Some("utility"),
                Some("hi"),
                None,
                Some("")
            )),
            ErrorCode::InvalidIdempotencyKey
        );
    }

    #[test]
    fn utility_needs_a_body_whatever_else_is_sent_and_no_content() {
        let content = Some(r#"{"text":"x"}"#);
        assert_eq!(
            code(parse_category_send(
                TO,
                Some("utility"),
                None,
                content,
                None
            )),
            ErrorCode::MessageBodyRequired
        );
        assert_eq!(
            code(parse_category_send(
                TO,
                Some("utility"),
                Some("hi"),
                content,
                None
            )),
            ErrorCode::InvalidMessageContent
        );
        assert!(parse_category_send(TO, Some("utility"), Some("hi"), None, None).is_ok());
        let long = "x".repeat(4097);
        assert_eq!(
            code(parse_category_send(
                TO,
                Some("utility"),
                Some(&long),
                None,
                None
            )),
            ErrorCode::InvalidRequest
        );
        assert!(
            parse_category_send(TO, Some("utility"), Some(&"é".repeat(4096)), None, None).is_ok()
        );
    }

    #[test]
    fn authentication_needs_a_code_of_four_to_eight_digits() {
        let send = |c: &str| parse_category_send(TO, Some("authentication"), None, Some(c), None);
        assert!(send(r#"{"code":"1234"}"#).is_ok());
        assert!(send(r#"{"code":"12345678"}"#).is_ok());
        for bad in [
            r#"{"code":"123"}"#,
            r#"{"code":"123456789"}"#,
            r#"{"code":1234}"#,
            r#"{}"#,
            "[]",
            "3",
        ] {
            assert_eq!(code(send(bad)), ErrorCode::InvalidMessageContent, "{bad}");
        }
        assert_eq!(
            code(parse_category_send(
                TO,
                Some("authentication"),
                Some("hi"),
                None,
                None
            )),
            ErrorCode::InvalidMessageContent
        );
        assert_eq!(
            code(parse_category_send(
                TO,
                Some("authentication"),
                Some("hi"),
                Some(r#"{"code":"1234"}"#),
                None
            )),
            ErrorCode::InvalidMessageContent
        );
    }

    #[test]
    fn marketing_takes_a_body_or_a_content_object_but_not_both() {
        let send = |b: Option<&str>, c: Option<&str>| {
            parse_category_send(TO, Some("marketing"), b, c, None)
        };
        assert!(send(Some("sale!"), None).is_ok());
        assert!(send(None, Some(r#"{"text":"sale","title":"T","image_url":"https://i.example/a.png","buttons":[{"label":"Go","url":"https://x.example"}]}"#)).is_ok());
        assert_eq!(code(send(None, None)), ErrorCode::InvalidMessageContent);
        assert_eq!(
            code(send(Some("a"), Some(r#"{"text":"b"}"#))),
            ErrorCode::InvalidMessageContent
        );
        for bad in [
            r#"{"title":"no text"}"#,
            r#"{"text":"x","image_url":"http://insecure.example"}"#,
            r#"{"text":"x","buttons":[{"label":"a","url":"https://a.example"},{"label":"b","url":"https://a.example"},{"label":"c","url":"https://a.example"},{"label":"d","url":"https://a.example"}]}"#,
            r#"{"text":"x","buttons":[{"label":"a"}]}"#,
        ] {
            assert_eq!(
                code(send(None, Some(bad))),
                ErrorCode::InvalidMessageContent,
                "{bad}"
            );
        }
    }

    #[test]
    fn unknown_content_fields_are_invalid_requests_naming_the_field() {
        let auth = parse_category_send(
            TO,
            Some("authentication"),
            None,
            Some(r#"{"code":"1234","x":1}"#),
            None,
        );
        let err = auth.unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert_eq!(err.detail, "message_content.x: unknown field");
        let marketing = parse_category_send(
            TO,
            Some("marketing"),
            None,
            Some(r#"{"text":"x","other":1}"#),
            None,
        );
        assert_eq!(code(marketing), ErrorCode::InvalidRequest);
    }

    #[test]
    fn idempotency_keys_are_one_to_255_visible_ascii_characters() {
        assert_eq!(parse_idempotency_key(Some("a")).unwrap(), Some("a".into()));
        assert!(parse_idempotency_key(Some(&"k".repeat(255))).is_ok());
        for bad in ["", " ", "a b", "é", &"k".repeat(256)] {
            assert!(parse_idempotency_key(Some(bad)).is_err(), "{bad:?}");
        }
    }
}
