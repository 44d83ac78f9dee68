// The business console: plain ES modules, no build step, no external script. Every page
// calls the public JSON API (api.js) and shows every failure in words.

import { api, describe, session, ApiError } from './api.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
const flash = document.getElementById('flash');

// ---- DOM helpers (text is always set as text, never parsed as HTML) ----

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

function field(label, input) {
  return h('label', {}, label, input);
}

function notice(kind, ...text) {
  return h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...text);
}

function showError(where, err) {
  where.replaceChildren(notice('error', describe(err)));
}

function say(kind, text) {
  flash.replaceChildren(notice(kind, text));
}

// Renders the current page again, then says what happened: once the sentence shows, the page
// under it is the fresh one (a form being filled in is never replaced after it).
async function reload(kind, text) {
  await route();
  say(kind, text);
}

function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

function badge(text, kind = '') {
  return h('span', { class: `badge ${kind}` }, text);
}

const STATUS_KIND = {
  delivered: 'ok', succeeded: 'ok', active: 'ok', live: 'ok',
  failed: 'bad', suspended: 'bad', paused: 'warn', retrying: 'warn', pending: 'warn',
  sandbox: 'warn', accepted: '', scheduled: 'warn', canceled: '', running: 'warn', completed: 'ok',
};

function status(text) {
  return badge(text, STATUS_KIND[text] || '');
}

// A form whose submit runs `action`; its errors go to an alert below the form.
function form(attrs, fields, submitLabel, action) {
  const out = h('div', { class: 'form-result' });
  const button = h('button', { type: 'submit' }, submitLabel);
  const f = h('form', { ...attrs, novalidate: true }, ...fields, h('div', { class: 'row' }, button), out);
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    out.replaceChildren();
    button.disabled = true;
    try {
      await action(new FormData(f), out, f);
    } catch (err) {
      showError(out, err);
    } finally {
      button.disabled = false;
    }
  });
  return f;
}

// A button that runs `action` and shows its failure next to it.
function act(label, action, cls = 'secondary') {
  const b = h('button', { type: 'button', class: cls }, label);
  b.addEventListener('click', async () => {
    b.disabled = true;
    try {
      await action(b);
    } catch (err) {
      say('error', describe(err));
    } finally {
      b.disabled = false;
    }
  });
  return b;
}

function copyable(label, value) {
  const code = h('code', { class: 'mono' }, value);
  const button = act('Copy', async () => {
    try {
      await navigator.clipboard.writeText(value);
      button.textContent = 'Copied';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      button.textContent = 'Selected: press Ctrl+C';
    }
  });
  return h('div', { class: 'secret', 'data-secret': label },
    h('strong', {}, `${label}:`), code, button,
    h('span', { class: 'muted' }, 'Copy it now: you will not see it again.'));
}

