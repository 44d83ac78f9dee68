// The business console: plain ES modules, no build step, no external script or style. Every
// page calls the public JSON API (api.js) and says every failure in words (words.js); text
// someone else wrote is always set as text (dom.js).

import { api, session, ApiError } from './api.js';
import { describe } from './words.js';
import {
  h, act, ask, badge, canManage, copyable, field, form, notice, page, say, state, status, flash, table, when, FormProblem,
} from './dom.js';
import { inboxPage, stopInboxPolling, onUnread, pollUnread } from './inbox.js';
import { messagesPage, messagePage, broadcastsPage, stopBroadcastPolling } from './messages.js';
import { webhooksPage, deliveriesPage, deliveryPage, eventsPage, stopEventsPolling } from './webhooks.js';
import { audiencePage, usagePage } from './audience.js';
import { templatesPage, templatePage } from './templates.js';

const nav = document.getElementById('nav');
const who = document.getElementById('who');
const unreadBadge = document.getElementById('unread');

// Renders the current page again, then says what happened: once the sentence shows, the page
// under it is the fresh one (a form being filled in is never replaced after it).
async function reload(kind, text) {
  await route();
  say(kind, text);
}

// ---- who is signed in ----

async function loadMe() {
  state.me = await api('GET', '/me');
  return state.me;
}

// What the navigation offers: a user without a business sees only the account page (where they
// create one); members do not see the owner's pages.
function allowed(needs) {
  const { me } = state;
  if (!needs) return true;
  if (!me || !me.business_account_id) return false;
  if (needs === 'owner') return me.role === 'owner';
  return true;
}

onUnread((n) => {
  unreadBadge.hidden = !n;
  unreadBadge.textContent = n ? String(n) : '';
  unreadBadge.setAttribute('aria-label', n ? `${n} unread` : '');
});

