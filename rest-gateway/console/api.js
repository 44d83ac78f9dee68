// The console's only way to the service: the public JSON API, as any client calls it.
// Tokens live in localStorage; an expired access token is refreshed once (single flight) and
// the call retried.

const KEY = 'bm.console.session';

/** How long the console waits for an answer before it says the service did not answer. */
const REQUEST_TIMEOUT_MS = 60000;

export const session = {
  get() {
    try { return JSON.parse(localStorage.getItem(KEY)) || null; } catch { return null; }
  },
  set(s) { localStorage.setItem(KEY, JSON.stringify(s)); },
  clear() { localStorage.removeItem(KEY); },
};

export class ApiError extends Error {
  constructor(status, code, detail, retryAfter) {
    super(detail || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.retryAfter = retryAfter;
  }
}

// Readable sentences for the codes a person meets in the console; any other code is shown
// with its detail.
const WORDS = {
  unauthorized: 'You are signed out. Sign in again.',
  account_suspended: 'This account is suspended.',
  invalid_phone_number: 'That is not a valid phone number. Use the international form, e.g. +14155550123.',
  invalid_otp_code: 'The code is wrong or has expired.',
  rate_limited: 'Too many attempts.',
  sms_delivery_unavailable: 'The code could not be sent right now.',
  not_a_business_account: 'You do not have a business yet.',
  insufficient_role: 'Your role does not allow this.',
  business_already_exists: 'You already have a business.',
  business_follow_required: 'This person does not follow your business, so it cannot message them.',
  marketing_opt_in_required: 'This person has not opted in to marketing messages.',
  live_business_required: 'A sandbox business cannot send messages yet: an operator has to make it live.',
  owner_required: 'Only the owner can do this.',
  message_body_required: 'Write a message first.',
  business_suspended: 'This business is suspended.',
  recipient_not_found: 'No user has that phone number.',
  user_not_found: 'No user has that phone number.',
  team_member_not_found: 'That person is not on the team.',
  user_in_another_business: 'That person already belongs to another business.',
  invalid_webhook_events: 'Choose at least one event.',
  invalid_app_scopes: 'Choose at least one scope.',
  cannot_remove_owner: 'The owner cannot be removed or given another role.',
  webhook_url_conflict: 'An endpoint with that URL already exists.',
  webhook_paused: 'The endpoint is paused. Resume it first.',
  webhook_limit_reached: 'This business has as many endpoints as it may have.',
  invalid_webhook_url: 'That URL cannot receive webhooks.',
  delivery_not_failed: 'Only a failed delivery can be retried.',
  broadcast_not_cancelable: 'Only a scheduled or running broadcast can be canceled.',
  broadcast_not_found: 'That broadcast does not exist.',
  message_not_cancelable: 'Only a scheduled message can be canceled: this one is already on its way, sent or canceled.',
  qr_session_not_found: 'That sign-in request does not exist or has expired.',
  qr_session_not_pending: 'That sign-in request was already approved.',
  console_access_required: 'Only a business team member can approve a console sign-in.',
  service_unavailable: 'The service is unavailable right now. Try again shortly.',
  internal_error: 'Something went wrong on our side.',
};

export function describe(err) {
  if (err && err.name === 'TimeoutError') {
    return 'The service did not answer within a minute. Try again shortly.';
  }
  if (!(err instanceof ApiError)) {
    return `Could not reach the service (${err && err.message ? err.message : err}).`;
  }
  let text = WORDS[err.code] || (err.code ? err.code.replaceAll('_', ' ') : `HTTP ${err.status}`);
  if (err.detail && !text.includes(err.detail)) text += ` (${err.detail})`;
  if (err.status === 429 && err.retryAfter) {
    const s = Number(err.retryAfter);
    const when = s >= 120 ? `${Math.ceil(s / 60)} minutes` : `${s} second${s === 1 ? '' : 's'}`;
    text += ` Try again in ${when}.`;
  }
  return text;
}

let refreshing = null;

async function refresh() {
  const s = session.get();
  if (!s || !s.refresh_token) return false;
  if (!refreshing) {
    refreshing = (async () => {
      try {
        const data = await call('POST', '/auth/refresh', { refresh_token: s.refresh_token }, { auth: false });
        session.set({ ...s, access_token: data.access_token, refresh_token: data.refresh_token });
        return true;
      } catch {
        session.clear();
        return false;
      } finally {
        setTimeout(() => { refreshing = null; }, 0);
      }
    })();
  }
  return refreshing;
}

async function call(method, path, body, { auth = true, headers = {} } = {}) {
  const h = { Accept: 'application/json', ...headers };
  if (body !== undefined) h['Content-Type'] = 'application/json';
  const s = session.get();
  if (auth && s && s.access_token) h.Authorization = `Bearer ${s.access_token}`;
  // A request the service never answers ends after REQUEST_TIMEOUT_MS (the gateway itself
  // answers within CORE_TIMEOUT_SECS), so a page waiting on it never holds up the next one.
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const response = await fetch(path, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  let envelope = null;
  try { envelope = await response.json(); } catch {
    // Not JSON, unless the wait for its body ran out.
    if (signal.aborted) throw signal.reason;
  }
  if (!response.ok || !envelope || envelope.success === false) {
    throw new ApiError(
      response.status,
      envelope && envelope.message,
      envelope && envelope.detail,
      response.headers.get('Retry-After'),
    );
  }
  return envelope.data;
}

export async function api(method, path, body, options = {}) {
  try {
    return await call(method, path, body, options);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401 && options.auth !== false && await refresh()) {
      return call(method, path, body, options);
    }
    if (err instanceof ApiError && err.status === 401 && options.auth !== false) {
      session.clear();
    }
    throw err;
  }
}
