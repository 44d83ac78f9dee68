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
  },
  stdio: ['ignore', logFd, logFd],
});

function admin(...args) {
  const out = execFileSync(join(TARGET, 'core-service'), ['admin', '--core-url', CORE, ...args], { env, encoding: 'utf8' });
  return JSON.parse(out);
}

function lastCode(phone) {
  const text = readFileSync(serverLog, 'utf8');
  const lines = text.split('\n').filter((l) => l.includes(phone) && l.includes('login code is'));
  const m = lines.length && lines[lines.length - 1].match(/login code is (\d{6})/);
  return m ? m[1] : null;
}

async function apiCall(method, path, body, token) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(BASE + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  return { status: r.status, body: await r.json() };
}

async function signInByApi(phone) {
  const before = lastCode(phone);
  await apiCall('POST', '/auth/business/otp/request', { phone_number: phone });
  const code = await until(`a code for ${phone}`, () => { const c = lastCode(phone); return c && c !== before ? c : null; });
  const r = await apiCall('POST', '/auth/business/otp/verify', { phone_number: phone, code });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.access_token;
}

// ---- a webhook receiver ----

const received = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    received.push({ headers: req.headers, body });
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok');
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
  page.on('dialog', (d) => d.accept()); // "Delete ...?" confirmations
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

let current = null;

