//! Domain values that cannot be built invalid: past these constructors nothing re-checks.

use proto::ErrorCode;
use uuid::Uuid;

use crate::error::{AppError, AppResult};

fn invalid(field: &str, why: &str) -> AppError {
    AppError::new(ErrorCode::InvalidRequest, format!("{field}: {why}"))
}

/// Numbers whose libphonenumber answer is remembered (about 100 bytes each).
const CHECKED_NUMBERS: usize = 20_000;

/// A phone number in E.164 form (`+14155550123`), checked against libphonenumber's rules.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PhoneNumber(String);

impl PhoneNumber {
    pub fn parse(input: &str) -> AppResult<PhoneNumber> {
        let err = || {
            AppError::new(
                ErrorCode::InvalidPhoneNumber,
                "phone_number must be an E.164 number such as +14155550123",
            )
        };
        let text = input.trim();
        let digits = text.strip_prefix('+').ok_or_else(err)?;
        if !(2..=15).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err());
        }
        // libphonenumber's check is a pure function of the text, and the costliest step of a
        // send (its metadata regexes): remember the answers for recent numbers.
        static CHECKED: std::sync::LazyLock<quick_cache::sync::Cache<String, Option<String>>> =
            std::sync::LazyLock::new(|| quick_cache::sync::Cache::new(CHECKED_NUMBERS));
        let checked = CHECKED
            .get_or_insert_with(text, || {
                Ok::<_, std::convert::Infallible>(
                    phonenumber::parse(None, text)
                        .ok()
                        .filter(phonenumber::is_valid)
                        .map(|parsed| parsed.format().mode(phonenumber::Mode::E164).to_string()),
                )
            })
            .unwrap_or_else(|never| match never {});
        checked.map(PhoneNumber).ok_or_else(err)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// A business-login one-time code: exactly six ASCII digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtpCode(String);

