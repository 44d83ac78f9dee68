import type { components } from "./schema.js";
/** Every error code the service answers with; a code this version does not know is a string. */
export type ErrorCode = components["schemas"]["ErrorCode"];
/** A failure answer of the service: `{"success": false, "message": <code>, "detail": ...}`. */
export declare class ApiError extends Error {
    /** The HTTP status (400, 401, 403, 404, 409, 413, 429, 500, 503, ...). */
    readonly status: number;
    /** The error code (the envelope's `message`). */
    readonly code: ErrorCode | (string & {});
    /** One sentence saying why, naming the field and the rule where there is one. */
    readonly detail: string;
    /** The answer's `X-Request-Id`: quote it when reporting a problem. */
    readonly requestId: string | undefined;
    /** Seconds to wait before trying again (`Retry-After`), when given. */
    readonly retryAfter: number | undefined;
    /** The answer's parsed JSON body, or undefined when it was not JSON. */
    readonly body: unknown;
    constructor(status: number, code: string, detail: string, extra?: {
        requestId?: string;
        retryAfter?: number;
        body?: unknown;
    });
}
/** 400: the request is malformed or breaks a rule (`invalid_request`, ...). */
export declare class BadRequestError extends ApiError {
}
/** 401: a missing, expired or revoked token (`unauthorized`, `invalid_app_token`, ...). */
export declare class AuthenticationError extends ApiError {
}
/** 403: the caller may not do this (`insufficient_role`, `app_scope_required`, ...). */
export declare class PermissionDeniedError extends ApiError {
}
/** 404: no such route or resource, or one of another business. */
export declare class NotFoundError extends ApiError {
}
/** 409: the resource is in the wrong state, or an Idempotency-Key was reused differently. */
export declare class ConflictError extends ApiError {
}
/** 413: the body is over the size limit. */
export declare class PayloadTooLargeError extends ApiError {
}
/** 429: a limit was reached; `retryAfter` says when to try again. */
export declare class RateLimitError extends ApiError {
}
/** 5xx: the service failed; the request may be retried (with the same Idempotency-Key). */
export declare class ServerError extends ApiError {
}
/** 503: the service is briefly unavailable; `retryAfter` says when to try again. */
export declare class ServiceUnavailableError extends ServerError {
}
/** A webhook delivery whose signature or timestamp does not verify: answer it 400. */
export declare class WebhookVerificationError extends Error {
    constructor(message: string);
}
/** The typed error of a failure answer (reads a clone of its body). */
export declare function errorFromResponse(response: Response): Promise<ApiError>;
