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
