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

/// What a send naming a template can answer about it (after the idempotency replay).
const TEMPLATE_SEND: &[ErrorCode] = &[
    E::TemplateNotFound,
    E::TemplateArchived,
    E::TemplateCategoryMismatch,
    E::TemplateVariableMissing,
    E::TemplateVariableUnknown,
    E::TemplateVariableInvalid,
];

/// What creating a broadcast can answer besides the caller's own errors.
const BROADCAST_SHAPE: &[ErrorCode] = &[
    E::InvalidMessageCategory,
    E::MessageBodyRequired,
    E::InvalidMessageContent,
    E::InvalidIdempotencyKey,
    E::LiveBusinessRequired,
    E::IdempotencyKeyConflict,
    E::IdempotencyInProgress,
];

/// What a message in a conversation can answer besides the caller's own errors.
const CONVERSATION_SEND: &[ErrorCode] = &[
    E::ConversationNotFound,
    E::InvalidMessageCategory,
    E::MessageBodyRequired,
    E::InvalidMessageContent,
    E::InvalidIdempotencyKey,
    E::IdempotencyKeyConflict,
    E::IdempotencyInProgress,
    E::LiveBusinessRequired,
    E::BusinessSuspended,
    E::BusinessFollowRequired,
    E::MarketingOptInRequired,
    E::ServiceWindowClosed,
    E::BusinessSendRateLimited,
];

/// An app token's errors on the routes it may call for its own business.
const APP: &[ErrorCode] = &[
    E::InvalidAppToken,
    E::AppBusinessMismatch,
    E::BusinessSuspended,
];

