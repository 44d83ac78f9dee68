// Typed errors: every failure answer of the service throws an `ApiError` subclass. (Written by
// hand; `schema.ts` is generated.)
/** A failure answer of the service: `{"success": false, "message": <code>, "detail": ...}`. */
export class ApiError extends Error {
    /** The HTTP status (400, 401, 403, 404, 409, 413, 429, 500, 503, ...). */
    status;
    /** The error code (the envelope's `message`). */
    code;
    /** One sentence saying why, naming the field and the rule where there is one. */
    detail;
    /** The answer's `X-Request-Id`: quote it when reporting a problem. */
    requestId;
    /** Seconds to wait before trying again (`Retry-After`), when given. */
    retryAfter;
    /** The answer's parsed JSON body, or undefined when it was not JSON. */
    body;
    constructor(status, code, detail, extra = {}) {
        super(`${status} ${code}: ${detail}`);
        this.name = new.target.name;
        this.status = status;
        this.code = code;
        this.detail = detail;
        this.requestId = extra.requestId;
        this.retryAfter = extra.retryAfter;
        this.body = extra.body;
    }
}
/** 400: the request is malformed or breaks a rule (`invalid_request`, ...). */
export class BadRequestError extends ApiError {
}
/** 401: a missing, expired or revoked token (`unauthorized`, `invalid_app_token`, ...). */
export class AuthenticationError extends ApiError {
}
/** 403: the caller may not do this (`insufficient_role`, `app_scope_required`, ...). */
export class PermissionDeniedError extends ApiError {
}
/** 404: no such route or resource, or one of another business. */
export class NotFoundError extends ApiError {
}
/** 409: the resource is in the wrong state, or an Idempotency-Key was reused differently. */
export class ConflictError extends ApiError {
}
/** 413: the body is over the size limit. */
export class PayloadTooLargeError extends ApiError {
}
/** 429: a limit was reached; `retryAfter` says when to try again. */
export class RateLimitError extends ApiError {
}
/** 5xx: the service failed; the request may be retried (with the same Idempotency-Key). */
export class ServerError extends ApiError {
}
/** 503: the service is briefly unavailable; `retryAfter` says when to try again. */
export class ServiceUnavailableError extends ServerError {
}
/** A webhook delivery whose signature or timestamp does not verify: answer it 400. */
export class WebhookVerificationError extends Error {
    constructor(message) {
        super(message);
        this.name = "WebhookVerificationError";
    }
}
const BY_STATUS = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    429: RateLimitError,
    503: ServiceUnavailableError,
};
/** The typed error of a failure answer (reads a clone of its body). */
export async function errorFromResponse(response) {
    const status = response.status;
    const Class = BY_STATUS[status] ?? (status >= 500 ? ServerError : ApiError);
    const text = await response.clone().text();
    let body;
    try {
        body = JSON.parse(text);
    }
    catch {
        body = undefined;
    }
    let code;
    let detail;
    const envelope = body;
    if (envelope && typeof envelope === "object" && typeof envelope.message === "string") {
        code = envelope.message;
        detail = typeof envelope.detail === "string" && envelope.detail ? envelope.detail : code;
    }
    else {
        // Not the service's envelope (a proxy in between, say): keep what can be said.
        code = `http_${status}`;
        detail = text.trim().slice(0, 200) || response.statusText || `status ${status}`;
    }
    const rawRetry = response.headers.get("retry-after");
    const retryAfter = rawRetry !== null && /^\d+$/.test(rawRetry.trim()) ? Number(rawRetry.trim()) : undefined;
    return new Class(status, code, detail, {
        requestId: response.headers.get("x-request-id") ?? undefined,
        retryAfter,
        body,
    });
}
