// Browser tests of the web console: the all-in-one on a fresh SQLite file, driven in Debian's
// headless Chromium with playwright-core. Each step is what a person does; a screenshot of each
// page goes to $SCREENSHOTS (default: a temporary folder, printed at the end).
//
//   node tests/browser/console.test.mjs   (after `cargo build -p rest-gateway --bin all-in-one
//                                          -p core-service --bin core-service`)
//
// Environment: CHROMIUM (default /usr/bin/chromium), TARGET_DIR (default target/debug),
// SCREENSHOTS (a folder).

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TARGET = resolve(ROOT, process.env.TARGET_DIR || 'target/debug');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = process.env.SCREENSHOTS || mkdtempSync(join(tmpdir(), 'console-screenshots-'));
mkdirSync(SHOTS, { recursive: true });

const OWNER = '+14155550100';
const MEMBER = '+14155550101';
const FOLLOWER = '+14155550102';
const STRANGER = '+14155550103';

function log(...args) { console.log('[console]', ...args); }

async function freePort() {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); });
  });
}

async function until(what, check, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

// ---- the service ----

// ---- a delivery provider: delivers everything but a text containing "[refuse]" ----

const provider = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    res.writeHead(body.includes('[refuse]') ? 400 : 200, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
});
const providerPort = await freePort();
await new Promise((r) => provider.listen(providerPort, '127.0.0.1', r));

const work = mkdtempSync(join(tmpdir(), 'console-test-'));
const serverLog = join(work, 'server.log');
const httpPort = await freePort();
const grpcPort = await freePort();
const BASE = `http://127.0.0.1:${httpPort}`;
const CORE = `http://127.0.0.1:${grpcPort}`;
const { openSync } = await import('node:fs');
const logFd = openSync(serverLog, 'a');
const env = { ...process.env, NO_COLOR: '1', RUST_LOG: 'info' };
delete env.LOG_FORMAT;
const server = spawn(join(TARGET, 'all-in-one'), [], {
  env: {
    ...env,
    DATABASE_URL: `sqlite://${work}/core.db`,
    HTTP_ADDR: `127.0.0.1:${httpPort}`,
    GRPC_ADDR: `127.0.0.1:${grpcPort}`,
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_RETRY_UNIT_SECS: '1',
    // Messages go to the provider below, which refuses any whose text asks for it.
    DELIVERY_PROVIDER: 'http',
    DELIVERY_HTTP_URL: `http://127.0.0.1:${providerPort}/deliver`,
  },
  stdio: ['ignore', logFd, logFd],
});

function admin(...args) {
  const out = execFileSync(join(TARGET, 'core-service'), ['admin', '--core-url', CORE, ...args], { env, encoding: 'utf8' });
  return JSON.parse(out);
}

// The last code sent to `phone` and how many were sent (a code sent again may be the same).
function codes(phone) {
  const text = readFileSync(serverLog, 'utf8');
  const lines = text.split('\n').filter((l) => l.includes(phone) && l.includes('login code is'));
  const m = lines.length && lines[lines.length - 1].match(/login code is (\d{6})/);
  return { sent: lines.length, code: m ? m[1] : null };
}

async function apiCall(method, path, body, token) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(BASE + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  return { status: r.status, body: await r.json() };
}

async function signInByApi(phone) {
  const before = codes(phone).sent;
  await apiCall('POST', '/auth/business/otp/request', { phone_number: phone });
  const code = await until(`a code for ${phone}`, () => { const c = codes(phone); return c.sent > before ? c.code : null; });
  const r = await apiCall('POST', '/auth/business/otp/verify', { phone_number: phone, code });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.access_token;
}

// ---- a webhook receiver ----

const received = [];
const HOSTILE_ANSWER = 'ok <img src=x onerror="window.__ran=1"><script>window.__ran=2</script>';
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    // An endpoint at /failing always answers 503 (its deliveries retry).
    if (req.url.endsWith('/failing')) {
      res.writeHead(503, { 'Content-Type': 'text/plain' });
      res.end('down for maintenance');
      return;
    }
    received.push({ headers: req.headers, body });
    // The receiver's answer is shown in the console as text: it must never run.
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(HOSTILE_ANSWER);
  });
});
const hookPort = await freePort();
await new Promise((r) => receiver.listen(hookPort, '127.0.0.1', r));

// ---- the browser ----

let browser;
const failures = [];
const pageErrors = [];

async function newContext(viewport = { width: 1280, height: 860 }) {
  const context = await browser.newContext({ viewport });
  context.on('page', () => {});
  return context;
}

async function open(context) {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // API refusals the test provokes show up as "Failed to load resource": not page errors.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text());
  });
  page.setDefaultTimeout(15000);
  // The console asks in the page, never with the browser's own dialogs; any alert() is a
  // script the page should not have run.
  page.on('dialog', (d) => { pageErrors.push(`a browser dialog opened: ${d.type()} ${d.message()}`); d.dismiss(); });
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

let current = null;

// Every sentence the console shows a person: words chosen by the code, never a field path, a
// code, "E.164", or the same sentence twice.
async function checkWords(p) {
  // Nothing the page drew says "null", "undefined" or "[object ...]" (documents shown as
  // written, like a payload, aside).
  const drawn = await p.evaluate(() => {
    const shown = document.getElementById('main');
    if (!shown) return '';
    const copy = shown.cloneNode(true);
    for (const pre of copy.querySelectorAll('pre')) pre.remove();
    return copy.textContent;
  });
  assert.doesNotMatch(drawn, /\bnull\b|\bundefined\b|\[object \w+\]|NaN/, 'the page shows a value that is not a word');
  const texts = await p.locator('.notice.error:visible').allInnerTexts();
  const seen = new Set();
  for (const text of texts) {
    assert.doesNotMatch(text, /E\.164/, text);
    assert.doesNotMatch(text, /\b[a-z]+_[a-z_]+\b/, `a code or a field name is shown: ${text}`);
    assert.doesNotMatch(text, /\w\[\d+\]|\w\.\w+:/, `a field path is shown: ${text}`);
    for (const sentence of text.split(/(?<=[.!?])\s+/).filter(Boolean)) {
      assert.ok(!seen.has(sentence), `said twice: ${sentence}`);
      seen.add(sentence);
    }
  }
}

// What of the page lies off a phone's screen: the page's overflow, and every control (and, with
// `cells`, table cell) drawn outside the viewport.
async function offScreen(p, cells = false) {
  const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  const outside = await p.evaluate((selector) => [...document.querySelectorAll(selector)]
    .filter((el) => el.getClientRects().length > 0)
    .map((el) => [el.textContent.trim().slice(0, 30) || el.getAttribute('name'), el.getBoundingClientRect()])
    .filter(([, r]) => r.left < -1 || r.right > window.innerWidth + 1)
    .map(([name, r]) => `${name} (${Math.round(r.left)}..${Math.round(r.right)})`),
  `main button, main a, main input, main select, main textarea${cells ? ', main td' : ''}`);
  return { overflow, outside };
}