/// The codes a route answers beyond those its shape implies (see [`shape_codes`]): SPEC-MATRIX.md's
/// failures of the route, by name. `None` for a path this gateway does not serve.
pub fn route_codes(method: &str, path: &str) -> Option<Vec<ErrorCode>> {
    // A send check answers as the send beside it, without the three idempotency codes.
    if let Some(send) = path.strip_suffix("/messages/check")
        && method == "post"
    {
        let idempotency = [
            E::InvalidIdempotencyKey,
            E::IdempotencyKeyConflict,
            E::IdempotencyInProgress,
        ];
        return route_codes(method, &format!("{send}/messages")).map(|codes| {
            codes
                .into_iter()
                .filter(|c| !idempotency.contains(c))
                .collect()
        });
    }
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
        ("get", "/business/followers/{user_id}/history")
        | ("get", "/business/followers/{user_id}/evidence") => {
            [&console[..], &[E::FollowNotFound]].concat()
        }
        ("put", "/business/consent-text") => editor.to_vec(),
        ("get", "/business/consent-text") => console.to_vec(),
        ("post", "/business/messages") => [
            &console[..],
            SEND_SHAPE,
            TEMPLATE_SEND,
            &[E::AuthenticationReserved, E::MarketingOptInRequired],
        ]
        .concat(),
        ("post", "/business/templates") => [
            &editor[..],
            &[E::InvalidMessageCategory, E::TemplateNameTaken],
        ]
        .concat(),
        ("get", "/business/templates") => [&console[..], &[E::InvalidLimit]].concat(),
        ("get", "/business/templates/{id}") => [&console[..], &[E::TemplateNotFound]].concat(),
        ("patch", "/business/templates/{id}") => {
            [&editor[..], &[E::TemplateNotFound, E::TemplateArchived]].concat()
        }
        ("post", "/business/templates/{id}/archive") => {
            [&editor[..], &[E::TemplateNotFound]].concat()
        }
        ("post", "/business/templates/{id}/render") => [
            &console[..],
            &[
                E::TemplateNotFound,
                E::TemplateVariableMissing,
                E::TemplateVariableUnknown,
                E::TemplateVariableInvalid,
            ],
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
        ("post", "/business/broadcasts") => [&editor[..], BROADCAST_SHAPE, TEMPLATE_SEND].concat(),
        ("get", "/business/broadcasts") => [&console[..], &[E::InvalidLimit]].concat(),
        ("get", "/business/broadcasts/{id}") => [&console[..], &[E::BroadcastNotFound]].concat(),
        ("post", "/business/broadcasts/{id}/cancel") => [
            &editor[..],
            &[E::BroadcastNotFound, E::BroadcastNotCancelable],
        ]
        .concat(),
        ("post", "/v1/{businessAccountId}/broadcasts") => {
            [APP, &[E::AppScopeRequired], BROADCAST_SHAPE, TEMPLATE_SEND].concat()
        }
        ("get", "/v1/{businessAccountId}/broadcasts/{id}") => {
            [APP, &[E::BroadcastNotFound]].concat()
        }
        ("post", "/v1/{businessAccountId}/broadcasts/{id}/cancel") => {
            [APP, &[E::BroadcastNotFound, E::BroadcastNotCancelable]].concat()
        }
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
        ("post", "/business/webhooks/{id}/rotate-secret") => {
            [&editor[..], &[E::WebhookNotFound]].concat()
        }
        ("get", "/business/events") => [&console[..], &[E::InvalidLimit]].concat(),
        ("post", "/business/webhooks/{id}/recover") => {
            [&editor[..], &[E::WebhookNotFound, E::WebhookPaused]].concat()
        }
        ("get", "/business/webhooks/{id}/stats") => [&console[..], &[E::WebhookNotFound]].concat(),
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
            E::ConsentTextChanged,
        ],
        ("patch", "/businesses/{businessAccountId}/follow") => vec![
            E::BusinessNotFound,
            E::FollowNotFound,
            E::ConsentTextChanged,
        ],
        ("get", "/businesses/{businessAccountId}/consent-text") => vec![E::BusinessNotFound],
        ("delete", "/businesses/{businessAccountId}/follow") => vec![E::BusinessNotFound],
        ("delete", "/me/grants/{client_id}") => vec![E::GrantNotFound],
        ("post", "/v1/{businessAccountId}/messages") => [
            &[
                E::InvalidAppToken,
                E::AppBusinessMismatch,
                E::AppScopeRequired,
            ],
            SEND_SHAPE,
            TEMPLATE_SEND,
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
        ("patch", "/me") => vec![],
        ("post", "/businesses/{businessAccountId}/messages") => vec![
            E::BusinessNotFound,
            E::BusinessFollowRequired,
            E::BusinessNotLive,
            E::ConversationBlocked,
            E::IdempotencyKeyConflict,
            E::IdempotencyInProgress,
            E::RateLimited,
        ],
        ("get", "/businesses/{businessAccountId}/messages") => {
            vec![E::InvalidLimit, E::BusinessNotFound]
        }
        ("post", "/businesses/{businessAccountId}/messages/read") => vec![E::BusinessNotFound],
        ("get", "/me/conversations") => vec![E::InvalidLimit],
        ("get", "/business/conversations") => [&console[..], &[E::InvalidLimit]].concat(),
        ("get", "/business/conversations/{id}")
        | ("patch", "/business/conversations/{id}")
        | ("post", "/business/conversations/{id}/read") => {
            [&console[..], &[E::ConversationNotFound]].concat()
        }
        ("get", "/business/conversations/{id}/messages") => {
            [&console[..], &[E::InvalidLimit, E::ConversationNotFound]].concat()
        }
        ("post", "/business/conversations/{id}/messages") => [
            &[E::NotABusinessAccount][..],
            CONVERSATION_SEND,
            TEMPLATE_SEND,
        ]
        .concat(),
        ("post", "/business/conversations/{id}/block")
        | ("post", "/business/conversations/{id}/unblock") => {
            [&editor[..], &[E::ConversationNotFound]].concat()
        }
        ("get", "/v1/{businessAccountId}/conversations") => {
            [APP, &[E::AppScopeRequired, E::InvalidLimit]].concat()
        }
        ("get", "/v1/{businessAccountId}/conversations/{id}")
        | ("patch", "/v1/{businessAccountId}/conversations/{id}")
        | ("post", "/v1/{businessAccountId}/conversations/{id}/read") => {
            [APP, &[E::AppScopeRequired, E::ConversationNotFound]].concat()
        }
        ("get", "/v1/{businessAccountId}/conversations/{id}/messages") => [
            APP,
            &[
                E::AppScopeRequired,
                E::InvalidLimit,
                E::ConversationNotFound,
            ],
        ]
        .concat(),
        ("post", "/v1/{businessAccountId}/conversations/{id}/messages") => [
            &[
                E::InvalidAppToken,
                E::AppBusinessMismatch,
                E::AppScopeRequired,
            ][..],
            CONVERSATION_SEND,
            TEMPLATE_SEND,
        ]
        .concat(),
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

/// A `detail` as the service writes it for `code`: the example of that code's error answer in
/// the document. Every code has one (the match is exhaustive).
pub(super) fn example_detail(code: ErrorCode) -> &'static str {
    match code {
        E::MalformedJson => "request body: not valid JSON (expected `,` or `}`)",
        E::InvalidRequest => "send_at: an RFC 3339 date-time, e.g. 2026-12-01T09:00:00Z",
        E::InvalidPhoneNumber => "phone_number must be an E.164 number such as +14155550123",
        E::InvalidOtpCode => "the code is wrong or has expired",
        E::InvalidLimit => "limit: 1 to 200",
        E::ServiceWindowClosed => {
            "the service window closed at 2026-12-02T09:00:00.000Z (24 h after the user's last \
             message, at 2026-12-01T09:00:00.000Z): send a utility message, or marketing to an \
             opted-in follower"
        }
        E::ConversationBlocked => "this business does not accept your messages",
        E::ConversationNotFound => "no such conversation",
        E::InvalidMessageCategory => "category: one of authentication, utility, marketing",
        E::MessageBodyRequired => "body: required for this category",
        E::InvalidMessageContent => "message_content: at most 4096 characters of text",
        E::RecipientNotFound => "no user has this phone number",
        E::InvalidIdempotencyKey => "Idempotency-Key: 1 to 255 visible ASCII characters",
        E::InvalidWebhookUrl => "url: an https URL with a public host",
        E::InvalidWebhookEvents => "events: at least one of the event types",
        E::InvalidAppScopes => "scopes: at least one is required",
        E::UserNotFound => "no user has this phone number",
        E::UserInAnotherBusiness => "this user belongs to another business",
        E::CannotRemoveOwner => "the owner cannot be removed or given another role",
        E::TeamMemberNotFound => "this user is not on the team",
        E::TemplateCategoryMismatch => "category: template order_shipped is utility, not marketing",
        E::TemplateVariableMissing => "template.variables.order_id: required by the template",
        E::TemplateVariableUnknown => "template.variables.orderid: not a variable of the template",
        E::TemplateVariableInvalid => "template.variables.order_id: at most 20 characters",
        E::TemplateNotFound => "template.name: the business has no template named order_shiped",
        E::TemplateNameTaken => {
            "name: the business already has a template named order_shipped (archived ones keep \
             their names)"
        }
        E::TemplateArchived => "template order_shipped is archived",
        E::ConsentTextChanged => {
            "consent_text_version: version 1 is not the wording in force (version 2): show the \
             user the current wording and ask again"
        }
        E::UserOwnsBusiness => {
            "this user owns a business: close it or hand it over before erasing them"
        }
        E::Unauthorized => "a valid access token is required",
        E::InvalidAppToken => "the app token is missing, invalid or revoked",
        E::InvalidRefreshToken => "the refresh token is invalid, expired or already used",
        E::InvalidQrSecret => "the exchange secret does not match this session",
        E::AccountSuspended => "this account is suspended",
        E::NotABusinessAccount => "the signed-in user has no business",
        E::BusinessSuspended => "the business is suspended",
        E::InsufficientRole => "only the owner or an admin can do this",
        E::OwnerRequired => "only the business's owner can do this",
        E::ConsoleAccessRequired => {
            "only a team member of a business can approve a console sign-in"
        }
        E::AuthenticationReserved => "authentication messages are sent with an app token",
        E::AppScopeRequired => "this app token lacks the marketing scope",
        E::AppBusinessMismatch => "the app token belongs to another business",
        E::LiveBusinessRequired => "a sandbox business cannot send messages",
        E::BusinessNotLive => "the business is not live",
        E::CannotFollowOwnBusiness => "a business's team cannot follow it",
        E::BusinessFollowRequired => "the recipient does not follow this business",
        E::MarketingOptInRequired => "the recipient has not opted in to marketing",
        E::NotFound => "no such route",
        E::BusinessNotFound => "no such business",
        E::QrSessionNotFound => "no such sign-in session, or it expired",
        E::FollowNotFound => "you do not follow this business",
        E::AppNotFound => "no such app",
        E::WebhookNotFound => "no such webhook endpoint",
        E::GrantNotFound => "no such grant",
        E::MessageNotFound => "no such message",
        E::DeliveryNotFound => "no such delivery",
        E::BroadcastNotFound => "no such broadcast",
        E::MethodNotAllowed => "method not allowed",
        E::RequestTimeout => "request body: not received in time (BODY_READ_TIMEOUT_SECS)",
        E::BusinessAlreadyExists => "you already have a business",
        E::UserAlreadyExists => "a user has this phone number",
        E::IdempotencyKeyConflict => "this Idempotency-Key was used with other content",
        E::IdempotencyInProgress => "a request with this Idempotency-Key has not finished",
        E::QrSessionNotPending => "this sign-in session is no longer pending",
        E::QrSessionNotApproved => "this sign-in session is not approved",
        E::QrSessionAlreadyExchanged => "this sign-in session was already exchanged",
        E::WebhookUrlConflict => "an endpoint with this URL exists",
        E::WebhookPaused => "the endpoint is paused",
        E::DeliveryNotFailed => "only a failed delivery can be retried",
        E::MessageNotCancelable => {
            "only a scheduled message can be canceled; this one is delivered"
        }
        E::BroadcastNotCancelable => {
            "only a scheduled or running broadcast can be canceled; this one is completed"
        }
        E::WebhookLimitReached => "a business has at most 10 webhook endpoints; delete one first",
        E::PayloadTooLarge => "request body: larger than this service accepts (MAX_BODY_BYTES)",
        E::RequestHeaderTooLarge => "request headers: at most 16384 bytes in all",
        E::RateLimited => "request limit reached",
        E::BusinessSendRateLimited => "one service message per recipient per minute of send time",
        E::InternalError => "something went wrong on our side; the request id is in X-Request-Id",
        E::SmsDeliveryUnavailable => "the SMS provider could not be reached",
        E::ServiceUnavailable => "the service is unavailable; try again shortly",
    }
}