function renderHeader() {
  const signedIn = !!session.get();
  nav.hidden = !signedIn;
  if (!signedIn) {
    who.replaceChildren();
    return;
  }
  const { me } = state;
  who.replaceChildren(
    h('span', {}, me ? `${me.phone_number}${me.role ? ` · ${me.role}` : ''}` : ''),
    act('Sign out', async () => {
      const s = session.get();
      if (s && s.refresh_token) {
        try { await api('POST', '/auth/logout', { refresh_token: s.refresh_token }, { auth: false }); } catch { /* signed out anyway */ }
      }
      session.clear();
      state.me = null;
      location.hash = '#/login';
    }),
  );
  for (const li of nav.querySelectorAll('li')) li.hidden = !allowed(li.dataset.needs);
  const current = `#/${((location.hash || '#/').split('?')[0].replace(/^#\/?/, '').split('/')[0])}`;
  for (const a of nav.querySelectorAll('a')) {
    if (a.getAttribute('href') === current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

// The unread count in the navigation, read every few seconds on every page (the Inbox reads it
// every second itself).
const UNREAD_POLL_MS = 5000;
setInterval(() => {
  const { me } = state;
  if (!session.get() || !me || !me.business_account_id || document.visibilityState !== 'visible') return;
  if ((location.hash || '').startsWith('#/inbox')) return;
  pollUnread().catch(() => { /* the next page load says what is wrong */ });
}, UNREAD_POLL_MS);

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
  if (!state.me.business_account_id) {
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
    why.push(notice('info', 'This business is in the sandbox: it cannot send messages to followers yet. An operator of this service makes it live: give them the account id below. Until then your team can try conversations by writing to the business from the app.'));
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
    h('td', {}, m.role === 'owner' ? badge('owner') : manage
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
      if (!await ask(`Remove ${m.phone_number} from the team?`, {
        detail: 'They lose access to the console at once, and their conversations are unassigned.', yes: 'Remove', no: 'Keep them', danger: true,
      })) return;
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

// The one token on screen: the newest made (created or rotated), shown once. Any later create,
// rotate or delete replaces or removes it, so a token on screen always works.
let freshToken = null;

async function appsPage() {
  if (state.me.role !== 'owner') {
    page('Developer apps', notice('info', 'Only the business owner manages developer apps and their tokens.'));
    return;
  }
  const apps = await api('GET', '/business/apps');
  const token = freshToken;
  freshToken = null;
  const shown = h('div', { dataset: { shown: '' } },
    token && apps.some((a) => a.id === token.appId) ? copyable(token.label, token.token, { 'data-app-token': token.appId }) : null);
  const rows = apps.map((a) => h('tr', { dataset: { app: a.name } },
    h('td', {}, a.name), h('td', {}, a.scopes.join(', ')), h('td', {}, when(a.created_at)),
    h('td', {}, h('div', { class: 'row' },
      act('Rotate token', async () => {
        if (!await ask(`Rotate the token of ${a.name}?`, {
          detail: 'The old token stops working at once; the new one shows here once.', yes: 'Rotate', no: 'Keep the old one',
        })) return;
        const rotated = await api('POST', `/business/apps/${a.id}/rotate`);
        freshToken = { appId: a.id, label: `New token for ${rotated.name}`, token: rotated.token };
        await reload('ok', `The token of ${rotated.name} was rotated: the old one no longer works.`);
      }),
      act('Delete', async () => {
        if (!await ask(`Delete ${a.name}?`, { detail: 'Its token stops working at once.', yes: 'Delete', no: 'Keep it', danger: true })) return;
        await api('DELETE', `/business/apps/${a.id}`);
        await reload('ok', `${a.name} was deleted.`);
      }, 'danger')))));
  const create = form({ 'aria-label': 'Create an app' }, [
    field('Name', h('input', { type: 'text', name: 'name', maxlength: 100, required: true })),
    h('fieldset', {}, h('legend', {}, 'Scopes'),
      SCOPES.map((sc) => h('label', {}, h('input', { type: 'checkbox', name: 'scopes', value: sc, checked: sc === 'utility' }), sc))),
  ], 'Create the app', async (data) => {
    const name = String(data.get('name') || '').trim();
    if (!name) throw new FormProblem('Give the app a name first.');
    const created = await api('POST', '/business/apps', { name, scopes: data.getAll('scopes') });
    freshToken = { appId: created.id, label: `Token for ${created.name}`, token: created.token };
    await reload('ok', `${created.name} was created.`);
  }, { name: 'The name', scopes: 'The scopes' });
  page('Developer apps',
    shown,
    apps.length ? table(['Name', 'Scopes', 'Created', ''], rows) : h('p', { class: 'muted' }, 'No apps yet.'),
    h('h2', {}, 'New app'), create);
}

// ---- routing ----

// Each page by the first part of its path (`#/inbox/ID` is the Inbox's conversation page), and
// what it needs: a business, or the owner.
const PAGES = {
  '': [accountPage],
  inbox: [inboxPage, 'business'],
  team: [teamPage, 'business'],
  apps: [appsPage, 'owner'],
  webhooks: [() => webhooksPage(reload), 'business'],
  deliveries: [deliveriesPage, 'business'],
  delivery: [() => deliveryPage(reload), 'business'],
  events: [eventsPage, 'business'],
  messages: [() => messagesPage(reload), 'business'],
  message: [() => messagePage(reload), 'business'],
  broadcasts: [() => broadcastsPage(reload), 'business'],
  templates: [() => (location.hash.split('?')[0].split('/')[2] ? templatePage(reload) : templatesPage(reload)), 'business'],
  audience: [audiencePage, 'business'],
  usage: [usagePage, 'business'],
  approve: [approvePage, 'business'],
};

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
  stopInboxPolling();
  const name = (location.hash || '#/').split('?')[0].replace(/^#\/?/, '').split('/')[0];
  if (!session.get()) {
    state.me = null;
    renderHeader();
    loginPage();
    return;
  }
  try {
    if (!state.me) await loadMe();
    renderHeader();
    if (state.me.business_account_id && name !== 'inbox') pollUnread().catch(() => { /* shown by the page */ });
    if (name === 'login') {
      location.hash = '#/';
      return;
    }
    const [show, needs] = PAGES[name] || PAGES[''];
    if (!allowed(needs)) {
      if (state.me.business_account_id) {
        page('Not for your role', notice('info', 'Only the business owner can use this page.'));
      } else {
        location.hash = '#/';
      }
      return;
    }
    await show();
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
