//! The error codes each route can answer: those its shape implies (a body, a query, a path id,
//! a user's token) and those SPEC-MATRIX.md lists for it by name.

use proto::ErrorCode;

use ErrorCode as E;

const SEND_SHAPE: &[ErrorCode] = &[
    E::InvalidMessageCategory,
    E::InvalidPhoneNumber,
    E::MessageBodyRequired,
    E::InvalidMessageContent,
    E::InvalidIdempotencyKey,
    E::RecipientNotFound,
    E::IdempotencyKeyConflict,
    E::IdempotencyInProgress,
    E::LiveBusinessRequired,
    E::BusinessSuspended,
    E::BusinessFollowRequired,
    E::BusinessSendRateLimited,
];

/// The codes a route answers beyond those its shape implies (see [`shape_codes`]): SPEC-MATRIX.md's
/// failures of the route, by name. `None` for a path this gateway does not serve.
pub fn route_codes(method: &str, path: &str) -> Option<Vec<ErrorCode>> {
    // Console routes: a business is required, and it must be active (except GET /business/me).
    let console = [E::NotABusinessAccount, E::BusinessSuspended];
    let editor = [
        E::NotABusinessAccount,
        E::BusinessSuspended,
        E::InsufficientRole,
    ];
    let owner = [
        E::NotABusinessAccount,
        E::BusinessSuspended,
        E::OwnerRequired,
    ];
    let codes: Vec<ErrorCode> = match (method, path) {
        ("post", "/auth/business/otp/request") => vec![
            E::InvalidPhoneNumber,
            E::RateLimited,
            E::SmsDeliveryUnavailable,
        ],
        ("post", "/auth/business/otp/verify") => vec![
            E::InvalidPhoneNumber,
            E::InvalidOtpCode,
            E::AccountSuspended,
            E::RateLimited,
        ],
        ("post", "/auth/refresh") => vec![E::InvalidRefreshToken, E::AccountSuspended],
        ("post", "/auth/logout") => vec![E::InvalidRefreshToken],
        ("post", "/auth/qr/sessions") => vec![E::RateLimited],
        ("get", "/auth/qr/sessions/{id}/preview") => vec![E::QrSessionNotFound, E::RateLimited],
        ("get", "/auth/qr/sessions/{id}") => {
            vec![E::InvalidQrSecret, E::QrSessionNotFound, E::RateLimited]
        }
        ("post", "/auth/qr/sessions/{id}/approve") => vec![
            E::ConsoleAccessRequired,
            E::QrSessionNotFound,
            E::QrSessionNotPending,
            E::RateLimited,
        ],
        ("post", "/auth/qr/sessions/{id}/exchange") => vec![
            E::InvalidQrSecret,
            E::QrSessionNotFound,
            E::QrSessionNotApproved,
            E::QrSessionAlreadyExchanged,
            E::RateLimited,
        ],
        ("get", "/business/me") => vec![E::NotABusinessAccount],
        ("patch", "/business/me") => editor.to_vec(),
        ("post", "/business/sandbox") => vec![E::BusinessAlreadyExists],
        ("get", "/business/usage") | ("get", "/business/team") | ("get", "/business/webhooks") => {
            console.to_vec()
        }
        ("get", "/business/messages") => [&console[..], &[E::InvalidLimit]].concat(),
        ("get", "/business/followers") => [&console[..], &[E::InvalidLimit]].concat(),
        ("get", "/business/usage/daily") => [&console[..], &[E::InvalidRequest]].concat(),
        ("post", "/business/followers/lookup") => {
            [&console[..], &[E::InvalidPhoneNumber, E::RateLimited]].concat()
        }
        ("get", "/business/followers/{user_id}/history") => {
            [&console[..], &[E::FollowNotFound]].concat()
        }
        ("post", "/business/messages") => [
            &console[..],
            SEND_SHAPE,
            &[E::AuthenticationReserved, E::MarketingOptInRequired],
        ]
        .concat(),
        ("get", "/business/messages/{id}") => [&console[..], &[E::MessageNotFound]].concat(),
        ("post", "/business/messages/{id}/cancel") => [
            &console[..],
            &[
                E::InsufficientRole,
                E::MessageNotFound,
                E::MessageNotCancelable,
            ],
        ]
        .concat(),
        ("post", "/v1/{businessAccountId}/messages/{id}/cancel") => vec![
            E::InvalidAppToken,
            E::AppBusinessMismatch,
            E::BusinessSuspended,
            E::MessageNotFound,
            E::MessageNotCancelable,
        ],
        ("post", "/business/team") => [
            &editor[..],
            &[
                E::InvalidPhoneNumber,
                E::UserNotFound,
                E::UserInAnotherBusiness,
                E::CannotRemoveOwner,
            ],
        ]
        .concat(),
        ("delete", "/business/team/{userId}") => {
            [&editor[..], &[E::CannotRemoveOwner, E::TeamMemberNotFound]].concat()
        }
        ("get", "/business/apps") => owner.to_vec(),
        ("post", "/business/apps") => [&owner[..], &[E::InvalidAppScopes]].concat(),
        ("post", "/business/apps/{appId}/rotate") | ("delete", "/business/apps/{appId}") => {
            [&owner[..], &[E::AppNotFound]].concat()
        }
        ("post", "/business/webhooks") => [
            &editor[..],
            &[
                E::InvalidWebhookUrl,
                E::InvalidWebhookEvents,
                E::WebhookUrlConflict,
                E::WebhookLimitReached,
            ],
        ]
        .concat(),
        ("patch", "/business/webhooks/{id}") => [
            &editor[..],
            &[
                E::InvalidWebhookUrl,
                E::InvalidWebhookEvents,
                E::WebhookNotFound,
                E::WebhookUrlConflict,
            ],
        ]
        .concat(),
        ("delete", "/business/webhooks/{id}") => [&editor[..], &[E::WebhookNotFound]].concat(),
        ("post", "/business/webhooks/{id}/test") => [
            &editor[..],
            &[E::WebhookNotFound, E::WebhookPaused, E::RateLimited],
        ]
        .concat(),
        ("post", "/business/webhooks/{id}/recover") => {
            [&editor[..], &[E::WebhookNotFound, E::WebhookPaused]].concat()
        }
        ("get", "/business/webhook-deliveries") => {
            [&console[..], &[E::InvalidLimit, E::WebhookNotFound]].concat()
        }
        ("get", "/business/webhook-deliveries/{id}") => {
            [&console[..], &[E::DeliveryNotFound]].concat()
        }
        ("post", "/business/webhook-deliveries/{id}/retry") => [
            &editor[..],
            &[E::DeliveryNotFound, E::DeliveryNotFailed, E::WebhookPaused],
        ]
        .concat(),
        ("get", "/businesses/{businessAccountId}/follow") => {
            vec![E::BusinessNotFound, E::FollowNotFound]
        }
        ("put", "/businesses/{businessAccountId}/follow") => vec![
            E::BusinessNotFound,
            E::BusinessNotLive,
            E::CannotFollowOwnBusiness,
        ],
        ("patch", "/businesses/{businessAccountId}/follow") => {
            vec![E::BusinessNotFound, E::FollowNotFound]
        }
        ("delete", "/businesses/{businessAccountId}/follow") => vec![E::BusinessNotFound],
        ("delete", "/me/grants/{client_id}") => vec![E::GrantNotFound],
        ("post", "/v1/{businessAccountId}/messages") => [
            &[
                E::InvalidAppToken,
                E::AppBusinessMismatch,
                E::AppScopeRequired,
            ],
            SEND_SHAPE,
            &[E::MarketingOptInRequired],
        ]
        .concat(),
        ("post", "/v1/service/{phoneNumber}/messages") => [
            &[
                E::InvalidAppToken,
                E::AppBusinessMismatch,
                E::AppScopeRequired,
            ],
            SEND_SHAPE,
        ]
        .concat()
        .into_iter()
        .filter(|c| !matches!(c, E::InvalidMessageCategory | E::InvalidMessageContent))
        .collect(),
        ("get", "/me") => vec![],
        ("get", "/healthz") => vec![],
        ("get", "/readyz") => vec![],
        _ => return None,
    };
    Some(codes)
}

/// The codes a route answers because of its shape: a JSON body (`malformed_json`,
/// `invalid_request`, `payload_too_large`), query parameters (`invalid_request`), a path id
/// (`not_found`), a user's Bearer token (`unauthorized`, `account_suspended`), and the server's
/// own failures.
pub(super) fn shape_codes(
    has_body: bool,
    has_query: bool,
    path_id: bool,
    user_token: bool,
) -> Vec<ErrorCode> {
    let mut codes = vec![E::InternalError, E::ServiceUnavailable];
    if has_body {
        codes.extend([E::MalformedJson, E::InvalidRequest, E::PayloadTooLarge]);
    }
    if has_query {
        codes.push(E::InvalidRequest);
    }
    if path_id {
        codes.push(E::NotFound);
    }
    if user_token {
        codes.extend([E::Unauthorized, E::AccountSuspended]);
    }
    codes
}