// The console's own confirmation dialog: answers it with the button named `answer`.
async function answer(p, question, button) {
  const dialog = p.locator('dialog.ask', { hasText: question });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

async function step(name, fn) {
  const started = Date.now();
  try {
    await fn();
    if (current) await checkWords(current);
    log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (err) {
    if (current) {
      await current.screenshot({ path: join(SHOTS, `failed-${name.slice(0, 40).replace(/\W+/g, '-')}.png`), fullPage: true }).catch(() => {});
    }
    failures.push(`${name}: ${err && err.stack ? err.stack : err}`);
    log(`FAIL ${name}: ${err && err.message ? err.message : err}`);
  }
}

async function signInWithCode(page, phone) {
  await page.goto(`${BASE}/console/`);
  await page.getByLabel('Phone number').fill(phone);
  const before = codes(phone).sent;
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByText('a code is on its way').waitFor();
  const code = await until('the code in the SMS log', () => { const c = codes(phone); return c.sent > before ? c.code : null; });
  await page.getByLabel('The 6-digit code').fill(code);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.locator('#nav').waitFor({ state: 'visible' });
}

try {
  await until('the all-in-one to answer', async () => (await fetch(`${BASE}/healthz`)).ok, 60000);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });

  // The users an operator creates (going live and recipients are operator and app steps).
  admin('create-user', '--phone', OWNER);
  admin('create-user', '--phone', MEMBER);
  admin('create-user', '--phone', FOLLOWER);
  admin('create-user', '--phone', STRANGER);

  const ownerContext = await newContext();
  const page = await open(ownerContext);
  current = page;
  // The owner's access token, as the console holds it.
  const ownerToken = async () => JSON.parse(await page.evaluate(() => localStorage.getItem('bm.console.session'))).access_token;

  await step('the console is served with a policy that allows no inline script', async () => {
    const r = await fetch(`${BASE}/console/`);
    assert.equal(r.status, 200);
    const csp = r.headers.get('content-security-policy');
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    const html = await r.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /https?:\/\//, 'nothing from elsewhere');
  });

  await step('sign in by code', async () => {
    await page.goto(`${BASE}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot(page, '01-sign-in');
    await signInWithCode(page, OWNER);
  });

  let businessId;
  await step('create the sandbox business; the account shows why it cannot send', async () => {
    await page.getByRole('heading', { name: 'Create your business' }).waitFor();
    await page.getByLabel('Business name').fill('Acme Coffee');
    await page.getByLabel('Category (optional)').fill('Coffee shop');
    await page.getByLabel('Website (optional)').fill('https://acme.example');
    await page.getByRole('button', { name: 'Create the business' }).click();
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    await page.getByText('This business is in the sandbox').waitFor();
    assert.doesNotMatch(await page.locator('main').innerText(), /core-service|admin |--mode/, 'no operator command on a page');
    businessId = (await page.locator('section[aria-label="Business"] code').first().textContent()).trim();
    assert.match(businessId, /^[0-9a-f-]{36}$/);
    await shot(page, '02-account-sandbox');
    // The operator's step, then the page shows a live business.
    admin('set-business', '--id', businessId, '--mode', 'live');
    await page.reload();
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    assert.equal(await page.getByText('This business is in the sandbox').count(), 0);
    await page.getByLabel('Category').fill('Coffee roaster');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByText('Category: Coffee roaster').waitFor();
    await shot(page, '03-account-live');
  });

  await step('add a team member, change the role; a wrong number shows why', async () => {
    await page.goto(`${BASE}/console/#/team`);
    await page.getByRole('heading', { name: 'Team' }).waitFor();
    await page.getByLabel('Phone number').fill('+14155550199');
    await page.getByRole('button', { name: 'Add to the team' }).click();
    await page.getByText('No user has that phone number').waitFor();
    await page.getByLabel('Phone number').fill(MEMBER);
    await page.locator('form[aria-label="Add a team member"] select[name=role]').selectOption('member');
    await page.getByRole('button', { name: 'Add to the team' }).click();
    await page.locator(`tr[data-member="${MEMBER}"]`).waitFor();
    await page.getByLabel(`Role of ${MEMBER}`).selectOption('admin');
    await page.getByText(`${MEMBER} is now admin.`).waitFor();
    await page.getByLabel(`Role of ${MEMBER}`).selectOption('member');
    await page.getByText(`${MEMBER} is now member.`).waitFor();
    await page.getByLabel('Phone number').fill(STRANGER);
    await page.getByRole('button', { name: 'Add to the team' }).click();
    await page.locator(`tr[data-member="${STRANGER}"]`).waitFor();
    await page.locator(`tr[data-member="${STRANGER}"]`).getByRole('button', { name: 'Remove' }).click();
    await answer(page, `Remove ${STRANGER} from the team?`, 'Remove');
    await page.getByText(`${STRANGER} was removed.`).waitFor();
    await page.locator(`tr[data-member="${STRANGER}"]`).waitFor({ state: 'detached' });
    assert.equal(await page.locator('tr[data-member] button', { hasText: 'Remove' }).count(), 1, 'the owner has no Remove');
    await shot(page, '04-team');
  });

  await step('create an app and see its token once; rotating right after shows the new token, and a token on screen always works', async () => {
    await page.goto(`${BASE}/console/#/apps`);
    await page.getByRole('heading', { name: 'Developer apps' }).waitFor();
    await page.getByLabel('Name').fill('Order updates');
    await page.getByLabel('marketing').check();
    await page.getByRole('button', { name: 'Create the app' }).click();
    const secret = page.locator('[data-secret^="Token for Order updates"] code');
    await secret.waitFor();
    assert.match(await secret.textContent(), /^sva_/);
    await page.getByText('you will not see it again').waitFor();
    await shot(page, '05-apps-token-once');
    const first = (await secret.textContent()).trim();
    // Rotated at once, without a reload: the token on screen is the new one, and only it.
    await page.locator('tr[data-app="Order updates"]').getByRole('button', { name: 'Rotate token' }).click();
    await answer(page, 'Rotate the token of Order updates?', 'Rotate');
    const rotated = page.locator('[data-secret^="New token for Order updates"] code');
    await rotated.waitFor();
    const second = (await rotated.textContent()).trim();
    assert.notEqual(second, first);
    assert.equal(await page.locator('[data-secret]').count(), 1, 'one token on screen');
    assert.doesNotMatch(await page.locator('main').innerText(), new RegExp(first), 'the revoked token is gone');
    const check = (token) => fetch(`${BASE}/v1/${businessId}/messages/check`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ to: OWNER, category: 'utility', body: 'hello' }),
    });
    assert.equal((await check(first)).status, 401, 'the old token no longer works');
    assert.notEqual((await check(second)).status, 401, 'the token on screen works');
    await page.reload();
    await page.locator('tr[data-app="Order updates"]').waitFor();
    assert.equal(await page.locator('[data-secret]').count(), 0, 'the token is not shown again');
    await page.getByLabel('Name').fill('Old integration');
    await page.getByRole('button', { name: 'Create the app' }).click();
    await page.locator('[data-secret^="Token for Old integration"]').waitFor();
    await page.locator('tr[data-app="Old integration"]').getByRole('button', { name: 'Delete' }).click();
    await answer(page, 'Delete Old integration?', 'Delete');
    await page.getByText('Old integration was deleted.').waitFor();
    assert.equal(await page.locator('[data-secret]').count(), 0, 'a deleted app\'s token is not on screen');
  });

  await step('a webhook: created (secret once), tested, and the delivery in the log', async () => {
    await page.goto(`${BASE}/console/#/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    const url = `http://127.0.0.1:${hookPort}/hooks`;
    await page.getByLabel('URL').fill(url);
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    await page.locator('[data-secret^="Signing secret"] code').waitFor();
    assert.match(await page.locator('[data-secret^="Signing secret"] code').textContent(), /^whsec_/);
    const row = page.locator(`tr[data-webhook="${url}"]`);
    await row.getByRole('button', { name: 'Send a test' }).click();
    await until('the test delivery at the receiver', () => received.length > 0);
    await shot(page, '06-webhooks');
    // Edit opens in its own panel, which Cancel closes.
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('region', { name: `Edit ${url}` });
    await edit.waitFor();
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await edit.waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'Edit' }).click();
    await edit.getByLabel(/^grant\.revoked/).check();
    await edit.getByLabel(/^message\.received/).check();
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await page.locator(`tr[data-webhook="${url}"]`, { hasText: 'message.received' }).waitFor();
    await page.locator(`tr[data-webhook="${url}"]`).getByRole('button', { name: 'Pause' }).click();
    await page.locator(`tr[data-webhook="${url}"] [data-health="paused"]`).waitFor();
    await page.locator(`tr[data-webhook="${url}"]`).getByRole('button', { name: 'Resume' }).click();
    await page.locator(`tr[data-webhook="${url}"] [data-health="healthy"]`).waitFor();
    await page.locator(`tr[data-webhook="${url}"]`).getByRole('link', { name: 'Deliveries' }).click();
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    await until('the delivery to show as succeeded', async () => {
      await page.reload();
      await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
      return (await page.locator('tr[data-delivery] .badge.ok').count()) > 0;
    });
    // The list names the endpoint; the delivery's page shows what was sent and what the
    // receiver answered, as text.
    assert.match(await page.locator('tr[data-delivery]').first().innerText(), new RegExp(url.replace(/[.:/]/g, '\\$&')));
    await shot(page, '07-deliveries');
    await page.locator('tr[data-delivery] a').first().click();
    await page.locator('section[aria-label="Delivery"]').waitFor();
    await page.locator('tr[data-attempt] td', { hasText: '200' }).first().waitFor();
    const answered = page.locator('tr[data-attempt] pre.response').first();
    assert.equal(await answered.textContent(), HOSTILE_ANSWER, 'the receiver\'s answer shows as written');
    assert.equal(await page.locator('main img').count(), 0, 'nothing in it became an image');
    assert.equal(await page.evaluate(() => window.__ran), undefined, 'nothing in it ran');
    assert.match(await page.locator('pre.payload').textContent(), /"type": "webhook\.test"/);
    assert.match(await page.locator('section[aria-label="Delivery"]').innerText(), /Delivered\./);
    await shot(page, '21-delivery');
    await checkWords(page);
    // The status filter.
    await page.goto(`${BASE}/console/#/deliveries`);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No deliveries match.').waitFor();
    await page.getByLabel('Status').selectOption('succeeded');
    await page.locator('tr[data-delivery]').first().waitFor();
  });

  await step('rotate a webhook secret: made in the browser, shown once, both secrets sign during the grace', async () => {
    const { createHmac } = await import('node:crypto');
    await page.goto(`${BASE}/console/#/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    const url = `http://127.0.0.1:${hookPort}/hooks`;
    const row = page.locator(`tr[data-webhook="${url}"]`);
    await row.getByRole('button', { name: 'Rotate secret' }).click();
    const panel = page.getByRole('region', { name: `Rotate the secret of ${url}` });
    await panel.getByLabel('Keep signing with the old secret too').selectOption('3600');
    await panel.getByRole('button', { name: 'Rotate the secret' }).click();
    const shown = page.locator('[data-secret^="New signing secret"] code');
    await shown.waitFor();
    const secret = (await shown.textContent()).trim();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    await page.getByText('The secret was rotated.').waitFor();
    await page.locator(`tr[data-webhook="${url}"]`).getByText('old secret signs too until').waitFor();
    await shot(page, '18-webhook-secret-rotated');
    const before = received.length;
    await page.locator(`tr[data-webhook="${url}"]`).getByRole('button', { name: 'Send a test' }).click();
    const delivery = await until('the test delivery after the rotation', () => received[before]);
    const header = delivery.headers['x-service-signature'];
    const t = header.split(',').find((p) => p.startsWith('t=')).slice(2);
    const v1s = header.split(',').filter((p) => p.startsWith('v1=')).map((p) => p.slice(3));
    assert.equal(v1s.length, 2, header);
    assert.equal(v1s[0], createHmac('sha256', secret).update(`${t}.${delivery.body}`).digest('hex'));
    // The secret is not shown again.
    await page.reload();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    assert.equal(await page.locator('[data-secret]').count(), 0);
  });

  // The follower signs in once (a second code within the cooldown is not sent).
  let followerToken = null;

  await step('send a message; a non-follower is explained in words; the history shows it', async () => {
    followerToken = await signInByApi(FOLLOWER);
    const follow = await apiCall('PUT', `/businesses/${businessId}/follow`, { marketing_opt_in: false }, followerToken);
    assert.equal(follow.status, 200, JSON.stringify(follow.body));
    await page.goto(`${BASE}/console/#/messages`);
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    await page.getByLabel('To (phone number of a follower)').fill(STRANGER);
    await page.getByLabel('Message', { exact: true }).fill('Your order has shipped');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('does not follow your business').waitFor();
    await page.getByLabel('To (phone number of a follower)').fill(FOLLOWER);
    await page.getByLabel('Category').selectOption('marketing');
    await page.getByLabel('Message', { exact: true }).fill('20% off this week');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('has not opted in to marketing').waitFor();
    await page.getByLabel('Category').selectOption('utility');
    await page.getByLabel('Message', { exact: true }).fill('Your order has shipped');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText(/^Sent: message/).waitFor();
    await until('the message in the history', async () => {
      await page.reload();
      await page.getByRole('heading', { name: 'History' }).waitFor();
      return (await page.locator('tr[data-message] .badge.ok').count()) > 0;
    });
    await shot(page, '08-messages');
  });

  await step('check a message before sending it: the answer shows, and nothing is sent', async () => {
    await page.goto(`${BASE}/console/#/messages`);
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    const sent = await page.locator('tr[data-message]').count();
    await page.getByLabel('To (phone number of a follower)').fill(STRANGER);
    await page.getByLabel('Message', { exact: true }).fill('Your table is ready');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('It would not be sent').waitFor();
    await page.getByText('does not follow your business').waitFor();
    await page.getByLabel('To (phone number of a follower)').fill(FOLLOWER);
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('This message would be sent now. Nothing was sent.').waitFor();
    // A new action clears what the last one said.
    assert.equal(await page.getByText('It would not be sent').count(), 0, 'the old answer is gone');
    await shot(page, '19-messages-check');
    await page.reload();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    assert.equal(await page.locator('tr[data-message]').count(), sent, 'a check sent nothing');
  });

  await step('schedule a message, see it waiting, cancel it; a bad expiry is explained', async () => {
    // A local date-time tomorrow at the page's clock, as a datetime-local field takes it.
    const local = (d) => {
      const pad = (n) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
    };
    const tomorrow = new Date(Date.now() + 24 * 3600 * 1000);
    await page.goto(`${BASE}/console/#/messages`);
    await page.getByRole('heading', { name: 'Scheduled' }).waitFor();
    await page.getByText('Nothing is scheduled.').waitFor();
    await page.getByLabel('To (phone number of a follower)').fill(FOLLOWER);
    await page.getByLabel('Message', { exact: true }).fill('Your table is ready at nine');
    await page.getByLabel('Send at (optional)').fill(local(tomorrow));
    // An expiry before the send time is refused, in words.
    await page.getByLabel('Expires at (optional)').fill(local(new Date(tomorrow.getTime() - 3600 * 1000)));
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('The expiry must be after the send time.').waitFor();
    // A send time in the past is refused in the form (the API would send it now).
    await page.getByLabel('Send at (optional)').fill(local(new Date(Date.now() - 3600 * 1000)));
    await page.getByLabel('Expires at (optional)').fill('');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('The send time has already passed. Leave it empty to send now, or pick a later time.').waitFor();
    await page.getByLabel('Send at (optional)').fill(local(tomorrow));
    await page.getByLabel('Expires at (optional)').fill(local(new Date(tomorrow.getTime() + 3600 * 1000)));
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText(/^Scheduled for /).waitFor();
    const waiting = page.locator('tr[data-scheduled]');
    assert.equal(await waiting.count(), 1, 'one scheduled message');
    assert.match(await waiting.innerText(), new RegExp(`\\${FOLLOWER}`));
    assert.match(await waiting.innerText(), /Your table is ready at nine/, 'the scheduled list shows the content');
    assert.equal(await page.locator('tr[data-message] .badge', { hasText: 'scheduled' }).count(), 1);
    await shot(page, '16-messages-scheduled');
    // Cancelling asks first; "Keep it" keeps it.
    await waiting.getByRole('button', { name: 'Cancel' }).click();
    await answer(page, `Cancel the message to ${FOLLOWER}?`, 'Keep it');
    assert.equal(await waiting.count(), 1, 'still scheduled');
    await waiting.getByRole('button', { name: 'Cancel' }).click();
    await answer(page, `Cancel the message to ${FOLLOWER}?`, 'Cancel the message');
    await page.getByText(`Canceled: the message to ${FOLLOWER} will not be sent.`).waitFor();
    await page.getByText('Nothing is scheduled.').waitFor();
    // The history shows it canceled, with the reason in words; the filter finds it.
    await page.getByLabel('Show messages').selectOption('canceled');
    await until('only the canceled message listed', async () => (await page.locator('tr[data-message]').count()) === 1);
    assert.match(await page.locator('tr[data-message]').innerText(), /canceled before it was sent/);
    await page.getByLabel('Show messages').selectOption('delivered');
    await until('only the delivered message listed', async () => (await page.locator('tr[data-message] .badge', { hasText: 'canceled' }).count()) === 0);
    assert.equal(await page.locator('tr[data-message] .badge.ok').count(), 1);
  });

  await step('audience: the consent wording, the followers list, a follower\'s consent evidence and a look-up of numbers', async () => {
    await page.goto(`${BASE}/console/#/audience`);
    await page.getByRole('heading', { name: 'Audience' }).waitFor();
    // The owner sets the wording followers agree to: version 1.
    await page.getByText('No wording set yet').waitFor();
    await page.getByLabel(/New wording/).fill('Weekly offers by SMS. Reply STOP to end them.');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByText('Version 1 is in force.').waitFor();
    // The follower (not opted in) changes their mind, naming the wording they were shown: two
    // entries in their ledger, the opt-in with that wording.
    const patched = await apiCall('PATCH', `/businesses/${businessId}/follow`, { marketing_opt_in: true, consent_text_version: 1 }, followerToken);
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    await page.reload();
    await page.getByRole('heading', { name: 'Audience' }).waitFor();
    // The counts and the follows of the last 30 days, drawn in the page.
    const follows = page.getByRole('img', { name: /^Follows and unfollows per day/ });
    await follows.waitFor();
    assert.match(await follows.getAttribute('aria-label'), /follows 1, unfollows 0/);
    assert.match(await page.locator('.stats').innerText(), /1\s*active followers/);
    const row = page.locator('tr[data-follower]');
    await row.first().waitFor();
    assert.equal(await row.count(), 1);
    assert.doesNotMatch(await page.locator('main').innerText(), /\+1415555/, 'no phone number is shown');
    await page.getByLabel('Marketing consent').selectOption('false');
    await page.getByText('No followers match.').waitFor();
    await page.getByLabel('Marketing consent').selectOption('true');
    await row.first().waitFor();
    await row.first().getByRole('button').click();
    const history = page.getByRole('region', { name: 'Consent evidence' });
    await history.waitFor();
    // It opens where it was asked for: the row right under the follower's.
    await page.locator('tr[data-follower] + tr.history-row section[aria-label="Consent evidence"]').waitFor();
    assert.equal(await history.locator('table').first().locator('tbody tr').count(), 2);
    assert.match(await history.innerText(), /version 1 \(shown to them\): .*Weekly offers by SMS/);
    await page.getByLabel(/Phone numbers you hold/).fill(`${FOLLOWER}\n${STRANGER}`);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.locator(`tr[data-lookup="${FOLLOWER}"]`).waitFor();
    assert.match(await page.locator(`tr[data-lookup="${FOLLOWER}"]`).innerText(), /yes/);
    assert.match(await page.locator(`tr[data-lookup="${STRANGER}"]`).innerText(), /no/);
    // A result that follows links to its consent history, opened under it.
    assert.equal(await page.locator(`tr[data-lookup="${STRANGER}"]`).getByRole('button').count(), 0);
    await page.locator(`tr[data-lookup="${FOLLOWER}"]`).getByRole('button', { name: 'Consent evidence' }).click();
    await page.locator(`tr[data-lookup="${FOLLOWER}"] + tr.history-row section[aria-label="Consent evidence"]`).waitFor();
    await page.getByLabel(/Phone numbers you hold/).fill('not a number');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByText('That is not a phone number the service can use.').waitFor();
    assert.equal(await page.locator('tr[data-lookup]').count(), 0, 'the last results went with the new look-up');
    await shot(page, '13-audience');
  });

  await step('events: the list, a type filter, and a new event appearing while the page is open', async () => {
    await page.goto(`${BASE}/console/#/events`);
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await page.locator('tr[data-event="follow.created"]').first().waitFor();
    const updates = page.locator('tr[data-event="follow.updated"]');
    const before = await updates.count();
    // The follower withdraws marketing consent: the event appears without a reload, on top.
    const consent = await apiCall('PATCH', `/businesses/${businessId}/follow`, { marketing_opt_in: false }, followerToken);
    assert.equal(consent.status, 200, JSON.stringify(consent.body));
    await until('the new event on the page', async () => (await updates.count()) === before + 1);
    assert.match(await page.locator('tbody tr').first().innerText(), /follow\.updated[\s\S]*· active\s/);
    await shot(page, '20-events');
    await page.getByLabel('Show events').selectOption('follow.created');
    await until('only follow.created events shown', async () => (await updates.count()) === 0);
    await page.locator('tr[data-event="follow.created"]').first().waitFor();
    // Consent given again, as the later steps expect.
    const back = await apiCall('PATCH', `/businesses/${businessId}/follow`, { marketing_opt_in: true }, followerToken);
    assert.equal(back.status, 200, JSON.stringify(back.body));
  });

  await step('usage: totals and charts drawn in the page', async () => {
    await page.goto(`${BASE}/console/#/usage`);
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    const chart = page.locator('svg.chart').first();
    await chart.waitFor();
    // Two utility messages: one delivered, one canceled (the scheduled one).
    assert.match(await chart.getAttribute('aria-label'), /utility 2/);
    assert.match(await page.locator('.stats').innerText(), /1\s*canceled/);
    // The last 30 days: messages, outcomes and webhooks per day, today's column included.
    for (const [name, figures] of [
      ['Messages per day', /utility 2/],
      ['Outcomes per day', /delivered 1, failed 0/],
      ['Webhooks per day', /succeeded \d+, failed 0/],
    ]) {
      const day = page.getByRole('img', { name: new RegExp(`^${name}`) });
      assert.match(await day.getAttribute('aria-label'), figures);
    }
    assert.equal(await page.locator('svg.chart.days').first().locator('rect').count(), 1, 'one day with messages');
    // A colour means one thing everywhere: failed is always red, green is only success.
    const fills = await page.locator('main svg rect[data-series]').evaluateAll((rects) => rects.map((r) => [r.dataset.series, r.getAttribute('fill')]));
    assert.ok(fills.length > 10, JSON.stringify(fills));
    for (const [series, fill] of fills) {
      if (series === 'failed') assert.equal(fill, '#b42318', `failed drawn ${fill}`);
      if (fill === '#1a7f37') assert.ok(['delivered', 'succeeded'].includes(series), `${series} drawn green`);
      if (fill === '#b42318') assert.equal(series, 'failed', `${series} drawn red`);
    }
    // The charts are drawn again at a new width.
    const before = Number(await page.locator('svg.chart').first().getAttribute('width'));
    await page.setViewportSize({ width: 420, height: 860 });
    await until('the charts drawn at the new width', async () => Number(await page.locator('svg.chart').first().getAttribute('width')) < before);
    const narrow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(narrow <= 1, `the page is ${narrow}px wider than the screen after the resize`);
    await page.setViewportSize({ width: 1280, height: 860 });
    await until('the charts drawn wide again', async () => Number(await page.locator('svg.chart').first().getAttribute('width')) === before);
    await shot(page, '09-usage');
  });

  await step('a failing endpoint: its delivery retrying, with the receiver\'s answer and the next attempt; its health, a banner recovering its deliveries, its seven days; deleting it asks first', async () => {
    const failing = `http://127.0.0.1:${hookPort}/failing`;
    await page.goto(`${BASE}/console/#/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByLabel('URL').fill(failing);
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    const row = page.locator(`tr[data-webhook="${failing}"]`);
    await row.waitFor();
    await row.getByRole('button', { name: 'Send a test' }).click();
    await page.getByText(`A test event is on its way to ${failing}.`).waitFor();
    await page.goto(`${BASE}/console/#/deliveries?status=retrying`);
    await until('the test delivery retrying', async () => {
      await page.reload();
      await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
      return (await page.locator('tr[data-delivery]').count()) > 0;
    });
    assert.match(await page.locator('tr[data-delivery]').first().innerText(), /failing[\s\S]*retrying/);
    await page.locator('tr[data-delivery] a').first().click();
    await page.getByRole('heading', { name: 'Delivery', exact: true }).waitFor();
    await until('an attempt shown with the next one', async () => {
      const text = await page.locator('section[aria-label="Delivery"]').innerText();
      if (/retrying/.test(text) && /Next attempt/.test(text)) return true;
      await page.reload();
      await page.getByRole('heading', { name: 'Delivery', exact: true }).waitFor();
      return false;
    });
    assert.equal(await page.locator('tr[data-attempt] pre.response').first().textContent(), 'down for maintenance');
    assert.match(await page.locator('tr[data-attempt]').first().innerText(), /503/);
    await checkWords(page);
    // A test event counts for nothing; five real events failing in a row turn it failing.
    await page.goto(`${BASE}/console/#/webhooks`);
    await page.locator(`tr[data-webhook="${failing}"] [data-health="healthy"]`).waitFor();
    const token = await ownerToken();
    const made = await apiCall('POST', '/business/apps', { name: 'Health check', scopes: ['utility'] }, token);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    for (let i = 0; i < 5; i += 1) {
      const sent = await fetch(`${BASE}/v1/${businessId}/messages`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${made.body.data.token}` },
        body: JSON.stringify({ to: FOLLOWER, category: 'utility', body: `Health check ${i}` }),
      });
      assert.equal(sent.status, 200, await sent.text());
    }
    const banner = page.locator(`[data-failing="${failing}"]`);
    await until('the failing banner', async () => {
      await page.reload();
      await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
      return (await banner.count()) > 0;
    });
    assert.match(await banner.innerText(), /has failed \d+ attempts in a row since/);
    assert.match(await banner.innerText(), /HTTP 503/);
    assert.match(await row.innerText(), /failing/);
    const chart = page.locator(`[data-stats="${failing}"] svg.chart`);
    assert.match(await chart.getAttribute('aria-label'), /failed [1-9]/);
    await shot(page, '31-webhook-failing');
    await checkWords(page);
    // At 375 px the banner, its button and the charts fit the screen.
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, storageState: await ownerContext.storageState() });
    const phonePage = await open(phone);
    await phonePage.goto(`${BASE}/console/#/webhooks`);
    await phonePage.locator(`[data-failing="${failing}"]`).waitFor();
    const { overflow, outside } = await offScreen(phonePage);
    assert.ok(overflow <= 1, `a failing endpoint: the page is ${overflow}px wider than the screen`);
    assert.deepEqual(outside, [], 'a failing endpoint: off the screen');
    await shot(phonePage, '32-phone-webhook-failing');
    await phone.close();
    await banner.getByRole('button', { name: 'Recover its failed deliveries' }).click();
    await page.getByText(/queued again for|No failed deliveries to queue again/).waitFor();
    assert.equal((await apiCall('DELETE', `/business/apps/${made.body.data.id}`, undefined, token)).status, 200);
    await page.goto(`${BASE}/console/#/webhooks`);
    await row.getByRole('button', { name: 'Delete' }).click();
    await answer(page, `Delete the endpoint ${failing}?`, 'Keep it');
    await row.waitFor();
    await row.getByRole('button', { name: 'Delete' }).click();
    await answer(page, `Delete the endpoint ${failing}?`, 'Delete it');
    await page.getByText('The endpoint was deleted.').waitFor();
    await row.waitFor({ state: 'detached' });
  });

  await step('broadcasts: the audience before sending, a scheduled one canceled, one that runs to its end', async () => {
    const local = (d) => {
      const pad = (n) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
    };
    await page.goto(`${BASE}/console/#/broadcasts`);
    await page.getByRole('heading', { name: 'Broadcasts' }).first().waitFor();
    await page.getByText('No broadcasts yet.').waitFor();
    await page.getByText('Audience now: 1 active follower.').waitFor();
    await page.getByLabel('Category').selectOption('marketing');
    await page.getByText('of whom 1 opted in to marketing').waitFor();
    // A broadcast needs a name; a start in the past is refused in the form.
    await page.getByLabel('Message', { exact: true }).fill('Half price on Saturday');
    await page.getByRole('button', { name: 'Review the broadcast' }).click();
    await page.getByText('Give the broadcast a name first (only your team sees it).').waitFor();
    await page.getByLabel(/^Name/).fill('Weekend sale');
    await page.getByLabel('Start at (optional)').fill(local(new Date(Date.now() - 3600 * 1000)));
    await page.getByRole('button', { name: 'Review the broadcast' }).click();
    await page.getByText('The start time has already passed. Leave it empty to start now, or pick a later time.').waitFor();
    // The review: category, how many it reaches now, the content as followers see it, when.
    await page.getByLabel('Start at (optional)').fill(local(new Date(Date.now() + 24 * 3600 * 1000)));
    await page.getByLabel('Title').fill('Saturday only');
    await page.getByRole('button', { name: 'Review the broadcast' }).click();
    const review = page.getByRole('region', { name: 'Review the broadcast' });
    await review.waitFor();
    assert.equal(await page.locator('form[aria-label="New broadcast"]').isVisible(), false, 'the form waits behind the review');
    assert.equal(await review.locator('[data-reach]').getAttribute('data-reach'), '1');
    assert.match(await review.innerText(), /Category\s+marketing/);
    assert.match(await review.innerText(), /1 follower who opted in to marketing/);
    assert.match(await review.innerText(), /starts /);
    assert.match(await review.locator('[data-preview]').innerText(), /Saturday only\s+Half price on Saturday/);
    await shot(page, '22-broadcast-review');
    await checkWords(page);
    // Back to edit keeps what was written; nothing was created.
    await review.getByRole('button', { name: 'Back to edit' }).click();
    assert.equal(await page.getByLabel(/^Name/).inputValue(), 'Weekend sale');
    await page.getByText('No broadcasts yet.').waitFor();
    await page.getByRole('button', { name: 'Review the broadcast' }).click();
    await review.getByRole('button', { name: /^Schedule it for 1 follower/ }).click();
    await page.getByText(/^Scheduled: "Weekend sale" starts/).waitFor();
    const sale = page.locator('tr[data-broadcast]', { hasText: 'Weekend sale' });
    await sale.locator('.badge', { hasText: 'scheduled' }).waitFor();
    assert.match(await sale.innerText(), /Saturday only · Half price on Saturday/, 'the list shows the content');
    await sale.getByRole('button', { name: 'Cancel' }).click();
    await answer(page, 'Cancel the broadcast "Weekend sale"?', 'Cancel the broadcast');
    await page.getByText('Canceled: "Weekend sale" creates no more messages.').waitFor();
    await sale.locator('.badge', { hasText: 'canceled' }).waitFor();
    // One that starts now, at one message a second: its progress updates in place.
    await page.getByLabel(/^Name/).fill('Opening hours');
    await page.getByLabel('Category').selectOption('utility');
    await page.getByLabel('Message', { exact: true }).fill('We open at 10:00 in December');
    await page.getByLabel('Messages per second (optional)').fill('1');
    await page.getByRole('button', { name: 'Review the broadcast' }).click();
    await review.getByText('now, as soon as you confirm').waitFor();
    await review.getByRole('button', { name: 'Send it to 1 follower now' }).click();
    await page.getByText('Broadcasting "Opening hours": progress shows below.').waitFor();
    const hours = page.locator('tr[data-broadcast]', { hasText: 'Opening hours' });
    await hours.locator('.badge', { hasText: 'completed' }).waitFor({ timeout: 20000 });
    assert.match(await hours.innerText(), /1 sent · 0 skipped of 1/);
    assert.match(await hours.innerText(), /1 delivered · 0 failed/);
    await page.getByLabel('Show broadcasts').selectOption('canceled');
    await until('only the canceled broadcast listed', async () => (await page.locator('tr[data-broadcast]').count()) === 1);
    await page.getByLabel('Show broadcasts').selectOption('');
    await hours.waitFor();
    await shot(page, '17-broadcasts');
    // Its message is in the history, without the follower's number.
    await page.goto(`${BASE}/console/#/messages`);
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await page.getByText('a follower (broadcast)').first().waitFor();
  });

  await step('what was sent: a message page shows the content, the outcome with its times, the reason in words and its webhook deliveries', async () => {
    // A message the provider refuses: failed, the reason in words.
    await page.goto(`${BASE}/console/#/messages`);
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    await page.getByLabel('To (phone number of a follower)').fill(FOLLOWER);
    await page.getByLabel('Category').selectOption('utility');
    await page.getByLabel('Message', { exact: true }).fill('Your parcel [refuse] is delayed');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText(/^Sent: message/).waitFor();
    const refused = page.locator('tr[data-message]', { hasText: 'Your parcel [refuse] is delayed' });
    await until('the refused message failed', async () => {
      await page.reload();
      await page.getByRole('heading', { name: 'History' }).waitFor();
      return (await refused.locator('.badge.bad').count()) === 1;
    });
    assert.match(await refused.innerText(), /the delivery provider refused it/);
    await refused.getByRole('link').first().click();
    await page.getByRole('heading', { name: 'Message', exact: true }).waitFor();
    assert.equal((await page.locator('[data-preview]').innerText()).trim(), 'Your parcel [refuse] is delayed');
    const outcome = page.getByRole('region', { name: 'Outcome' });
    assert.match(await outcome.innerText(), /failed[\s\S]*the delivery provider refused it/);
    assert.match(await outcome.innerText(), /Accepted[\s\S]*Failed/);
    assert.match(await page.getByRole('region', { name: 'Webhook deliveries' }).innerText(), /announce no events/);
    // A broadcast message announces its outcome: its page lists the delivery, which opens.
    await page.goto(`${BASE}/console/#/messages`);
    const fromBroadcast = page.locator('tr[data-message]', { hasText: 'We open at 10:00 in December' });
    await fromBroadcast.getByRole('link').first().click();
    await page.getByRole('heading', { name: 'Message', exact: true }).waitFor();
    assert.match(await page.getByRole('region', { name: 'Outcome' }).innerText(), /delivered[\s\S]*Delivered/);
    const deliveries = page.getByRole('region', { name: 'Webhook deliveries' });
    await until('the message.sent delivery listed', async () => {
      await page.reload();
      await page.getByRole('heading', { name: 'Message', exact: true }).waitFor();
      return (await deliveries.locator('tr[data-delivery]').count()) > 0;
    });
    await shot(page, '23-message');
    await checkWords(page);
    await deliveries.getByRole('link', { name: 'message.sent' }).click();
    await page.getByRole('heading', { name: 'Delivery', exact: true }).waitFor();
    await until('the delivery attempted', async () => {
      await page.reload();
      await page.getByRole('heading', { name: 'Delivery', exact: true }).waitFor();
      return (await page.locator('pre.payload').count()) === 1;
    });
    assert.match(await page.locator('pre.payload').textContent(), /"type": "message\.sent"/);
    assert.match(await page.locator('section[aria-label="Delivery"]').innerText(), /127\.0\.0\.1/);
  });

  let conversationId = null;
  await step('the Inbox: a follower writes, it shows within 2 s without a reload with the unread count; answered from the Inbox end to end', async () => {
    const named = await apiCall('PATCH', '/me', { display_name: 'Dana' }, followerToken);
    assert.equal(named.status, 200, JSON.stringify(named.body));
    await page.goto(`${BASE}/console/#/inbox`);
    await page.getByRole('heading', { name: 'Inbox', exact: true }).waitFor();
    await page.getByText('No conversations yet.').waitFor();
    assert.equal(await page.locator('#unread').isVisible(), false, 'nothing unread');
    const wrote = await apiCall('POST', `/businesses/${businessId}/messages`, { text: 'Hello, is my order ready?' }, followerToken);
    assert.equal(wrote.status, 201, JSON.stringify(wrote.body));
    conversationId = wrote.body.data.conversation_id;
    const started = Date.now();
    const item = page.locator(`li[data-conversation="${conversationId}"]`);
    await item.waitFor({ timeout: 2000 });
    log(`the new conversation showed ${Date.now() - started} ms after the follower's message was accepted`);
    await until('the unread count in the navigation', async () => (await page.locator('#unread').textContent()) === '1', 2000);
    assert.match(await item.innerText(), /Dana/);
    assert.match(await item.innerText(), /1 unread/);
    assert.match(await item.innerText(), /Window open, closes in 24 h/);
    assert.match(await item.innerText(), /Assigned to nobody/);
    await shot(page, '24-inbox');
    await checkWords(page);
    // Viewed: the thread, marked read; the navigation's count goes.
    await item.getByRole('link').click();
    await page.getByRole('heading', { name: 'Conversation', exact: true }).waitFor();
    await page.locator('li.bubble.inbound', { hasText: 'Hello, is my order ready?' }).waitFor();
    await until('the unread count gone', async () => !(await page.locator('#unread').isVisible()));
    const list = await apiCall('GET', '/business/conversations', undefined, await ownerToken());
    assert.equal(list.body.data.unread_conversations, 0, 'marked read when viewed');
    // A second message shows in the open thread without a reload.
    const again = await apiCall('POST', `/businesses/${businessId}/messages`, { text: 'It was order 1042' }, followerToken);
    assert.equal(again.status, 201, JSON.stringify(again.body));
    const seenAt = Date.now();
    await page.locator('li.bubble.inbound', { hasText: 'It was order 1042' }).waitFor({ timeout: 2000 });
    log(`the second message showed in the open thread ${Date.now() - seenAt} ms after it was accepted`);
    // The reply, in the team's own words while the window is open.
    await page.getByLabel('Reply', { exact: true }).fill('Yes, it is ready for pickup');
    await page.getByRole('button', { name: 'Send the reply' }).click();
    await page.getByText('Sent.', { exact: true }).waitFor();
    const mine = page.locator('li.bubble.outbound', { hasText: 'Yes, it is ready for pickup' });
    await mine.waitFor();
    await mine.locator('.badge', { hasText: 'delivered' }).waitFor();
    // The follower sees it and reads it: the read mark shows.
    const thread = await apiCall('GET', `/businesses/${businessId}/messages`, undefined, followerToken);
    const reply = thread.body.data.messages.find((m) => m.body === 'Yes, it is ready for pickup');
    assert.ok(reply, JSON.stringify(thread.body));
    const read = await apiCall('POST', `/businesses/${businessId}/messages/read`, { up_to: reply.id }, followerToken);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    await mine.locator('[data-read]').waitFor();
    // Assign, label, close; a new message from them reopens it.
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await page.getByText('Assigned to you.').waitFor();
    await page.getByLabel('Label (what your team calls them)').fill('Dana from the roastery');
    await page.getByRole('button', { name: 'Save the label' }).click();
    await page.getByText('The label is saved.').waitFor();
    await page.locator('h2.conversation-name', { hasText: 'Dana from the roastery' }).waitFor();
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await page.getByText('Closed. A new message from them opens it again.').waitFor();
    await page.getByRole('button', { name: 'Reopen' }).waitFor();
    await shot(page, '25-conversation');
    await checkWords(page);
    await page.goto(`${BASE}/console/#/inbox?show=mine&status=closed`);
    await page.locator(`li[data-conversation="${conversationId}"]`, { hasText: 'Dana from the roastery' }).waitFor();
    await page.getByLabel('Show').selectOption('unassigned');
    await page.getByText('No conversation matches.').waitFor();
    await page.goto(`${BASE}/console/#/inbox?status=open`);
    await page.getByText('No conversation matches.').waitFor();
    await until('the open conversations listed, whoever they are assigned to', async () => (await page.getByLabel('Show').inputValue()) === ''
      && (await page.getByLabel('Status').inputValue()) === 'open');
    // A message from them reopens it: it shows in the open ones without a reload.
    await apiCall('POST', `/businesses/${businessId}/messages`, { text: 'One more thing' }, followerToken);
    await page.locator(`li[data-conversation="${conversationId}"]`).waitFor({ timeout: 2000 });
    // Block and unblock ask first; a blocked follower cannot write.
    await page.goto(`${BASE}/console/#/inbox/${conversationId}`);
    await page.getByRole('button', { name: 'Block' }).click();
    await answer(page, 'Block Dana from the roastery?', 'Cancel');
    assert.equal(await page.getByRole('button', { name: 'Unblock' }).count(), 0, 'not blocked after Cancel');
    await page.getByRole('button', { name: 'Block' }).click();
    await answer(page, 'Block Dana from the roastery?', 'Block');
    await page.getByText('Blocked: their messages are refused.').waitFor();
    const refused = await apiCall('POST', `/businesses/${businessId}/messages`, { text: 'Hello?' }, followerToken);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, 'conversation_blocked');
    await page.getByRole('button', { name: 'Unblock' }).click();
    await answer(page, 'Unblock Dana from the roastery?', 'Unblock');
    await page.getByText('Unblocked: they can write to you again.').waitFor();
  });

  await step('the Inbox when the window has closed: it says so and offers a category message', async () => {
    // The page's clock a day and an hour ahead: the window (24 h after their last message) has closed.
    // The owner's access token alone (as after a QR sign-in): the other page keeps the refresh token.
    const token = await ownerToken();
    const later = await newContext();
    const laterPage = await open(later);
    await laterPage.clock.setFixedTime(new Date(Date.now() + 25 * 3600 * 1000));
    await laterPage.goto(`${BASE}/console/`);
    await laterPage.evaluate((s) => localStorage.setItem('bm.console.session', s), JSON.stringify({ access_token: token }));
    await laterPage.goto(`${BASE}/console/#/inbox/${conversationId}`);
    await laterPage.getByRole('heading', { name: 'Conversation', exact: true }).waitFor();
    await laterPage.getByText(/The window for replies in your own words closed at .*24 hours after their last message/).waitFor();
    await laterPage.getByText('You can still send a utility message, or a marketing message since they opted in.').waitFor();
    assert.equal(await laterPage.getByLabel('Reply', { exact: true }).count(), 0, 'no free text once the window closed');
    const kinds = await laterPage.getByLabel('Kind of message').locator('option').allInnerTexts();
    assert.deepEqual(kinds.map((k) => k.split(' ')[1]), ['utility', 'marketing']);
    await laterPage.getByLabel('Message', { exact: true }).fill('Your order 1042 is waiting for you');
    await laterPage.getByRole('button', { name: 'Send the message' }).click();
    await laterPage.getByText('Sent.', { exact: true }).waitFor();
    await laterPage.locator('li.bubble.outbound', { hasText: 'Your order 1042 is waiting for you' }).waitFor();
    assert.match(await laterPage.locator('li.bubble.outbound', { hasText: 'Your order 1042' }).innerText(), /\(utility\)/);
    await shot(laterPage, '26-conversation-window-closed');
    await checkWords(laterPage);
    await later.close();
  });

  let templateId = null;
  await step('templates: two languages previewed live by the service, version 2 beside version 1, sent from Messages, a broadcast and the Inbox, one archived', async () => {
    await page.goto(`${BASE}/console/#/templates`);
    await page.getByRole('heading', { name: 'Templates', exact: true }).waitFor();
    await page.getByText('No templates yet.').waitFor();
    const made = page.locator('form[aria-label="New template"]');
    await made.getByLabel(/^Name/).fill('Order Shipped');
    await made.getByLabel(/^Language/).fill('en');
    await made.getByLabel('Wording').fill('Order {{order_id}} has shipped.');
    // The variables are read from the wording as it is written.
    await made.getByLabel('{{order_id}}').waitFor();
    await made.getByRole('button', { name: 'Create the template' }).click();
    await page.getByText('The name is 1 to 64 lowercase letters, digits or _ (like order_shipped).').waitFor();
    await made.getByLabel(/^Name/).fill('order_shipped');
    await made.getByLabel('{{order_id}}').fill('12');
    await made.getByRole('button', { name: 'Add a language' }).click();
    const second = made.locator('[data-variant]').nth(1);
    await second.getByLabel(/^Language/).fill('pt-br');
    await second.getByLabel('Wording').fill('O pedido {{order}} foi enviado.');
    await made.getByRole('button', { name: 'Create the template' }).click();
    // The service names what is wrong; the console says it in words.
    await made.locator('.notice.error').waitFor();
    await second.getByLabel('Wording').fill('O pedido {{order_id}} foi enviado.');
    await made.getByLabel(/^Default language/).selectOption('en');
    await made.getByRole('button', { name: 'Create the template' }).click();
    await page.getByRole('heading', { name: 'order_shipped' }).waitFor();
    templateId = (page.url().split('#/templates/')[1] || '').split('?')[0];
    assert.ok(templateId, 'the template\'s page');
    // The preview: every language, rendered by the service as the values change.
    const preview = page.getByRole('region', { name: 'Preview' });
    const pt = page.locator('[data-rendered="pt-BR"]');
    await pt.getByText('O pedido order id foi enviado.').waitFor();
    await preview.getByLabel('{{order_id}}').fill('A-1042');
    await pt.getByText('O pedido A-1042 foi enviado.').waitFor();
    await page.locator('[data-rendered="en"]').getByText('Order A-1042 has shipped.').waitFor();
    // A value left empty is refused by the service, and said in words.
    await preview.getByLabel('{{order_id}}').fill('');
    await pt.getByText('One of the values is empty or too long for the template.').waitFor();
    await preview.getByLabel('{{order_id}}').fill('A-1042');
    await shot(page, '31-template');
    // Version 2; version 1 reads as it was.
    const next = page.locator('form[aria-label="Make a new version"]');
    await next.locator('[data-variant]').first().getByLabel('Wording').fill('Your order {{order_id}} is on its way.');
    await next.getByRole('button', { name: 'Save as version 2' }).click();
    await page.getByText('Saved: order_shipped is at version 2.').waitFor();
    await page.locator('tr[data-variant="en"]', { hasText: 'Your order {{order_id}} is on its way.' }).waitFor();
    await page.locator('.versions').getByRole('link', { name: '1', exact: true }).click();
    await page.locator('tr[data-variant="en"]', { hasText: 'Order {{order_id}} has shipped.' }).waitFor();
    assert.equal(await page.locator('form[aria-label="Make a new version"]').count(), 0, 'an earlier version is only read');

    // Sent from Messages: the picker asks for the values instead of the words.
    await page.goto(`${BASE}/console/#/messages`);
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    await page.getByLabel('To (phone number of a follower)').fill(FOLLOWER);
    await page.getByLabel('Template', { exact: true }).selectOption('order_shipped');
    assert.equal(await page.getByLabel('Message', { exact: true }).isVisible(), false, 'the template replaces the words');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Fill in {{order_id}} for the template.').waitFor();
    await page.getByLabel('{{order_id}}').fill('B-7');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText(/^Sent: message/).waitFor();
    const sentRow = page.locator('tr[data-message]', { hasText: 'Your order B-7 is on its way.' });
    await sentRow.waitFor();
    await sentRow.locator('a').first().click();
    await page.getByRole('heading', { name: 'Message', exact: true }).waitFor();
    await page.locator('[data-preview]', { hasText: 'Your order B-7 is on its way.' }).waitFor();

    // A broadcast of the template: the review shows it filled in.
    await page.goto(`${BASE}/console/#/broadcasts`);
    await page.getByLabel(/^Name/).fill('Shipping notice');
    await page.getByLabel('Category').selectOption('utility');
    await page.getByLabel('Template', { exact: true }).selectOption('order_shipped');
    await page.getByLabel('{{order_id}}').fill('C-3');
    await page.getByRole('button', { name: 'Review the broadcast' }).click();
    const review = page.getByRole('region', { name: 'Review the broadcast' });
    await review.locator('[data-preview]', { hasText: 'Your order C-3 is on its way.' }).waitFor();
    await review.getByRole('button', { name: 'Send it to 1 follower now' }).click();
    await page.getByText('Broadcasting "Shipping notice": progress shows below.').waitFor();
    await page.locator('tr[data-broadcast]', { hasText: 'Shipping notice' }).locator('.badge', { hasText: 'completed' }).waitFor({ timeout: 20000 });

    // From the Inbox, while the window is open: a template instead of words.
    await page.goto(`${BASE}/console/#/inbox/${conversationId}`);
    await page.getByRole('heading', { name: 'Conversation', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Send a template or a utility message instead' }).click();
    await page.getByLabel('Template', { exact: true }).selectOption('order_shipped');
    await page.getByLabel('{{order_id}}').fill('D-9');
    await page.getByRole('button', { name: 'Send the message' }).click();
    await page.locator('li.bubble.outbound', { hasText: 'Your order D-9 is on its way.' }).waitFor();
    await page.getByRole('button', { name: 'Back to a reply in your own words' }).click();
    await page.getByLabel('Reply', { exact: true }).waitFor();

    // Another template archived: it leaves the list and the pickers; its page says so.
    const api = async (method, path, body) => apiCall(method, path, body, await ownerToken());
    const old = await api('POST', '/business/templates', {
      name: 'old_notice', category: 'utility', variables: {}, variants: { en: { body: 'We moved.' } }, default_locale: 'en',
    });
    assert.equal(old.status, 201, JSON.stringify(old.body));
    await page.goto(`${BASE}/console/#/templates/${old.body.data.id}`);
    await page.getByRole('button', { name: 'Archive this template' }).click();
    await answer(page, 'Archive old_notice?', 'Archive');
    await page.getByText('old_notice is archived.').waitFor();
    await page.getByText('This template is archived: it can no longer be sent or changed.').waitFor();
    await page.goto(`${BASE}/console/#/templates`);
    await page.locator('tr[data-template="order_shipped"]').waitFor();
    assert.equal(await page.locator('tr[data-template="old_notice"]').count(), 0);
    await page.getByRole('link', { name: 'Show archived templates' }).click();
    await page.locator('tr[data-template="old_notice"]').waitFor();
    await shot(page, '32-templates');
  });

  await step('what a follower writes is text: markup does not run, a right-to-left override stays inside its message, long words wrap', async () => {
    const hostile = '<img src=x onerror="window.__ran=3"> <b>bold?</b> https://example.com/offer';
    const rtl = 'Invoice \u202Egnp.exe\u202C attached';
    const long = 'x'.repeat(400);
    for (const text of [hostile, rtl, long]) {
      const r = await apiCall('POST', `/businesses/${businessId}/messages`, { text }, followerToken);
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    for (const [width, height] of [[1280, 860], [375, 740]]) {
      const ctx = await browser.newContext({ viewport: { width, height }, storageState: await ownerContext.storageState() });
      const p = await open(ctx);
      await p.goto(`${BASE}/console/#/inbox/${conversationId}`);
      const bubble = (text) => p.locator('li.bubble.inbound p.text').filter({ hasText: text.slice(0, 12) }).last();
      await bubble(long).waitFor();
      assert.equal(await bubble(hostile).textContent(), hostile, 'the markup shows as written');
      assert.equal(await bubble(rtl).textContent(), rtl, 'the override is kept as written');
      assert.equal(await bubble(rtl).getAttribute('dir'), 'auto', 'its direction is isolated');
      assert.equal(await p.locator('main img').count(), 0, 'no image was made');
      assert.equal(await p.locator('main b').count(), 0, 'no markup was made');
      assert.equal(await p.locator('main a[href*="example.com"]').count(), 0, 'no link was made');
      assert.equal(await p.evaluate(() => window.__ran), undefined, 'nothing ran');
      const box = await bubble(long).boundingBox();
      const thread = await p.locator('ol.thread').boundingBox();
      assert.ok(box.x + box.width <= thread.x + thread.width + 1, 'the long word wraps inside its message');
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `${width} px: the page is ${overflow}px wider than the screen`);
      // The same in the delivery of message.received: the payload is text.
      await p.goto(`${BASE}/console/#/deliveries`);
      await p.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
      await until('the message.received deliveries', async () => {
        await p.reload();
        await p.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
        return (await p.locator('tr[data-delivery="message.received"]').count()) >= 4;
      });
      let found = false;
      for (let i = 0; i < 4 && !found; i += 1) {
        await p.goto(`${BASE}/console/#/deliveries`);
        await p.locator('tr[data-delivery="message.received"] a').nth(i).click();
        await p.getByRole('heading', { name: 'Delivery', exact: true }).waitFor();
        await until('the payload', async () => {
          if (await p.locator('pre.payload').count()) return true;
          await p.reload();
          return false;
        });
        found = (await p.locator('pre.payload').textContent()).includes('onerror');
      }
      assert.ok(found, 'the hostile message\'s delivery found');
      assert.equal(await p.locator('main img').count(), 0);
      assert.equal(await p.evaluate(() => window.__ran), undefined);
      await shot(p, `27-hostile-text-${width}`);
      await ctx.close();
    }
  });

  await step('a 429 says when to try again', async () => {
    // A code was just sent (or refused), so the next within the cooldown is refused.
    await apiCall('POST', '/auth/business/otp/request', { phone_number: OWNER });
    const other = await newContext();
    const otherPage = await open(other);
    await otherPage.goto(`${BASE}/console/`);
    await otherPage.getByLabel('Phone number').fill(OWNER);
    await otherPage.getByRole('button', { name: 'Send me a code' }).click();
    await otherPage.getByText(/Too many attempts.*Try again in \d+ seconds?\./).waitFor();
    await other.close();
  });

  await step('a member is not offered what they may not do; a slow page never paints over the next, and one never answered ends after a minute', async () => {
    const memberContext = await newContext();
    const memberPage = await open(memberContext);
    // Sign-in lands on the account page; its read of the business is held back while the member
    // goes on to the team page, then let through: the team page is what stays on screen.
    let release;
    const held = new Promise((r) => { release = r; });
    let holding = false;
    await memberPage.route('**/business/me', async (r) => { holding = true; await held; await r.continue(); });
    await signInWithCode(memberPage, MEMBER);
    await until('the account page reading the business', () => holding);
    await memberPage.goto(`${BASE}/console/#/team`);
    const answered = memberPage.waitForResponse('**/business/me');
    release();
    await (await answered).finished();
    await memberPage.getByText('Only the owner or an admin can change the team.').waitFor();
    await memberPage.evaluate(() => new Promise((r) => setTimeout(r, 250)));
    assert.equal((await memberPage.locator('main h1').textContent()).trim(), 'Team');
    await memberPage.unroute('**/business/me');
    // A read the service never answers ends after a minute (the page's clock runs fast here)
    // with a sentence, and the next page is not held up behind it.
    await memberPage.clock.install();
    await memberPage.reload();
    await memberPage.getByText('Only the owner or an admin can change the team.').waitFor();
    let asked = false;
    await memberPage.route('**/business/usage', () => { asked = true; /* never answered */ });
    await memberPage.goto(`${BASE}/console/#/usage`);
    await until('the usage page asking for the totals', () => asked);
    await memberPage.clock.fastForward('01:01');
    await memberPage.getByText('The service did not answer within a minute. Try again shortly.').waitFor();
    await memberPage.unroute('**/business/usage');
    await memberPage.goto(`${BASE}/console/#/team`);
    await memberPage.getByText('Only the owner or an admin can change the team.').waitFor();
    assert.equal(await memberPage.getByRole('button', { name: 'Remove' }).count(), 0);
    assert.equal(await memberPage.locator('#nav a[href="#/apps"]').isVisible(), false, 'a member is not offered the owner\'s Apps page');
    assert.equal(await memberPage.locator('#nav a[href="#/inbox"]').isVisible(), true);
    await memberPage.goto(`${BASE}/console/#/apps`);
    await memberPage.getByText('Only the business owner can use this page.').waitFor();
    // A member answers conversations too, but blocking is for the owner and admins.
    await memberPage.goto(`${BASE}/console/#/inbox/${conversationId}`);
    await memberPage.getByRole('button', { name: 'Assign to me' }).waitFor();
    assert.equal(await memberPage.getByRole('button', { name: /^(Block|Unblock)$/ }).count(), 0);
    await memberPage.goto(`${BASE}/console/#/broadcasts`);
    await memberPage.getByText('Only the owner or an admin can broadcast.').waitFor();
    assert.equal(await memberPage.getByRole('button', { name: 'Cancel' }).count(), 0);
    await memberContext.close();
  });

  await step('QR sign-in with two browsers: one approves, the other lands signed in', async () => {
    const laptop = await newContext();
    const laptopPage = await open(laptop);
    await laptopPage.goto(`${BASE}/console/`);
    await laptopPage.getByRole('button', { name: 'Show a QR code' }).click();
    const img = laptopPage.locator('.qr img');
    await img.waitFor();
    const svg = await fetch(new URL(await img.getAttribute('src'), `${BASE}/console/`)).then((r) => r.text());
    assert.match(svg, /<svg/);
    const payload = (await laptopPage.locator('[data-qr-payload]').textContent()).trim();
    assert.match(payload, /^service:\/\/business-login\/[0-9a-f-]{36}$/);
    await laptopPage.getByText(/Expires in [12]:\d\d/).waitFor();
    await shot(laptopPage, '10-qr-shown');

    await page.goto(`${BASE}/console/#/approve`);
    await page.getByLabel('Session id or QR payload').fill(payload);
    await page.getByRole('button', { name: 'Look it up' }).click();
    await page.locator('section[aria-label="Sign-in request"]').waitFor();
    await shot(page, '11-qr-approve');
    await page.getByRole('button', { name: 'Approve this sign-in' }).click();
    await page.getByText('Approved. The other browser is signing in.').waitFor();

    await laptopPage.locator('#nav').waitFor({ state: 'visible', timeout: 20000 });
    await laptopPage.getByRole('heading', { name: 'Account' }).waitFor();
    assert.match(await laptopPage.locator('#who').textContent(), new RegExp(`\\${OWNER}`));
    await laptop.close();
  });

  await step('a phone-sized screen shows the same console: every column and button on screen, identifiers whole', async () => {
    // Signed in as the owner already (the same session), on a 375 px wide screen.
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, storageState: await ownerContext.storageState() });
    const phonePage = await open(phone);
    current = phonePage;
    const pages = [
      ['#/messages', 'Messages'], ['#/broadcasts', 'Broadcasts'], ['#/inbox', 'Inbox'],
      [`#/inbox/${conversationId}`, 'Conversation'], ['#/audience', 'Audience'], ['#/team', 'Team'],
      ['#/apps', 'Developer apps'], ['#/webhooks', 'Webhooks'], ['#/deliveries', 'Webhook deliveries'],
      ['#/events', 'Events'], ['#/usage', 'Usage'], ['#/templates', 'Templates'],
      [`#/templates/${templateId}`, 'order_shipped'],
    ];
    for (const [hash, heading] of pages) {
      await phonePage.goto(`${BASE}/console/${hash}`);
      await phonePage.getByRole('heading', { name: heading, exact: true }).waitFor();
      await phonePage.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
      // Every button, link, field and cell in the page lies on the screen (tables stack their rows).
      const { overflow, outside } = await offScreen(phonePage, true);
      assert.ok(overflow <= 1, `${heading}: the page is ${overflow}px wider than the screen`);
      assert.deepEqual(outside, [], `${heading}: off the screen`);
      // Identifiers keep at least 16 characters a line: they never break letter by letter.
      const squeezed = await phonePage.evaluate(() => [...document.querySelectorAll('main code, main .mono')]
        .filter((el) => el.getClientRects().length > 0 && el.textContent.length > 16)
        .filter((el) => el.getBoundingClientRect().width < 16 * 7.5)
        .map((el) => el.textContent.slice(0, 30)));
      assert.deepEqual(squeezed, [], `${heading}: identifiers squeezed`);
      const named = {
        Messages: '12-phone-messages', Audience: '14-phone-audience', Usage: '15-phone-usage',
        Inbox: '28-phone-inbox', Conversation: '29-phone-conversation', 'Webhook deliveries': '30-phone-deliveries',
      }[heading];
      if (named) await shot(phonePage, named);
    }
    // Charts are drawn at the phone's width and their text stays readable.
    for (const [hash, heading] of [['#/usage', 'Usage'], ['#/audience', 'Audience']]) {
      await phonePage.goto(`${BASE}/console/${hash}`);
      await phonePage.getByRole('heading', { name: heading }).waitFor();
      await phonePage.locator('svg.chart').first().waitFor();
      const smallest = await phonePage.evaluate(() => Math.min(...[...document.querySelectorAll('svg.chart text')]
        .map((t) => t.getBoundingClientRect().height)));
      assert.ok(smallest >= 11, `${heading}: chart text only ${smallest}px tall`);
    }
    current = page;
    await phone.close();
  });

  await step('at 375 px: a reply from the Inbox, a broadcast\'s review, a template sent, a message\'s and a delivery\'s pages', async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, storageState: await ownerContext.storageState() });
    const p = await open(phone);
    current = p;
    const onScreen = async (what) => {
      const { overflow, outside } = await offScreen(p);
      assert.ok(overflow <= 1, `${what}: the page is ${overflow}px wider than the screen`);
      assert.deepEqual(outside, [], `${what}: off the screen`);
    };
    await p.goto(`${BASE}/console/#/inbox`);
    await p.locator(`li[data-conversation="${conversationId}"] a`).click();
    await p.getByRole('heading', { name: 'Conversation', exact: true }).waitFor();
    await p.getByLabel('Reply', { exact: true }).fill('Sent from a phone');
    await p.getByRole('button', { name: 'Send the reply' }).click();
    await p.locator('li.bubble.outbound', { hasText: 'Sent from a phone' }).waitFor();
    await onScreen('a conversation');
    await p.goto(`${BASE}/console/#/broadcasts`);
    await p.getByLabel(/^Name/).fill('Phone review');
    await p.getByLabel('Message', { exact: true }).fill('Checked on a phone');
    await p.getByRole('button', { name: 'Review the broadcast' }).click();
    const review = p.getByRole('region', { name: 'Review the broadcast' });
    await review.waitFor();
    await onScreen('a broadcast\'s review');
    await review.getByRole('button', { name: 'Back to edit' }).click();
    await p.getByRole('button', { name: 'Review the broadcast' }).waitFor();
    await p.goto(`${BASE}/console/#/messages`);
    await p.getByLabel('To (phone number of a follower)').fill(FOLLOWER);
    await p.getByLabel('Template', { exact: true }).selectOption('order_shipped');
    await p.getByLabel('{{order_id}}').fill('E-5');
    await onScreen('a template picked to send');
    await p.getByRole('button', { name: 'Send', exact: true }).click();
    await p.getByText(/^Sent: message/).waitFor();
    await p.locator('tr[data-message] a').first().click();
    await p.getByRole('heading', { name: 'Message', exact: true }).waitFor();
    await onScreen('a message');
    await p.goto(`${BASE}/console/#/deliveries`);
    await p.locator('tr[data-delivery] a').first().click();
    await p.getByRole('heading', { name: 'Delivery', exact: true }).waitFor();
    await onScreen('a delivery');
    await p.goto(`${BASE}/console/#/apps`);
    await p.getByRole('heading', { name: 'Developer apps' }).waitFor();
    await p.locator('tr[data-app="Order updates"]').getByRole('button', { name: 'Rotate token' }).click();
    await answer(p, 'Rotate the token of Order updates?', 'Rotate');
    await p.locator('[data-secret^="New token for Order updates"]').waitFor();
    await onScreen('a new token');
    current = page;
    await phone.close();
  });

  await step('people\'s language: every code the service answers has a sentence; the Events page says which sends emit events', async () => {
    const doc = await (await fetch(`${BASE}/openapi.json`)).json();
    const codes = doc.components.schemas.ErrorCode.enum;
    await page.goto(`${BASE}/console/#/events`);
    await page.getByText('Which sends announce their outcome').waitFor();
    const words = await page.evaluate(async () => (await import('./words.js')).WORDS);
    for (const code of codes) {
      assert.ok(words[code], `no sentence for ${code}`);
      assert.doesNotMatch(words[code], /E\.164|\b[a-z]+_[a-z_]+\b/, `${code}: ${words[code]}`);
      assert.match(words[code], /^[A-Z].*[.!]$/, `${code}: not a sentence`);
    }
    // A refusal with a detail naming a field shows the form's own words, once.
    await page.goto(`${BASE}/console/#/team`);
    await page.getByLabel('Phone number').fill('not a number');
    await page.getByRole('button', { name: 'Add to the team' }).click();
    const said = await page.locator('.notice.error').innerText();
    assert.match(said, /not a phone number the service can use/);
  });

  await step('the look: links to the API reference and guide, input text not bold, a focus ring of at least 3:1, the broadcast form like the rest', async () => {
    await page.goto(`${BASE}/console/#/broadcasts`);
    await page.getByRole('heading', { name: 'Broadcasts' }).first().waitFor();
    for (const [name, href] of [['API reference', '/docs'], ['API guide', '/docs/guide']]) {
      const link = page.getByRole('link', { name, exact: true });
      assert.equal(await link.getAttribute('href'), href);
      assert.equal((await fetch(`${BASE}${href}`)).status, 200, href);
    }
    const weights = await page.evaluate(() => [...document.querySelectorAll('main input, main select, main textarea')]
      .map((el) => [el.name, getComputedStyle(el).fontWeight]));
    assert.ok(weights.length >= 5);
    for (const [name, weight] of weights) assert.equal(weight, '400', `${name} is drawn ${weight}`);
    // Every field of the broadcast form is drawn the same way.
    const looks = await page.evaluate(() => [...document.querySelectorAll('form[aria-label="New broadcast"] input:not([type=checkbox]), form[aria-label="New broadcast"] select, form[aria-label="New broadcast"] textarea')]
      .map((el) => { const c = getComputedStyle(el); return [el.name, `${c.borderTopWidth} ${c.borderTopColor} ${c.borderRadius} ${c.paddingLeft} ${c.fontSize}`]; }));
    const reference = looks[0][1];
    for (const [name, look] of looks) assert.equal(look, reference, `${name} looks different`);
    // The keyboard's focus ring stands out against the page: contrast at least 3:1.
    await page.locator('form[aria-label="New broadcast"] input[name=name]').focus();
    await page.keyboard.press('Tab');
    const ring = await page.evaluate(() => {
      const c = getComputedStyle(document.activeElement);
      return { style: c.outlineStyle, width: parseFloat(c.outlineWidth), colour: c.outlineColor };
    });
    assert.notEqual(ring.style, 'none');
    assert.ok(ring.width >= 2, JSON.stringify(ring));
    const lum = (rgb) => {
      const [r, g, b] = rgb.match(/\d+/g).slice(0, 3).map((v) => {
        const c = Number(v) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    for (const background of ['rgb(255, 255, 255)', 'rgb(246, 248, 250)']) {
      const [a, b] = [lum(ring.colour), lum(background)].sort((x, y) => y - x);
      const contrast = (a + 0.05) / (b + 0.05);
      assert.ok(contrast >= 3, `focus ring ${ring.colour} on ${background}: ${contrast.toFixed(2)}:1`);
    }
  });

  await step('a user without a business sees only what they can use', async () => {
    const ctx = await newContext();
    const p = await open(ctx);
    await signInWithCode(p, STRANGER);
    await p.getByRole('heading', { name: 'Create your business' }).waitFor();
    const offered = await p.locator('#nav a:visible').allInnerTexts();
    assert.deepEqual(offered.map((s) => s.trim()), ['Account']);
    await p.goto(`${BASE}/console/#/inbox`);
    await p.getByRole('heading', { name: 'Create your business' }).waitFor();
    await ctx.close();
  });

  await step('sign out revokes the session', async () => {
    await page.goto(`${BASE}/console/#/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  await step('the keyboard reaches the sign-in form', async () => {
    await page.goto(`${BASE}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => document.activeElement && document.activeElement.name === 'phone')) return;
    }
    throw new Error('Tab never reached the phone field');
  });

  if (pageErrors.length) failures.push(`errors in the page: ${pageErrors.join(' | ')}`);
} catch (err) {
  failures.push(String(err && err.stack ? err.stack : err));
} finally {
  if (browser) await browser.close();
  server.kill('SIGTERM');
  receiver.close();
  provider.close();
}

log(`screenshots in ${SHOTS}`);
if (failures.length) {
  for (const f of failures) console.error('FAIL', f);
  const tail = existsSync(serverLog) ? readFileSync(serverLog, 'utf8').split('\n').slice(-30).join('\n') : '';
  console.error(`--- last lines of the server log\n${tail}`);
  process.exitCode = 1;
} else {
  log('all console tests passed');
  rmSync(work, { recursive: true, force: true });
}