impl OtpCode {
    pub fn parse(input: &str) -> AppResult<OtpCode> {
        if input.len() == 6 && input.bytes().all(|b| b.is_ascii_digit()) {
            Ok(OtpCode(input.to_string()))
        } else {
            Err(AppError::new(
                ErrorCode::InvalidOtpCode,
                "code must be exactly 6 digits",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A business name: trimmed, 1 to 100 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusinessName(String);

impl BusinessName {
    pub fn parse(input: Option<&str>) -> AppResult<BusinessName> {
        let Some(text) = input else {
            return Err(invalid("business_name", "is required"));
        };
        let text = text.trim();
        let len = text.chars().count();
        if len == 0 || len > 100 {
            return Err(invalid("business_name", "must be 1 to 100 characters"));
        }
        if text.chars().any(char::is_control) {
            return Err(invalid(
                "business_name",
                "must not contain control characters",
            ));
        }
        Ok(BusinessName(text.to_string()))
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// A business category: trimmed, 1 to 100 characters.
pub fn parse_category(input: &str) -> AppResult<String> {
    let text = input.trim();
    let len = text.chars().count();
    if len == 0 || len > 100 || text.chars().any(char::is_control) {
        return Err(invalid("category", "must be 1 to 100 characters, or null"));
    }
    Ok(text.to_string())
}

/// A website URL: absolute http or https with a host, at most 2048 characters.
pub fn parse_website_url(input: &str) -> AppResult<String> {
    let err = || {
        invalid(
            "website_url",
            "must be an absolute http or https URL, or null",
        )
    };
    let text = input.trim();
    if text.len() > 2048 {
        return Err(err());
    }
    let url = url::Url::parse(text).map_err(|_| err())?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err(err());
    }
    Ok(url.to_string())
}

pub use proto::vocabulary::{BusinessMode, BusinessStatus, Role, Scope, UserStatus};

/// A developer app's scopes: at least one, no repeats, each a known name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scopes(Vec<Scope>);

impl Scopes {
    pub fn parse<S: AsRef<str>>(names: &[S]) -> AppResult<Scopes> {
        let err = |why: &str| AppError::new(ErrorCode::InvalidAppScopes, format!("scopes: {why}"));
        if names.is_empty() {
            return Err(err("at least one is required"));
        }
        let mut scopes = Vec::with_capacity(names.len());
        for name in names {
            let scope = Scope::from_wire(name.as_ref())
                .ok_or_else(|| err("must be authentication, utility, marketing or service"))?;
            if scopes.contains(&scope) {
                return Err(err("must be unique"));
            }
            scopes.push(scope);
        }
        Ok(Scopes(scopes))
    }

    /// Reads scopes stored by this service (comma-separated).
    pub fn from_db(stored: &str) -> AppResult<Scopes> {
        let names: Vec<&str> = stored.split(',').filter(|s| !s.is_empty()).collect();
        Scopes::parse(&names)
            .map_err(|_| AppError::internal(format!("bad stored scopes: {stored}")))
    }

    pub fn to_db(&self) -> String {
        self.names().join(",")
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.0.iter().map(|s| s.as_str()).collect()
    }

    pub fn contains(&self, scope: Scope) -> bool {
        self.0.contains(&scope)
    }
}

/// A name of 1 to 100 characters once trimmed (developer apps).
pub fn parse_name(field: &str, input: &str) -> AppResult<String> {
    let text = input.trim();
    let len = text.chars().count();
    if len == 0 || len > 100 || text.chars().any(char::is_control) {
        return Err(invalid(field, "must be 1 to 100 characters"));
    }
    Ok(text.to_string())
}

/// A filter value of one of the vocabulary's sets (None when absent).
///
/// Errors: `invalid_request` naming `field` and the allowed values.
pub fn filter<T>(
    field: &str,
    value: Option<&str>,
    parse: impl FnOnce(&str, &str) -> Result<T, proto::vocabulary::InvalidValue>,
) -> AppResult<Option<T>> {
    Ok(value.map(|v| parse(v, field)).transpose()?)
}

/// A `true`/`false` filter value (None when absent).
///
/// Errors: `invalid_request` naming `field`.
pub fn bool_filter(field: &str, value: Option<&str>) -> AppResult<Option<bool>> {
    match value {
        None => Ok(None),
        Some("true") => Ok(Some(true)),
        Some("false") => Ok(Some(false)),
        Some(_) => Err(invalid(field, "one of true, false")),
    }
}

/// The page size of a list: `limit` 1 to 200, default 50.
///
/// Errors: `invalid_limit`.
pub fn page_limit(limit: Option<i64>) -> AppResult<u64> {
    let limit = limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(AppError::new(ErrorCode::InvalidLimit, "limit: 1 to 200"));
    }
    Ok(limit as u64)
}

/// A list's `starting_after` as an id; `what` names the records ("a message").
///
/// Errors: `invalid_request` when it is not an id.
pub fn cursor_id(starting_after: Option<&str>, what: &str) -> AppResult<Option<Uuid>> {
    starting_after
        .map(|id| Uuid::parse_str(id.trim()).map_err(|_| bad_cursor(what)))
        .transpose()
}

/// The answer for a cursor that names no record of this business.
pub fn bad_cursor(what: &str) -> AppError {
    AppError::new(
        ErrorCode::InvalidRequest,
        format!("starting_after: not {what} of this business"),
    )
}

/// Rows read with `limit + 1` cut to `limit`, and whether more follow.
pub fn split_page<T>(mut rows: Vec<T>, limit: u64) -> (Vec<T>, bool) {
    let has_more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    (rows, has_more)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phone_numbers_are_normalised_to_e164_and_invalid_ones_refused() {
        assert_eq!(
            PhoneNumber::parse(" +14155550123 ").unwrap().as_str(),
            "+14155550123"
        );
        for bad in [
            "",
            "14155550123",
            "+1",
            "+999999",
            "+1415555012a",
            "+44 20 7946 0958 ext 1",
        ] {
            let err = PhoneNumber::parse(bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidPhoneNumber, "{bad}");
        }
    }

    #[test]
    fn otp_codes_are_exactly_six_digits() {
        assert!(OtpCode::parse("012345").is_ok());
        for bad in ["12345", "1234567", "12345a", "١٢٣٤٥٦", " 12345"] {
            assert_eq!(
                OtpCode::parse(bad).unwrap_err().code,
                ErrorCode::InvalidOtpCode
            );
        }
    }

    #[test]
    fn business_names_are_trimmed_and_one_to_a_hundred_characters() {
        assert_eq!(
            BusinessName::parse(Some("  Acme  ")).unwrap().into_string(),
            "Acme"
        );
        assert!(BusinessName::parse(Some(&"é".repeat(100))).is_ok());
        assert!(BusinessName::parse(Some(&"é".repeat(101))).is_err());
        assert!(BusinessName::parse(Some("   ")).is_err());
        assert!(BusinessName::parse(None).is_err());
    }

    #[test]
    fn scopes_are_known_unique_and_at_least_one() {
        let scopes = Scopes::parse(&["utility", "service"]).unwrap();
        assert_eq!(scopes.to_db(), "utility,service");
        assert_eq!(Scopes::from_db("utility,service").unwrap(), scopes);
        for bad in [
            &[][..],
            &["utility", "utility"][..],
            &["email"][..],
            &["Utility"][..],
        ] {
            let err = Scopes::parse(bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidAppScopes, "{bad:?}");
        }
    }

    #[test]
    fn website_urls_must_be_absolute_http_or_https() {
        assert!(parse_website_url("https://example.com/x").is_ok());
        assert!(parse_website_url("http://example.com").is_ok());
        for bad in [
            "example.com",
            "ftp://example.com",
            "https://",
            "javascript:alert(1)",
            "/rel",
        ] {
            assert!(parse_website_url(bad).is_err(), "{bad}");
        }
    }
}