function table(headers, rows) {
  return h('div', { class: 'table-wrap' },
    h('table', {},
      h('thead', {}, h('tr', {}, headers.map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows)));
}

function page(title, ...content) {
  document.title = `${title} · Business console`;
  main.replaceChildren(h('h1', {}, title), ...content.flat().filter((c) => c !== null && c !== undefined && c !== false));
  main.focus({ preventScroll: true });
}

// ---- who is signed in ----

let me = null;

async function loadMe() {
  me = await api('GET', '/me');
  return me;
}

function canManage() {
  return me && (me.role === 'owner' || me.role === 'admin');
}

function renderHeader() {
  const signedIn = !!session.get();
  nav.hidden = !signedIn;
  if (!signedIn) {
    who.replaceChildren();
    return;
  }
  who.replaceChildren(
    h('span', {}, me ? `${me.phone_number}${me.role ? ` · ${me.role}` : ''}` : ''),
    act('Sign out', async () => {
      const s = session.get();
      if (s && s.refresh_token) {
        try { await api('POST', '/auth/logout', { refresh_token: s.refresh_token }, { auth: false }); } catch { /* signed out anyway */ }
      }
      session.clear();
      me = null;
      location.hash = '#/login';
    }),
  );
  const current = location.hash.split('?')[0] || '#/';
  for (const a of nav.querySelectorAll('a')) {
    if (a.getAttribute('href') === current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

// ---- sign-in: by code, or by QR ----

let qrTimer = null;

function stopQr() {
  if (qrTimer) clearInterval(qrTimer);
  qrTimer = null;
}

function signedIn(tokens) {
  session.set(tokens);
  location.hash = '#/';
}

function loginPage() {
  const codeStep = h('div');
  const phoneForm = form({ 'aria-label': 'Sign in with a code' }, [
    field('Phone number', h('input', { type: 'tel', name: 'phone', autocomplete: 'tel', placeholder: '+14155550123', required: true })),
  ], 'Send me a code', async (data, out) => {
    const phone = String(data.get('phone') || '').trim();
    await api('POST', '/auth/business/otp/request', { phone_number: phone }, { auth: false });
    out.replaceChildren(notice('ok', `If ${phone} has an account, a code is on its way.`));
    codeStep.replaceChildren(form({ 'aria-label': 'Enter the code' }, [
      field('The 6-digit code', h('input', { type: 'text', name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 6, required: true })),
    ], 'Sign in', async (d) => {
      const tokens = await api('POST', '/auth/business/otp/verify',
        { phone_number: phone, code: String(d.get('code') || '').trim() }, { auth: false });
      signedIn({ access_token: tokens.access_token, refresh_token: tokens.refresh_token });
    }));
    const input = codeStep.querySelector('input');
    if (input) input.focus();
  });

  const qrArea = h('div', { class: 'qr' });
  const qrStart = act('Show a QR code', async () => {
    stopQr();
    const qr = await api('POST', '/auth/qr/sessions', undefined, { auth: false });
    const expires = new Date(qr.expires_at).getTime();
    const countdown = h('p', { 'aria-live': 'polite' });
    const state = h('p', { class: 'muted' }, 'Waiting for approval…');
    qrArea.replaceChildren(
      h('img', { src: `qr.svg?data=${encodeURIComponent(qr.qr_payload)}`, alt: `QR code for ${qr.qr_payload}`, width: 220, height: 220 }),
      h('p', {}, 'Scan it with the app, or approve it from a signed-in console: ', h('code', { class: 'mono', 'data-qr-payload': '' }, qr.qr_payload)),
      countdown, state);
    let exchanging = false;
    const tick = async () => {
      const left = Math.max(0, Math.round((expires - Date.now()) / 1000));
      countdown.textContent = `Expires in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
      if (left <= 0) {
        stopQr();
        state.textContent = 'The code expired. Show a new one.';
        return;
      }
      if (exchanging) return;
      try {
        const st = await api('GET', `/auth/qr/sessions/${qr.id}`, undefined,
          { auth: false, headers: { 'X-Service-QR-Secret': qr.exchange_secret } });
        if (st.status === 'approved') {
          exchanging = true;
          stopQr();
          state.textContent = 'Approved. Signing you in…';
          const t = await api('POST', `/auth/qr/sessions/${qr.id}/exchange`, undefined,
            { auth: false, headers: { 'X-Service-QR-Secret': qr.exchange_secret } });
          signedIn({ access_token: t.token });
        }
      } catch (err) {
        if (err instanceof ApiError && err.status === 429) return; // keep counting down
        stopQr();
        state.replaceChildren(notice('error', describe(err)));
      }
    };
    await tick();
    qrTimer = setInterval(tick, 1000);
  });

  page('Sign in',
    h('section', { class: 'card' }, h('h2', {}, 'With a one-time code'), phoneForm, codeStep),
    h('section', { class: 'card' }, h('h2', {}, 'With a QR code'),
      h('p', { class: 'muted' }, 'Approve the sign-in on a device where you are already signed in. A QR sign-in lasts as long as its access token (15 minutes).'),
      qrStart, qrArea));
}

function approvePage() {
  const out = h('div');
  const lookup = form({ 'aria-label': 'Find a sign-in request' }, [
    field('Session id or QR payload', h('input', { type: 'text', name: 'session', placeholder: 'service://business-login/…', required: true })),
  ], 'Look it up', async (data) => {
    const raw = String(data.get('session') || '').trim();
    const id = raw.includes('/') ? raw.slice(raw.lastIndexOf('/') + 1) : raw;
    const p = await api('GET', `/auth/qr/sessions/${encodeURIComponent(id)}/preview`);
    out.replaceChildren(h('section', { class: 'card', 'aria-label': 'Sign-in request' },
      h('p', {}, h('strong', {}, 'Browser: '), p.client_name),
      h('p', {}, h('strong', {}, 'From: '), p.origin_hint),
      h('p', {}, h('strong', {}, 'Expires: '), when(p.expires_at)),
      act('Approve this sign-in', async () => {
        await api('POST', `/auth/qr/sessions/${encodeURIComponent(id)}/approve`);
        out.replaceChildren(notice('ok', 'Approved. The other browser is signing in.'));
      }, '')));
  });
  page('Approve a sign-in',
    h('p', { class: 'muted' }, 'Another browser shows a QR code: paste its payload (or session id) here to sign it in as you.'),
    lookup, out);
}

// ---- account ----

async function accountPage() {
  if (!me.business_account_id) {
    page('Create your business',
      h('p', {}, 'Your business starts in the sandbox. An operator makes it live when it is ready to message its followers.'),
      form({ 'aria-label': 'Create a sandbox business' }, [
        field('Business name', h('input', { type: 'text', name: 'business_name', maxlength: 100, required: true })),
        field('Category (optional)', h('input', { type: 'text', name: 'category', maxlength: 100 })),
        field('Website (optional)', h('input', { type: 'url', name: 'website_url', placeholder: 'https://…' })),
      ], 'Create the business', async (data) => {
        const body = { business_name: String(data.get('business_name') || '').trim() };
        const category = String(data.get('category') || '').trim();
        const website = String(data.get('website_url') || '').trim();
        if (category) body.category = category;
        if (website) body.website_url = website;
        await api('POST', '/business/sandbox', body);
        await loadMe();
        await reload('ok', 'Your sandbox business is ready.');
      }));
    return;
  }
  const b = await api('GET', '/business/me');
  const facts = h('section', { class: 'card', 'aria-label': 'Business' },
    h('p', {}, h('strong', {}, b.business_name), ' ', status(b.mode), ' ', status(b.status)),
    h('p', { class: 'muted' }, `Account id `, h('code', { class: 'mono' }, b.user_id)),
    h('p', { class: 'muted' }, `Owner ${b.phone_number} · created ${when(b.created_at)}`),
    b.category ? h('p', {}, `Category: ${b.category}`) : null,
    b.website_url ? h('p', {}, 'Website: ', h('a', { href: b.website_url, rel: 'noopener noreferrer', target: '_blank' }, b.website_url)) : null);
  const why = [];
  if (b.mode === 'sandbox') {
    why.push(notice('info', 'This business is in the sandbox: it cannot send messages yet. Going live is an operator\'s step (',
      h('code', { class: 'mono' }, `core-service admin set-business --id ${b.user_id} --mode live`), ').'));
  }
  if (b.status === 'suspended') why.push(notice('error', 'This business is suspended: it can only read its account.'));
  const edit = canManage() ? form({ 'aria-label': 'Edit the profile' }, [
    field('Business name', h('input', { type: 'text', name: 'business_name', maxlength: 100, value: b.business_name, required: true })),
    field('Category', h('input', { type: 'text', name: 'category', maxlength: 100, value: b.category || '' })),
    field('Website', h('input', { type: 'url', name: 'website_url', value: b.website_url || '' })),
  ], 'Save', async (data, out) => {
    const category = String(data.get('category') || '').trim();
    const website = String(data.get('website_url') || '').trim();
    await api('PATCH', '/business/me', {
      business_name: String(data.get('business_name') || '').trim(),
      category: category || null,
      website_url: website || null,
    });
    await reload('ok', 'Saved.');
  }) : h('p', { class: 'muted' }, 'Only the owner or an admin can edit the profile.');
  page('Account', ...why, facts, h('h2', {}, 'Profile'), edit);
}

// ---- team ----

async function teamPage() {
  const members = await api('GET', '/business/team');
  const manage = canManage();
  const rows = members.map((m) => h('tr', { dataset: { member: m.phone_number } },
    h('td', {}, m.phone_number),
    h('td', {}, m.role === 'owner' ? badge('owner', 'ok') : manage
      ? h('select', {
        'aria-label': `Role of ${m.phone_number}`,
        onchange: async (e) => {
          try {
            await api('POST', '/business/team', { phone_number: m.phone_number, role: e.target.value });
            await reload('ok', `${m.phone_number} is now ${e.target.value}.`);
          } catch (err) {
            await reload('error', describe(err));
          }
        },
      }, ['admin', 'member'].map((r) => h('option', { value: r, selected: r === m.role }, r)))
      : m.role),
    h('td', {}, when(m.added_at)),
    h('td', {}, manage && m.role !== 'owner' ? act('Remove', async () => {
      if (!confirm(`Remove ${m.phone_number} from the team?`)) return;
      await api('DELETE', `/business/team/${m.user_id}`);
      await reload('ok', `${m.phone_number} was removed.`);
    }, 'danger') : null)));
  const add = manage ? form({ 'aria-label': 'Add a team member' }, [
    field('Phone number', h('input', { type: 'tel', name: 'phone', placeholder: '+14155550123', required: true })),
    field('Role', h('select', { name: 'role' }, h('option', { value: 'member' }, 'member'), h('option', { value: 'admin' }, 'admin'))),
  ], 'Add to the team', async (data) => {
    const phone = String(data.get('phone') || '').trim();
    await api('POST', '/business/team', { phone_number: phone, role: data.get('role') });
    await reload('ok', `${phone} was added.`);
  }) : h('p', { class: 'muted' }, 'Only the owner or an admin can change the team.');
  page('Team', table(['Phone', 'Role', 'Added', ''], rows), h('h2', {}, 'Add someone'), add);
}

// ---- developer apps (owner only) ----

const SCOPES = ['authentication', 'utility', 'marketing', 'service'];

async function appsPage() {
  if (me.role !== 'owner') {
    page('Developer apps', notice('info', 'Only the business owner manages developer apps and their tokens.'));
    return;
  }
  const apps = await api('GET', '/business/apps');
  const shown = h('div');
  const rows = apps.map((a) => h('tr', { dataset: { app: a.name } },
    h('td', {}, a.name), h('td', {}, a.scopes.join(', ')), h('td', {}, when(a.created_at)),
    h('td', {}, h('div', { class: 'row' },
      act('Rotate token', async () => {
        if (!confirm(`Rotate the token of ${a.name}? The old token stops working at once.`)) return;
        const rotated = await api('POST', `/business/apps/${a.id}/rotate`);
        shown.replaceChildren(copyable(`New token for ${rotated.name}`, rotated.token));
      }),
      act('Delete', async () => {
        if (!confirm(`Delete ${a.name}? Its token stops working at once.`)) return;
        await api('DELETE', `/business/apps/${a.id}`);
        await reload('ok', `${a.name} was deleted.`);
      }, 'danger')))));
  const create = form({ 'aria-label': 'Create an app' }, [
    field('Name', h('input', { type: 'text', name: 'name', maxlength: 100, required: true })),
    h('fieldset', {}, h('legend', {}, 'Scopes'),
      SCOPES.map((sc) => h('label', {}, h('input', { type: 'checkbox', name: 'scopes', value: sc, checked: sc === 'utility' }), sc))),
  ], 'Create the app', async (data, out, f) => {
    const created = await api('POST', '/business/apps', { name: String(data.get('name') || '').trim(), scopes: data.getAll('scopes') });
    f.reset();
    await appsPage();
    main.querySelector('[data-shown]').replaceChildren(copyable(`Token for ${created.name}`, created.token));
  });
  page('Developer apps',
    h('div', { dataset: { shown: '' } }, shown),
    apps.length ? table(['Name', 'Scopes', 'Created', ''], rows) : h('p', { class: 'muted' }, 'No apps yet.'),
    h('h2', {}, 'New app'), create);
}

// ---- webhooks ----

const EVENTS = ['message.sent', 'message.failed', 'grant.revoked', 'follow.created', 'follow.updated', 'follow.deleted', 'broadcast.completed'];

function eventBoxes(selected) {
  return h('fieldset', {}, h('legend', {}, 'Events'),
    EVENTS.map((ev) => h('label', {}, h('input', { type: 'checkbox', name: 'events', value: ev, checked: selected.includes(ev) }), ev)));
}

// A new signing secret made here, in the browser (Web Crypto): `whsec_` + the standard base64
// of 32 random bytes. The service never shows a secret after an endpoint's creation.
function newSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

const GRACES = [[86400, 'for a day (default)'], [3600, 'for an hour'], [0, 'no: stop at once']];

function rotateForm(w) {
  return form({ 'aria-label': `Rotate the secret of ${w.url}` }, [
    field('Keep signing with the old secret too', h('select', { name: 'grace' },
      GRACES.map(([secs, label]) => h('option', { value: secs }, label)))),
    h('p', { class: 'muted' }, 'A new secret is generated in this browser. During the grace each delivery carries both signatures, so you can move your receiver to the new secret before the old one stops.'),
  ], 'Rotate the secret', async (data) => {
    const secret = newSecret();
    await api('POST', `/business/webhooks/${w.id}/rotate-secret`, { secret, grace_seconds: Number(data.get('grace')) });
    await webhooksPage();
    main.querySelector('[data-shown]').replaceChildren(copyable(`New signing secret for ${w.url}`, secret));
    say('ok', 'The secret was rotated.');
  });
}

async function webhooksPage() {
  const hooks = await api('GET', '/business/webhooks');
  const manage = canManage();
  const shown = h('div', { dataset: { shown: '' } });
  const rows = hooks.map((w) => {
    const editor = h('div');
    return h('tr', { dataset: { webhook: w.url } },
      h('td', {}, h('code', { class: 'mono' }, w.url), editor),
      h('td', {}, w.events.join(', ')),
      h('td', {}, w.active ? status('active') : status('paused'),
        w.previous_secret_expires_at
          ? h('div', { class: 'muted' }, `old secret signs too until ${when(w.previous_secret_expires_at)}`)
          : null),
      h('td', {}, h('div', { class: 'row' },
        h('a', { href: `#/deliveries?webhook=${w.id}` }, 'Deliveries'),
        manage ? [
          act('Send a test', async () => {
            await api('POST', `/business/webhooks/${w.id}/test`);
            say('ok', `A test event is on its way to ${w.url}.`);
          }),
          act(w.active ? 'Pause' : 'Resume', async () => {
            await api('PATCH', `/business/webhooks/${w.id}`, { active: !w.active });
            await route();
          }),
          act('Rotate secret', async () => {
            editor.replaceChildren(rotateForm(w));
          }),
          act('Edit', async () => {
            editor.replaceChildren(form({ 'aria-label': `Edit ${w.url}` }, [
              field('URL', h('input', { type: 'url', name: 'url', value: w.url, required: true })),
              eventBoxes(w.events),
            ], 'Save', async (data) => {
              await api('PATCH', `/business/webhooks/${w.id}`, { url: String(data.get('url') || '').trim(), events: data.getAll('events') });
              await reload('ok', 'Saved.');
            }));
          }),
          act('Delete', async () => {
            if (!confirm(`Delete the endpoint ${w.url}?`)) return;
            await api('DELETE', `/business/webhooks/${w.id}`);
            await reload('ok', 'The endpoint was deleted.');
          }, 'danger'),
        ] : null)));
  });
  const create = manage ? form({ 'aria-label': 'Add an endpoint' }, [
    field('URL', h('input', { type: 'url', name: 'url', placeholder: 'https://example.com/webhooks', required: true })),
    eventBoxes(['message.sent', 'message.failed']),
  ], 'Add the endpoint', async (data) => {
    const created = await api('POST', '/business/webhooks', { url: String(data.get('url') || '').trim(), events: data.getAll('events') });
    await webhooksPage();
    main.querySelector('[data-shown]').replaceChildren(copyable(`Signing secret for ${created.url}`, created.secret));
  }) : h('p', { class: 'muted' }, 'Only the owner or an admin can change endpoints.');
  page('Webhooks', shown,
    hooks.length ? table(['Endpoint', 'Events', 'State', ''], rows) : h('p', { class: 'muted' }, 'No endpoints yet.'),
    h('h2', {}, 'New endpoint'), create);
}

function query() {
  const q = location.hash.split('?')[1] || '';
  return new URLSearchParams(q);
}

async function deliveriesPage() {
  const q = query();
  const hooks = await api('GET', '/business/webhooks');
  const webhook = q.get('webhook') || '';
  const params = new URLSearchParams({ limit: '50' });
  if (webhook) params.set('webhook_id', webhook);
  if (q.get('after')) params.set('starting_after', q.get('after'));
  const log = await api('GET', `/business/webhook-deliveries?${params}`);
  const detail = h('div', { 'aria-live': 'polite' });
  const filter = h('label', {}, 'Endpoint',
    h('select', {
      onchange: (e) => { location.hash = e.target.value ? `#/deliveries?webhook=${e.target.value}` : '#/deliveries'; },
    }, h('option', { value: '' }, 'All endpoints'),
    hooks.map((w) => h('option', { value: w.id, selected: w.id === webhook }, w.url))));
  const show = async (id) => {
    const d = await api('GET', `/business/webhook-deliveries/${id}`);
    detail.replaceChildren(h('section', { class: 'card', 'aria-label': 'Delivery' },
      h('h2', {}, `Delivery ${d.id}`),
      h('p', {}, status(d.status), ` ${d.event_type} · ${d.attempts} attempt(s)`),
      d.message_send_id ? h('p', {}, 'Message ', h('code', { class: 'mono' }, d.message_send_id)) : null,
      table(['#', 'At', 'HTTP', 'Error', 'Took'], d.attempts_log.map((a) => h('tr', {},
        h('td', {}, a.attempt), h('td', {}, when(a.at)), h('td', {}, a.http_status ?? ''),
        h('td', {}, a.error || ''), h('td', {}, `${a.duration_ms} ms`)))),
      d.status === 'failed' && canManage() ? act('Retry this delivery', async () => {
        await api('POST', `/business/webhook-deliveries/${id}/retry`);
        await reload('ok', 'The delivery is queued again.');
      }, '') : null));
  };
  const rows = log.deliveries.map((d) => h('tr', { dataset: { delivery: d.event_type } },
    h('td', {}, h('button', { type: 'button', class: 'secondary', onclick: () => show(d.id).catch((e) => say('error', describe(e))) }, d.event_type)),
    h('td', {}, status(d.status)), h('td', {}, d.attempts), h('td', {}, d.last_http_status ?? ''),
    h('td', {}, d.last_error || ''), h('td', {}, when(d.created_at))));
  const last = log.deliveries[log.deliveries.length - 1];
  page('Webhook deliveries', filter,
    log.deliveries.length ? table(['Event', 'Status', 'Attempts', 'Last HTTP', 'Last error', 'Created'], rows)
      : h('p', { class: 'muted' }, 'No deliveries yet.'),
    log.has_more && last ? h('p', {}, h('a', { href: `#/deliveries?${new URLSearchParams({ ...(webhook ? { webhook } : {}), after: last.id })}` }, 'Older deliveries')) : null,
    detail);
}

// ---- events ----

// While the Events page is open, it asks for the events committed after the newest it shows.
let eventsTimer = null;

function stopEventsPolling() {
  if (eventsTimer) clearTimeout(eventsTimer);
  eventsTimer = null;
}

// What an event is about, in a few words.
function eventSummary(e) {
  const d = e.data || {};
  if (e.type.startsWith('message.')) return `message ${d.message_send_id}${d.reason ? ` · ${d.reason}` : ''}${d.broadcast_id ? ' · broadcast' : ''}`;
  if (e.type.startsWith('follow.')) return `user ${d.user_id} · ${d.status}${d.marketing_opt_in ? ' · marketing' : ''}`;
  if (e.type === 'broadcast.completed') return `broadcast ${d.broadcast_id} · ${d.status}`;
  if (e.type === 'grant.revoked') return `app ${d.client_id}`;
  return '';
}

function eventRow(e) {
  return h('tr', { dataset: { event: e.type } },
    h('td', {}, when(e.created_at)), h('td', {}, h('code', { class: 'mono' }, e.type)),
    h('td', {}, eventSummary(e)),
    h('td', {}, h('details', {}, h('summary', {}, 'data'),
      h('pre', { class: 'mono' }, JSON.stringify(e.data, null, 2)), h('p', { class: 'muted' }, `id ${e.id}`))));
}

async function eventsPage() {
  const q = query();
  const type = EVENTS.includes(q.get('type')) ? q.get('type') : '';
  const params = new URLSearchParams({ limit: '50' });
  if (type) params.set('type', type);
  if (q.get('after')) params.set('starting_after', q.get('after'));
  const list = await api('GET', `/business/events?${params}`);
  const filter = h('select', { name: 'type', class: 'narrow', 'aria-label': 'Show events' },
    h('option', { value: '' }, 'all events'),
    EVENTS.map((one) => h('option', { value: one, selected: one === type }, one)));
  filter.addEventListener('change', () => {
    location.hash = filter.value ? `#/events?type=${filter.value}` : '#/events';
  });
  const body = h('tbody', {}, list.events.map(eventRow));
  const empty = h('p', { class: 'muted', hidden: list.events.length > 0 }, type ? `No ${type} events yet.` : 'No events yet.');
  const last = list.events[list.events.length - 1];
  const older = new URLSearchParams({ ...(type ? { type } : {}), ...(last ? { after: last.id } : {}) });
  page('Events',
    h('p', { class: 'muted' }, 'Everything your webhooks can announce, whatever your endpoints subscribe to, newest first. New events appear here as they happen.'),
    h('div', { class: 'row' }, filter),
    h('div', { class: 'table-wrap', hidden: list.events.length === 0 }, h('table', {},
      h('thead', {}, h('tr', {}, ['When', 'Type', 'About', ''].map((t) => h('th', { scope: 'col' }, t)))),
      body)),
    empty,
    list.has_more && last ? h('p', {}, h('a', { href: `#/events?${older}` }, 'Older events')) : null);
  // Only the first page follows what arrives: poll with `after` = the newest shown.
  if (q.get('after')) return;
  let newest = list.events[0] ? list.events[0].id : null;
  // This page's polling ends when the page (or its filter) changes.
  const here = location.hash;
  const poll = async () => {
    eventsTimer = null;
    if (location.hash !== here) return;
    try {
      if (!newest) {
        const first = await api('GET', `/business/events?${new URLSearchParams({ limit: '50', ...(type ? { type } : {}) })}`);
        for (const e of [...first.events].reverse()) body.prepend(eventRow(e));
        if (first.events[0]) newest = first.events[0].id;
      } else {
        let more = true;
        while (more) {
          const fresh = await api('GET', `/business/events?${new URLSearchParams({ after: newest, limit: '200', ...(type ? { type } : {}) })}`);
          for (const e of fresh.events) body.prepend(eventRow(e));
          if (fresh.events.length) newest = fresh.events[fresh.events.length - 1].id;
          more = fresh.has_more;
        }
      }
      if (body.children.length) {
        empty.hidden = true;
        body.closest('.table-wrap').hidden = false;
      }
      if (location.hash === here) eventsTimer = setTimeout(poll, 2000);
    } catch (err) {
      say('error', describe(err));
    }
  };
  eventsTimer = setTimeout(poll, 2000);
}

// ---- messages and usage ----

// Why a message failed, in words (the code stays in the page for support).
const REASON_TEXT = {
  recipient_inactive: 'the recipient\'s account is not active',
  provider_rejected: 'the delivery provider refused it',
  provider_unavailable: 'the delivery provider kept answering with errors',
  provider_timeout: 'the delivery provider did not answer in time',
  provider_unreachable: 'the delivery provider could not be reached',
  consent_withdrawn: 'the recipient unfollowed or withdrew consent before the send time',
  business_not_live: 'the business was no longer live and active at the send time',
  expired: 'it was not sent before it expired',
  canceled: 'canceled before it was sent',
};

function reason(code) {
  if (!code) return '';
  const text = REASON_TEXT[code];
  return text ? h('span', { title: code }, text) : code;
}

// A datetime-local value (the browser's time zone) as RFC 3339 in UTC; empty stays empty.
function instant(value) {
  const text = String(value || '').trim();
  if (!text) return undefined;
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) throw new ApiError(400, 'invalid_request', 'Enter a date and a time.');
  return d.toISOString();
}

// A send's body from the Messages form.
function sendBody(data) {
  const body = {
    to: String(data.get('to') || '').trim(), category: data.get('category'), body: String(data.get('body') || ''),
  };
  const sendAt = instant(data.get('send_at'));
  const expiresAt = instant(data.get('expires_at'));
  if (sendAt) body.send_at = sendAt;
  if (expiresAt) body.expires_at = expiresAt;
  return body;
}

const HISTORY_STATUSES = ['scheduled', 'accepted', 'delivered', 'failed', 'canceled'];

function canCancel(m) {
  return canManage() || (me && m.sent_by && m.sent_by === me.user_id);
}

function cancelButton(m) {
  return act('Cancel', async () => {
    await api('POST', `/business/messages/${m.id}/cancel`, {});
    await reload('ok', `Canceled: the message to ${m.to} will not be sent.`);
  });
}

async function messagesPage() {
  const q = query();
  const params = new URLSearchParams({ limit: '50' });
  if (q.get('after')) params.set('starting_after', q.get('after'));
  const shown = HISTORY_STATUSES.includes(q.get('status')) ? q.get('status') : '';
  if (shown) params.set('status', shown);
  const [history, scheduled] = await Promise.all([
    api('GET', `/business/messages?${params}`),
    api('GET', '/business/messages?status=scheduled&limit=100'),
  ]);
  const send = form({ 'aria-label': 'Send a message' }, [
    field('To (phone number of a follower)', h('input', { type: 'tel', name: 'to', placeholder: '+14155550123', required: true })),
    field('Category', h('select', { name: 'category' }, h('option', { value: 'utility' }, 'utility'), h('option', { value: 'marketing' }, 'marketing'))),
    field('Message', h('textarea', { name: 'body', maxlength: 4096, required: true })),
    h('div', { class: 'filters' },
      field('Send at (optional)', h('input', { type: 'datetime-local', name: 'send_at' })),
      field('Expires at (optional)', h('input', { type: 'datetime-local', name: 'expires_at' }))),
    h('p', { class: 'muted' }, 'Times are in your local time zone. Leave the send time empty to send now; up to 30 days ahead. A message not sent by its expiry is not sent at all. Consent is checked again at the send time.'),
  ], 'Send', async (data, out, f) => {
    const sent = await api('POST', '/business/messages', sendBody(data));
    const sendAt = instant(data.get('send_at'));
    f.reset();
    const later = sendAt && new Date(sendAt) > new Date();
    await reload('ok', later ? `Scheduled for ${when(sendAt)}: message ${sent.id}.` : `Sent: message ${sent.id}.`);
  });
  // Check: the same body, answered as the send would be now; nothing is sent.
  const checked = h('div', { class: 'check-result', 'aria-live': 'polite' });
  const check = act('Check', async () => {
    checked.replaceChildren();
    try {
      await api('POST', '/business/messages/check', sendBody(new FormData(send)));
      checked.replaceChildren(notice('ok', 'This message would be sent now. Nothing was sent.'));
    } catch (err) {
      checked.replaceChildren(notice('error', `It would not be sent: ${describe(err)}`));
    }
  });
  send.querySelector('button[type=submit]').after(check);
  send.querySelector('.form-result').before(checked);
  // Soonest first.
  const soonest = [...scheduled.messages].sort((a, b) => String(a.send_at).localeCompare(String(b.send_at)));
  const waiting = soonest.map((m) => h('tr', { dataset: { scheduled: m.id } },
    h('td', {}, when(m.send_at)), h('td', {}, m.to), h('td', {}, m.category), h('td', {}, m.source),
    h('td', {}, m.expires_at ? when(m.expires_at) : 'never'),
    h('td', {}, canCancel(m) ? cancelButton(m) : h('span', { class: 'muted' }, 'sent by another member'))));
  const filter = h('select', { name: 'status', class: 'narrow', 'aria-label': 'Show messages' },
    h('option', { value: '' }, 'all messages'),
    HISTORY_STATUSES.map((one) => h('option', { value: one, selected: one === shown }, one)));
  filter.addEventListener('change', () => {
    location.hash = filter.value ? `#/messages?status=${filter.value}` : '#/messages';
  });
  const rows = history.messages.map((m) => h('tr', { dataset: { message: m.id } },
    h('td', {}, when(m.created_at)), h('td', {}, m.send_at ? when(m.send_at) : ''),
    h('td', {}, m.to || h('span', { class: 'muted', title: `broadcast ${m.broadcast_id}` }, 'a follower (broadcast)')),
    h('td', {}, m.category), h('td', {}, m.source),
    h('td', {}, status(m.status)), h('td', {}, reason(m.failure_reason))));
  const last = history.messages[history.messages.length - 1];
  const older = new URLSearchParams({ ...(shown ? { status: shown } : {}), ...(last ? { after: last.id } : {}) });
  page('Messages', send,
    h('h2', {}, 'Scheduled'),
    waiting.length ? table(['Send at', 'To', 'Category', 'Source', 'Expires', ''], waiting)
      : h('p', { class: 'muted' }, 'Nothing is scheduled.'),
    scheduled.has_more ? h('p', { class: 'muted' }, 'The next 100 are shown; filter the history by "scheduled" for the rest.') : null,
    h('h2', {}, 'History'),
    h('div', { class: 'row' }, filter),
    history.messages.length ? table(['Accepted', 'Send at', 'To', 'Category', 'Source', 'Status', 'Why it failed'], rows)
      : h('p', { class: 'muted' }, shown ? `No ${shown} messages.` : 'No messages yet.'),
    history.has_more && last ? h('p', {}, h('a', { href: `#/messages?${older}` }, 'Older messages')) : null);
}

// ---- broadcasts ----

// While a broadcast runs, its page reads the list again every second.
let broadcastTimer = null;

function stopBroadcastPolling() {
  if (broadcastTimer) clearTimeout(broadcastTimer);
  broadcastTimer = null;
}

const BROADCAST_STATUSES = ['scheduled', 'running', 'completed', 'canceled'];

function progress(b) {
  const c = b.counts;
  if (c.audience === null || c.audience === undefined) {
    const text = { scheduled: `starts ${when(b.send_at)}`, canceled: 'canceled before it started' }[b.status] || 'starting';
    return h('span', { class: 'muted' }, text);
  }
  const handled = c.accepted + c.skipped + c.not_created;
  const outcomes = c.delivered + c.failed;
  return h('div', { class: 'progress' },
    h('progress', { max: Math.max(c.audience, 1), value: c.audience ? handled : 1, 'aria-label': `${handled} of ${c.audience} followers handled` }),
    h('span', {}, `${c.accepted} sent · ${c.skipped} skipped${c.not_created ? ` · ${c.not_created} not sent` : ''} of ${c.audience}`),
    h('span', { class: 'muted' }, `${c.delivered} delivered · ${c.failed} failed${outcomes < c.accepted ? ` · ${c.accepted - outcomes} on their way` : ''}`));
}

function broadcastRows(list, manage) {
  return list.map((b) => h('tr', { dataset: { broadcast: b.id } },
    h('td', {}, b.name), h('td', {}, b.category), h('td', {}, status(b.status)),
    h('td', {}, when(b.send_at || b.created_at)), h('td', {}, progress(b)),
    h('td', {}, b.completed_at ? when(b.completed_at) : ''),
    h('td', {}, manage && (b.status === 'scheduled' || b.status === 'running')
      ? act('Cancel', async () => {
        if (!confirm(`Cancel the broadcast "${b.name}"? Messages already created still go out.`)) return;
        await api('POST', `/business/broadcasts/${b.id}/cancel`, {});
        await reload('ok', `Canceled: "${b.name}" creates no more messages.`);
      })
      : null)));
}

async function broadcastsPage() {
  const q = query();
  const params = new URLSearchParams({ limit: '20' });
  const shown = BROADCAST_STATUSES.includes(q.get('status')) ? q.get('status') : '';
  if (shown) params.set('status', shown);
  if (q.get('after')) params.set('starting_after', q.get('after'));
  const [list, usage] = await Promise.all([
    api('GET', `/business/broadcasts?${params}`),
    api('GET', '/business/usage'),
  ]);
  const manage = canManage();
  const { active, marketing_opt_in: optedIn } = usage.followers;
  const reach = h('p', { class: 'muted', 'aria-live': 'polite' });
  const category = h('select', { name: 'category' }, h('option', { value: 'utility' }, 'utility'), h('option', { value: 'marketing' }, 'marketing'));
  const rich = h('fieldset', { hidden: true }, h('legend', {}, 'Marketing extras (optional)'),
    field('Title', h('input', { name: 'title', maxlength: 200 })),
    field('Image URL (https)', h('input', { type: 'url', name: 'image_url', placeholder: 'https://' })),
    h('div', { class: 'filters' },
      field('Button label', h('input', { name: 'button_label', maxlength: 40 })),
      field('Button URL (https)', h('input', { type: 'url', name: 'button_url', placeholder: 'https://' }))));
  const showReach = () => {
    const marketing = category.value === 'marketing';
    rich.hidden = !marketing;
    reach.textContent = marketing
      ? `Audience now: ${active} active follower${active === 1 ? '' : 's'}, of whom ${optedIn} opted in to marketing: only they are reached (consent is checked again as each message is created).`
      : `Audience now: ${active} active follower${active === 1 ? '' : 's'}. Whoever unfollows before their message is created is skipped.`;
  };
  category.addEventListener('change', showReach);
  showReach();
  const compose = manage ? form({ 'aria-label': 'New broadcast' }, [
    field('Name (for you; recipients do not see it)', h('input', { name: 'name', maxlength: 100, required: true, placeholder: 'December opening hours' })),
    field('Category', category),
    reach,
    field('Message', h('textarea', { name: 'body', maxlength: 4096, required: true })),
    rich,
    h('div', { class: 'filters' },
      field('Start at (optional)', h('input', { type: 'datetime-local', name: 'send_at' })),
      field('Messages per second (optional)', h('input', { type: 'number', name: 'max_per_second', min: 1, step: 1, placeholder: 'as fast as allowed' }))),
    h('p', { class: 'muted' }, 'Times are in your local time zone; leave the start empty to start now, or pick a time up to 30 days ahead. A broadcast spends your send budget, at most half of it, so your own sends always go first.'),
  ], 'Broadcast', async (data, out, f) => {
    const body = { name: String(data.get('name') || '').trim(), category: data.get('category') };
    const text = String(data.get('body') || '');
    const extras = ['title', 'image_url', 'button_label', 'button_url'].map((k) => String(data.get(k) || '').trim());
    if (body.category === 'marketing' && extras.some(Boolean)) {
      const [title, imageUrl, label, url] = extras;
      body.message_content = { text };
      if (title) body.message_content.title = title;
      if (imageUrl) body.message_content.image_url = imageUrl;
      if (label || url) body.message_content.buttons = [{ label, url }];
    } else {
      body.body = text;
    }
    const sendAt = instant(data.get('send_at'));
    if (sendAt) body.send_at = sendAt;
    const pace = String(data.get('max_per_second') || '').trim();
    if (pace) body.max_per_second = Number(pace);
    const created = await api('POST', '/business/broadcasts', body);
    f.reset();
    await reload('ok', created.status === 'scheduled'
      ? `Scheduled: "${created.name}" starts ${when(created.send_at)}.`
      : `Broadcasting "${created.name}": progress shows below.`);
  }) : h('p', { class: 'muted' }, 'Only the owner or an admin can broadcast.');
  const filter = h('select', { name: 'status', class: 'narrow', 'aria-label': 'Show broadcasts' },
    h('option', { value: '' }, 'all broadcasts'),
    BROADCAST_STATUSES.map((one) => h('option', { value: one, selected: one === shown }, one)));
  filter.addEventListener('change', () => {
    location.hash = filter.value ? `#/broadcasts?status=${filter.value}` : '#/broadcasts';
  });
  const body = h('tbody', {}, broadcastRows(list.broadcasts, manage));
  const last = list.broadcasts[list.broadcasts.length - 1];
  const older = new URLSearchParams({ ...(shown ? { status: shown } : {}), ...(last ? { after: last.id } : {}) });
  page('Broadcasts',
    h('p', { class: 'muted' }, 'One message to everyone who follows your business. Phone numbers are never shown: the history lists broadcast messages without them.'),
    compose,
    h('h2', {}, 'Your broadcasts'),
    h('div', { class: 'row' }, filter),
    list.broadcasts.length
      ? h('div', { class: 'table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, ['Name', 'Category', 'Status', 'Starts', 'Progress', 'Completed', ''].map((t) => h('th', { scope: 'col' }, t)))),
        body))
      : h('p', { class: 'muted' }, shown ? `No ${shown} broadcasts.` : 'No broadcasts yet.'),
    list.has_more && last ? h('p', {}, h('a', { href: `#/broadcasts?${older}` }, 'Older broadcasts')) : null);
  // Progress: while one runs (or waits for its outcomes), read the page's list again.
  const live = (l) => l.broadcasts.some((b) => b.status === 'running' || (b.status !== 'scheduled' && !b.completed_at)
    || (b.status === 'scheduled' && new Date(b.send_at) <= new Date()));
  const poll = async () => {
    broadcastTimer = null;
    if ((location.hash || '').split('?')[0] !== '#/broadcasts') return;
    try {
      const fresh = await api('GET', `/business/broadcasts?${params}`);
      body.replaceChildren(...broadcastRows(fresh.broadcasts, manage));
      if (live(fresh)) broadcastTimer = setTimeout(poll, 1000);
    } catch (err) {
      say('error', describe(err));
    }
  };
  if (live(list)) broadcastTimer = setTimeout(poll, 1000);
}

// ---- audience ----

async function audiencePage() {
  const q = query();
  const params = new URLSearchParams({ limit: '50' });
  for (const name of ['status', 'marketing_opt_in']) {
    if (q.get(name)) params.set(name, q.get(name));
  }
  if (q.get('after')) params.set('starting_after', q.get('after'));
  const [list, usage, daily] = await Promise.all([
    api('GET', `/business/followers?${params}`),
    api('GET', '/business/usage'),
    api('GET', '/business/usage/daily?days=30'),
  ]);
  const detail = h('div', { 'aria-live': 'polite' });
  const filterHash = (changes) => {
    const next = new URLSearchParams();
    for (const name of ['status', 'marketing_opt_in']) {
      const value = name in changes ? changes[name] : q.get(name);
      if (value) next.set(name, value);
    }
    return `#/audience${next.toString() ? `?${next}` : ''}`;
  };
  const select = (label, name, options) => h('label', {}, label,
    h('select', { name, onchange: (e) => { location.hash = filterHash({ [name]: e.target.value }); } },
      options.map(([value, text]) => h('option', { value, selected: (q.get(name) || '') === value }, text))));
  const filters = h('div', { class: 'filters' },
    select('Status', 'status', [['', 'All'], ['active', 'active'], ['unfollowed', 'unfollowed']]),
    select('Marketing consent', 'marketing_opt_in', [['', 'All'], ['true', 'opted in'], ['false', 'not opted in']]));
  const showHistory = async (userId) => {
    const history = await api('GET', `/business/followers/${userId}/history`);
    detail.replaceChildren(h('section', { class: 'card', 'aria-label': 'Consent history' },
      h('h2', {}, 'Consent history'),
      h('p', {}, 'Follower ', h('code', { class: 'mono' }, userId)),
      table(['When', 'Status', 'Marketing consent', 'By'], history.changes.map((c) => h('tr', {},
        h('td', {}, when(c.at)), h('td', {}, status(c.status)),
        h('td', {}, c.marketing_opt_in ? 'opted in' : 'no'), h('td', {}, c.source))))));
  };
  const rows = list.followers.map((f) => h('tr', { dataset: { follower: f.user_id } },
    h('td', {}, h('button', { type: 'button', class: 'secondary mono', title: 'Consent history',
      onclick: () => showHistory(f.user_id).catch((e) => say('error', describe(e))) }, f.user_id)),
    h('td', {}, status(f.status)), h('td', {}, f.marketing_opt_in ? 'opted in' : 'no'),
    h('td', {}, when(f.followed_at)), h('td', {}, when(f.updated_at))));
  const last = list.followers[list.followers.length - 1];
  const results = h('div', { 'aria-live': 'polite' });
  const lookup = form({ 'aria-label': 'Look up numbers' }, [
    field('Phone numbers you hold (one per line or separated by commas, at most 100)',
      h('textarea', { name: 'numbers', rows: 4, required: true, placeholder: '+14155550123' })),
  ], 'Look up', async (data) => {
    const numbers = String(data.get('numbers') || '').split(/[\s,;]+/).map((n) => n.trim()).filter(Boolean);
    const found = await api('POST', '/business/followers/lookup', { phone_numbers: numbers });
    results.replaceChildren(table(['Number', 'Follows', 'Marketing consent'], found.results.map((r) => h('tr', { dataset: { lookup: r.phone_number } },
      h('td', {}, r.phone_number), h('td', {}, r.follows ? 'yes' : 'no'), h('td', {}, r.marketing_opt_in ? 'opted in' : 'no')))));
  });
  const stat = (label, value) => h('div', { class: 'stat' }, h('b', {}, value), label);
  page('Audience',
    h('p', { class: 'muted' }, 'Who follows your business and their marketing consent. Phone numbers are never shown: look up the numbers you already hold below.'),
    h('div', { class: 'stats' },
      stat('active followers', usage.followers.active),
      stat('opted in to marketing', usage.followers.marketing_opt_in)),
    dayChart('Follows and unfollows per day (last 30 days)', daily.days, [
      { label: 'follows', colour: '#1a7f37', value: (d) => d.follows },
      { label: 'unfollows', colour: '#b42318', value: (d) => d.unfollows },
    ]),
    h('h2', {}, 'Followers'),
    filters,
    list.followers.length ? table(['Follower', 'Status', 'Marketing consent', 'Followed', 'Changed'], rows)
      : h('p', { class: 'muted' }, 'No followers match.'),
    list.has_more && last ? h('p', {}, h('a', { href: `${filterHash({})}${filterHash({}).includes('?') ? '&' : '?'}after=${last.user_id}` }, 'Older followers')) : null,
    detail,
    h('h2', {}, 'Look up numbers'), lookup, results);
}

// Charts are drawn at the width they are shown (at most 560 px), never scaled down: their
// text stays 12 px on a phone. Every chart says what it shows in its aria-label.
function chartWidth() {
  return Math.max(260, Math.min(560, Math.floor(main.clientWidth || 560) - 4));
}

function barChart(title, entries) {
  const max = Math.max(1, ...entries.map(([, v]) => v));
  const rowH = 28;
  const width = chartWidth();
  const labelW = Math.min(130, Math.round(width * 0.32));
  const svg = s('svg', { class: 'chart', width, height: entries.length * rowH + 10, viewBox: `0 0 ${width} ${entries.length * rowH + 10}`, role: 'img', 'aria-label': `${title}: ${entries.map(([k, v]) => `${k} ${v}`).join(', ')}` });
  const colours = ['#0a66c2', '#1a7f37', '#b42318', '#9a6700', '#6e40c9'];
  entries.forEach(([label, value], i) => {
    const y = i * rowH + 5;
    const w = Math.round(((width - labelW - 60) * value) / max);
    svg.append(
      s('text', { x: 0, y: y + 17 }, label),
      s('rect', { x: labelW, y, width: Math.max(w, 1), height: rowH - 8, fill: colours[i % colours.length], rx: 3 }),
      s('text', { x: labelW + w + 6, y: y + 17 }, String(value)),
    );
  });
  return h('figure', {}, h('figcaption', {}, h('strong', {}, title)), svg);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
function shortDate(date) {
  const [, m, d] = date.split('-');
  return `${MONTHS[Number(m) - 1]} ${Number(d)}`;
}

// One column per day (oldest left), the series stacked; a legend in the page's own text.
function dayChart(title, days, series) {
  const width = chartWidth();
  const height = 170;
  const left = 36;
  const bottom = 22;
  const top = 8;
  const plotH = height - top - bottom;
  const totals = days.map((d) => series.reduce((sum, one) => sum + one.value(d), 0));
  const max = Math.max(1, ...totals);
  const step = (width - left) / Math.max(1, days.length);
  const barW = Math.max(2, Math.floor(step * 0.7));
  const sums = series.map((one) => `${one.label} ${days.reduce((sum, d) => sum + one.value(d), 0)}`);
  const first = days[0] ? shortDate(days[0].date) : '';
  const last = days.length ? shortDate(days[days.length - 1].date) : '';
  const svg = s('svg', { class: 'chart days', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': `${title}, ${first} to ${last}: ${sums.join(', ')}; at most ${Math.max(0, ...totals)} a day` });
  svg.append(
    s('line', { x1: left, y1: top + plotH, x2: width, y2: top + plotH, stroke: '#d0d7de' }),
    s('text', { x: left - 6, y: top + 10, 'text-anchor': 'end' }, String(max)),
    s('text', { x: left - 6, y: top + plotH, 'text-anchor': 'end' }, '0'),
  );
  // A date under the first column, about every 90 px after it, and under the last one (its
  // label ends at the right edge, so nothing is cut off).
  const every = Math.max(1, Math.ceil(90 / step));
  const lastX = left + (days.length - 1) * step + step / 2;
  days.forEach((d, i) => {
    const x = left + i * step + (step - barW) / 2;
    let y = top + plotH;
    series.forEach((one) => {
      const value = one.value(d);
      if (!value) return;
      const barH = Math.max(1, Math.round((plotH * value) / max));
      y -= barH;
      svg.append(s('rect', { x, y, width: barW, height: barH, fill: one.colour },
        s('title', {}, `${shortDate(d.date)}: ${value} ${one.label}`)));
    });
    const labelX = left + i * step;
    if (i === days.length - 1) {
      svg.append(s('text', { x: Math.min(width - 1, lastX + 12), y: height - 6, 'text-anchor': 'end' }, shortDate(d.date)));
    } else if (i % every === 0 && labelX + 50 < lastX - 40) {
      svg.append(s('text', { x: labelX, y: height - 6 }, shortDate(d.date)));
    }
  });
  const legend = h('ul', { class: 'legend' }, series.map((one) => h('li', {},
    s('svg', { class: 'swatch', width: 12, height: 12, 'aria-hidden': 'true' },
      s('rect', { width: 12, height: 12, rx: 2, fill: one.colour })), one.label)));
  return h('figure', { class: 'day-chart' }, h('figcaption', {}, h('strong', {}, title)), svg, legend);
}

async function usagePage() {
  const [u, daily] = await Promise.all([api('GET', '/business/usage'), api('GET', '/business/usage/daily?days=30')]);
  const m = u.messages;
  const w = u.webhooks;
  const f = u.followers;
  const stat = (label, value) => h('div', { class: 'stat' }, h('b', {}, value), label);
  const categories = ['authentication', 'utility', 'marketing', 'service']
    .map((c) => [c, m.by_category[c] || 0]);
  for (const [k, v] of Object.entries(m.by_category)) {
    if (!categories.some(([c]) => c === k)) categories.push([k, v]);
  }
  const days = daily.days;
  page('Usage',
    h('p', { class: 'muted' }, 'Totals count what is kept; the daily figures (the last 30 days, UTC) count what happened each day and stay after the history is purged.'),
    h('div', { class: 'stats' },
      stat('messages', m.total), stat('delivered', m.delivered), stat('failed', m.failed), stat('pending', m.accepted),
      stat('scheduled', m.scheduled), stat('canceled', m.canceled),
      stat('webhook deliveries', w.deliveries), stat('webhooks succeeded', w.succeeded),
      stat('active followers', f.active), stat('opted in to marketing', f.marketing_opt_in)),
    h('h2', {}, 'The last 30 days'),
    dayChart('Messages per day', days, [
      { label: 'authentication', colour: '#6e40c9', value: (d) => d.messages.authentication },
      { label: 'utility', colour: '#0a66c2', value: (d) => d.messages.utility },
      { label: 'marketing', colour: '#9a6700', value: (d) => d.messages.marketing },
      { label: 'service', colour: '#57606a', value: (d) => d.messages.service },
    ]),
    dayChart('Outcomes per day', days, [
      { label: 'delivered', colour: '#1a7f37', value: (d) => d.delivered },
      { label: 'failed', colour: '#b42318', value: (d) => d.failed },
    ]),
    dayChart('Webhooks per day', days, [
      { label: 'succeeded', colour: '#1a7f37', value: (d) => d.webhooks_succeeded },
      { label: 'failed', colour: '#b42318', value: (d) => d.webhooks_failed },
    ]),
    h('h2', {}, 'Totals'),
    barChart('Messages by category', categories),
    barChart('Outcomes', [['delivered', m.delivered], ['failed', m.failed], ['pending', m.accepted]]),
    barChart('Webhook deliveries', [['succeeded', w.succeeded], ['failed', w.failed], ['pending', w.pending]]));
}

// ---- routing ----

const PAGES = {
  '#/': accountPage,
  '#/team': teamPage,
  '#/apps': appsPage,
  '#/webhooks': webhooksPage,
  '#/deliveries': deliveriesPage,
  '#/events': eventsPage,
  '#/messages': messagesPage,
  '#/broadcasts': broadcastsPage,
  '#/audience': audiencePage,
  '#/usage': usagePage,
  '#/approve': approvePage,
};

const NEEDS_BUSINESS = new Set(['#/team', '#/apps', '#/webhooks', '#/deliveries', '#/events', '#/messages', '#/broadcasts', '#/audience', '#/usage']);

// One page renders at a time, in the order the hash changed, and a render that a newer hash has
// already replaced is skipped: a slow page (the account landing after sign-in, say) never paints
// over the page the user went to next.
let routing = Promise.resolve();
let routeSeq = 0;

function route() {
  const seq = ++routeSeq;
  routing = routing.then(() => (seq === routeSeq ? render() : undefined)).catch(() => {});
  return routing;
}

async function render() {
  stopQr();
  stopBroadcastPolling();
  stopEventsPolling();
  const path = (location.hash || '#/').split('?')[0];
  if (!session.get()) {
    me = null;
    renderHeader();
    loginPage();
    return;
  }
  try {
    if (!me) await loadMe();
    renderHeader();
    if (path === '#/login') {
      location.hash = '#/';
      return;
    }
    if (NEEDS_BUSINESS.has(path) && !me.business_account_id) {
      location.hash = '#/';
      return;
    }
    await (PAGES[path] || accountPage)();
  } catch (err) {
    if (!session.get()) {
      renderHeader();
      loginPage();
      say('error', describe(err));
      return;
    }
    page('Something went wrong', notice('error', describe(err)));
  }
}

window.addEventListener('hashchange', () => {
  flash.replaceChildren();
  route();
});
route();