async function step(name, fn) {
  const started = Date.now();
  try {
    await fn();
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
  const before = lastCode(phone);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByText('a code is on its way').waitFor();
  const code = await until('the code in the SMS log', () => { const c = lastCode(phone); return c && c !== before ? c : null; });
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
    await page.getByText(`${STRANGER} was removed.`).waitFor();
    await page.locator(`tr[data-member="${STRANGER}"]`).waitFor({ state: 'detached' });
    assert.equal(await page.locator('tr[data-member] button', { hasText: 'Remove' }).count(), 1, 'the owner has no Remove');
    await shot(page, '04-team');
  });

  await step('create an app and see its token once', async () => {
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
    await page.reload();
    await page.locator('tr[data-app="Order updates"]').waitFor();
    assert.equal(await page.locator('[data-secret]').count(), 0, 'the token is not shown again');
    await page.locator('tr[data-app="Order updates"]').getByRole('button', { name: 'Rotate token' }).click();
    const rotated = page.locator('[data-secret^="New token for Order updates"] code');
    await rotated.waitFor();
    assert.notEqual((await rotated.textContent()).trim(), first);
    await page.getByLabel('Name').fill('Old integration');
    await page.getByRole('button', { name: 'Create the app' }).click();
    await page.locator('tr[data-app="Old integration"]').waitFor();
    await page.locator('tr[data-app="Old integration"]').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Old integration was deleted.').waitFor();
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
    await row.getByRole('button', { name: 'Edit' }).click();
    await row.getByLabel('grant.revoked').check();
    await row.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await page.locator(`tr[data-webhook="${url}"]`, { hasText: 'grant.revoked' }).waitFor();
    await page.locator(`tr[data-webhook="${url}"]`).getByRole('button', { name: 'Pause' }).click();
    await page.locator(`tr[data-webhook="${url}"]`).getByText('paused').waitFor();
    await page.locator(`tr[data-webhook="${url}"]`).getByRole('button', { name: 'Resume' }).click();
    await page.locator(`tr[data-webhook="${url}"]`).getByText('active').waitFor();
    await page.locator(`tr[data-webhook="${url}"]`).getByRole('link', { name: 'Deliveries' }).click();
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    await until('the delivery to show as succeeded', async () => {
      await page.reload();
      await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
      return (await page.locator('tr[data-delivery] .badge.ok').count()) > 0;
    });
    await page.locator('tr[data-delivery] button').first().click();
    await page.locator('section[aria-label="Delivery"]').waitFor();
    await page.locator('section[aria-label="Delivery"] td', { hasText: '200' }).first().waitFor();
    await shot(page, '07-deliveries');
  });

  await step('rotate a webhook secret: made in the browser, shown once, both secrets sign during the grace', async () => {
    const { createHmac } = await import('node:crypto');
    await page.goto(`${BASE}/console/#/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    const url = `http://127.0.0.1:${hookPort}/hooks`;
    const row = page.locator(`tr[data-webhook="${url}"]`);
    await row.getByRole('button', { name: 'Rotate secret' }).click();
    await row.getByLabel('Keep signing with the old secret too').selectOption('3600');
    await row.getByRole('button', { name: 'Rotate the secret' }).click();
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
    // An expiry before the send time is refused, naming the field.
    await page.getByLabel('Expires at (optional)').fill(local(new Date(tomorrow.getTime() - 3600 * 1000)));
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText(/expires_at: after send_at/).waitFor();
    await page.getByLabel('Expires at (optional)').fill(local(new Date(tomorrow.getTime() + 3600 * 1000)));
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText(/^Scheduled for .*: message/).waitFor();
    const waiting = page.locator('tr[data-scheduled]');
    assert.equal(await waiting.count(), 1, 'one scheduled message');
    assert.match(await waiting.innerText(), new RegExp(`\\${FOLLOWER}`));
    assert.equal(await page.locator('tr[data-message] .badge', { hasText: 'scheduled' }).count(), 1);
    await shot(page, '16-messages-scheduled');
    await waiting.getByRole('button', { name: 'Cancel' }).click();
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

  await step('audience: the followers list, a follower\'s consent history and a look-up of numbers', async () => {
    // The follower (not opted in) changes their mind: two entries in their history.
    const patched = await apiCall('PATCH', `/businesses/${businessId}/follow`, { marketing_opt_in: true }, followerToken);
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    await page.goto(`${BASE}/console/#/audience`);
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
    const history = page.getByRole('region', { name: 'Consent history' });
    await history.waitFor();
    assert.equal(await history.locator('tbody tr').count(), 2);
    await page.getByLabel(/Phone numbers you hold/).fill(`${FOLLOWER}\n${STRANGER}`);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.locator(`tr[data-lookup="${FOLLOWER}"]`).waitFor();
    assert.match(await page.locator(`tr[data-lookup="${FOLLOWER}"]`).innerText(), /yes/);
    assert.match(await page.locator(`tr[data-lookup="${STRANGER}"]`).innerText(), /no/);
    await page.getByLabel(/Phone numbers you hold/).fill('not a number');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByText('not a valid phone number').waitFor();
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
    await shot(page, '09-usage');
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
    // A broadcast needs a name.
    await page.getByLabel('Message', { exact: true }).fill('Half price on Saturday');
    await page.getByRole('button', { name: 'Broadcast' }).click();
    await page.getByText(/name: must be 1 to 100 characters/).waitFor();
    await page.getByLabel(/^Name/).fill('Weekend sale');
    await page.getByLabel('Start at (optional)').fill(local(new Date(Date.now() + 24 * 3600 * 1000)));
    await page.getByRole('button', { name: 'Broadcast' }).click();
    await page.getByText(/^Scheduled: "Weekend sale" starts/).waitFor();
    const sale = page.locator('tr[data-broadcast]', { hasText: 'Weekend sale' });
    await sale.locator('.badge', { hasText: 'scheduled' }).waitFor();
    await sale.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Canceled: "Weekend sale" creates no more messages.').waitFor();
    await sale.locator('.badge', { hasText: 'canceled' }).waitFor();
    // One that starts now, at one message a second: its progress updates in place.
    await page.getByLabel(/^Name/).fill('Opening hours');
    await page.getByLabel('Category').selectOption('utility');
    await page.getByLabel('Message', { exact: true }).fill('We open at 10:00 in December');
    await page.getByLabel('Messages per second (optional)').fill('1');
    await page.getByRole('button', { name: 'Broadcast' }).click();
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

  await step('a 429 says when to try again', async () => {
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
    await memberPage.goto(`${BASE}/console/#/apps`);
    await memberPage.getByText('Only the business owner manages developer apps').waitFor();
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

  await step('a phone-sized screen shows the same console', async () => {
    // Signed in as the owner already (the same session), on a 375 px wide screen.
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, storageState: await ownerContext.storageState() });
    const phonePage = await open(phone);
    await phonePage.goto(`${BASE}/console/#/messages`);
    await phonePage.getByRole('heading', { name: 'Messages' }).waitFor();
    const overflow = await phonePage.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than the screen`);
    await shot(phonePage, '12-phone-messages');
    // Charts are drawn at the phone's width: no overflow, and their text stays readable.
    for (const [hash, heading] of [['#/usage', 'Usage'], ['#/audience', 'Audience']]) {
      await phonePage.goto(`${BASE}/console/${hash}`);
      await phonePage.getByRole('heading', { name: heading }).waitFor();
      await phonePage.locator('svg.chart').first().waitFor();
      const wider = await phonePage.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wider <= 1, `${heading}: the page is ${wider}px wider than the screen`);
      const smallest = await phonePage.evaluate(() => Math.min(...[...document.querySelectorAll('svg.chart text')]
        .map((t) => t.getBoundingClientRect().height)));
      assert.ok(smallest >= 11, `${heading}: chart text only ${smallest}px tall`);
    }
    await shot(phonePage, '14-phone-audience');
    await phonePage.goto(`${BASE}/console/#/usage`);
    await phonePage.getByRole('heading', { name: 'Usage' }).waitFor();
    await phonePage.locator('svg.chart').first().waitFor();
    await shot(phonePage, '15-phone-usage');
    await phone.close();
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
