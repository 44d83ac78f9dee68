// Webhooks: endpoints with their delivery health and last seven days (edit and rotate in their
// own panel; a banner for a failing one, recovering its failed deliveries in one click), the
// deliveries log, one delivery with what it sent and what the receiver answered, and the events
// list.

import { api } from './api.js';
import { COLOURS, dayChart } from './charts.js';
import {
  h, act, ask, canManage, copyable, every, field, form, listHash, main, notice, page, pathParts, query, say,
  status, table, userText, when,
} from './dom.js';

export const EVENTS = ['message.sent', 'message.failed', 'message.received', 'message.read', 'grant.revoked',
  'follow.created', 'follow.updated', 'follow.deleted', 'broadcast.completed', 'webhook.failing', 'webhook.recovered',
  'user.redacted'];

const EVENT_TEXT = {
  'message.sent': 'a message was delivered',
  'message.failed': 'a message failed',
  'message.received': 'a follower wrote to you',
  'message.read': 'a follower read your messages',
  'grant.revoked': 'a user withdrew an app\'s access',
  'follow.created': 'someone followed you',
  'follow.updated': 'a follower changed their consent',
  'follow.deleted': 'someone unfollowed you',
  'broadcast.completed': 'a broadcast ended',
  'webhook.failing': 'another endpoint of yours is failing',
  'webhook.recovered': 'a failing endpoint of yours answers again',
  'user.redacted': 'a user you knew was erased: delete your copies',
};

const WEBHOOK_LABELS = { url: 'The address', events: 'The events' };

function eventBoxes(selected) {
  return h('fieldset', {}, h('legend', {}, 'Events'),
    EVENTS.map((ev) => h('label', {}, h('input', { type: 'checkbox', name: 'events', value: ev, checked: selected.includes(ev) }),
      h('span', {}, h('code', { class: 'mono' }, ev), ` (${EVENT_TEXT[ev]})`))));
}

// A new signing secret made here, in the browser (Web Crypto): `whsec_` + the standard base64
// of 32 random bytes. The service never shows a secret after an endpoint's creation.
function newSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

const GRACES = [[86400, 'for a day (default)'], [3600, 'for an hour'], [0, 'no: stop at once']];

const DAY_MS = 86400 * 1000;
// How far back `recover` reaches (the service refuses more), and how long before its turn an
// endpoint's failing deliveries may have been made (their retries span about 31 minutes).
const RECOVER_DAYS = 7;
const RETRIES_SPAN_MS = 3600 * 1000;

// An endpoint's health in a few words: its state, and for a failure what it answered.
function healthCell(w) {
  const health = w.health || { state: 'healthy', consecutive_failures: 0 };
  const last = health.last_failure;
  const answered = last ? (last.http_status ? `HTTP ${last.http_status}` : (last.error || 'no answer')) : '';
  return h('div', { class: 'health', dataset: { health: health.state } },
    status(health.state),
    health.state === 'failing' || (health.state === 'paused' && health.failing_since)
      ? h('div', { class: 'muted' }, `${health.consecutive_failures} failed attempt${health.consecutive_failures === 1 ? '' : 's'} in a row since ${when(health.failing_since)}${answered ? ` · last: ${answered}` : ''}`)
      : null,
    health.state === 'healthy' && health.consecutive_failures > 0
      ? h('div', { class: 'muted' }, `${health.consecutive_failures} failed in a row${answered ? ` · last: ${answered}` : ''}`)
      : null,
    health.last_success_at ? h('div', { class: 'muted' }, `last success ${when(health.last_success_at)}`) : null);
}

// A failing endpoint's banner: since when, what it answers, and (owner, admin) one click to
// queue again every delivery that failed since, as far back as `recover` reaches.
function failingBanner(w, manage, reload) {
  const health = w.health;
  const since = new Date(health.failing_since).getTime();
  const oldest = Date.now() - RECOVER_DAYS * DAY_MS + 5 * 60 * 1000;
  const from = new Date(Math.max(since - RETRIES_SPAN_MS, oldest));
  const tooOld = since - RETRIES_SPAN_MS < oldest;
  const last = health.last_failure;
  const answered = last ? ` Its last answer: ${last.http_status ? `HTTP ${last.http_status}` : 'none'}${last.error ? ` (${last.error})` : ''}.` : '';
  return h('div', { class: 'notice failing', role: 'alert', dataset: { failing: w.url } },
    h('p', {}, h('strong', {}, 'Failing: '), userText(w.url, 'span', { class: 'mono' }),
      ` has failed ${health.consecutive_failures} attempt${health.consecutive_failures === 1 ? '' : 's'} in a row since ${when(health.failing_since)}.${answered}`,
      ' It stays active: new events keep going to it, and each keeps retrying for about 31 minutes before it fails.'),
    tooOld ? h('p', {}, `It began failing more than ${RECOVER_DAYS} days ago: recovering reaches back ${RECOVER_DAYS} days only, to ${when(from.toISOString())}.`) : null,
    manage && w.active ? act('Recover its failed deliveries', async () => {
      const result = await api('POST', `/business/webhooks/${w.id}/recover`, { since: from.toISOString() });
      await reload('ok', result.requeued
        ? `${result.requeued} failed deliver${result.requeued === 1 ? 'y is' : 'ies are'} queued again for ${w.url}.`
        : `No failed deliveries to queue again for ${w.url} since ${when(from.toISOString())}.`);
    }) : null);
}

export async function webhooksPage(reload) {
  const hooks = await api('GET', '/business/webhooks');
  const stats = await Promise.all(hooks.map((w) => api('GET', `/business/webhooks/${w.id}/stats?days=7`)));
  const manage = canManage();
  const shown = h('div', { dataset: { shown: '' } });
  const panel = h('div', { class: 'panel-slot' });
  // Edit and Rotate open here, one at a time, each with its own Cancel.
  const openPanel = (title, body) => {
    const close = act('Cancel', async () => { panel.replaceChildren(); });
    panel.replaceChildren(h('section', { class: 'card panel', 'aria-label': title },
      h('h2', {}, title), body, h('div', { class: 'row' }, close)));
    panel.scrollIntoView({ block: 'nearest' });
    const first = panel.querySelector('input, select, textarea');
    if (first) first.focus();
  };
  const rows = hooks.map((w) => h('tr', { dataset: { webhook: w.url } },
    h('td', {}, userText(w.url, 'span', { class: 'mono' })),
    h('td', {}, w.events.join(', ')),
    h('td', {}, healthCell(w),
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
          await reload('ok', w.active ? 'Paused: deliveries wait until you resume it.' : 'Resumed.');
        }),
        act('Rotate secret', async () => {
          openPanel(`Rotate the secret of ${w.url}`, form({ 'aria-label': `Rotate the secret of ${w.url}` }, [
            field('Keep signing with the old secret too', h('select', { name: 'grace' },
              GRACES.map(([secs, label]) => h('option', { value: secs }, label)))),
            h('p', { class: 'muted' }, 'A new secret is generated in this browser. During the grace each delivery carries both signatures, so you can move your receiver to the new secret before the old one stops.'),
          ], 'Rotate the secret', async (data) => {
            const secret = newSecret();
            await api('POST', `/business/webhooks/${w.id}/rotate-secret`, { secret, grace_seconds: Number(data.get('grace')) });
            await reload('ok', 'The secret was rotated.');
            main.querySelector('[data-shown]').replaceChildren(copyable(`New signing secret for ${w.url}`, secret));
          }));
        }),
        act('Edit', async () => {
          openPanel(`Edit ${w.url}`, form({ 'aria-label': `Edit ${w.url}` }, [
            field('URL', h('input', { type: 'url', name: 'url', value: w.url, required: true })),
            eventBoxes(w.events),
          ], 'Save', async (data) => {
            await api('PATCH', `/business/webhooks/${w.id}`, { url: String(data.get('url') || '').trim(), events: data.getAll('events') });
            await reload('ok', 'Saved.');
          }, WEBHOOK_LABELS));
        }),
        act('Delete', async () => {
          if (!await ask(`Delete the endpoint ${w.url}?`, {
            detail: 'It receives nothing more: deliveries still waiting for it end as failed. Its deliveries log stays.', yes: 'Delete it', no: 'Keep it', danger: true,
          })) return;
          await api('DELETE', `/business/webhooks/${w.id}`);
          await reload('ok', 'The endpoint was deleted.');
        }, 'danger'),
      ] : null))));
  const create = manage ? form({ 'aria-label': 'Add an endpoint' }, [
    field('URL', h('input', { type: 'url', name: 'url', placeholder: 'https://example.com/webhooks', required: true })),
    eventBoxes(['message.sent', 'message.failed']),
  ], 'Add the endpoint', async (data) => {
    const created = await api('POST', '/business/webhooks', { url: String(data.get('url') || '').trim(), events: data.getAll('events') });
    await reload('ok', 'The endpoint was added.');
    main.querySelector('[data-shown]').replaceChildren(copyable(`Signing secret for ${created.url}`, created.secret));
  }, WEBHOOK_LABELS) : h('p', { class: 'muted' }, 'Only the owner or an admin can change endpoints.');
  const banners = hooks.filter((w) => w.health && w.health.state === 'failing').map((w) => failingBanner(w, manage, reload));
  const charts = hooks.map((w, i) => h('div', { class: 'chart-slot', dataset: { stats: w.url } },
    dayChart(`Attempts to ${w.url}`, stats[i].days, [
      { label: 'succeeded', colour: COLOURS.succeeded, value: (d) => d.succeeded_attempts },
      { label: 'failed', colour: COLOURS.failed, value: (d) => d.failed_attempts },
    ]),
    stats[i].days.some((d) => d.exhausted)
      ? h('p', { class: 'muted' }, `Deliveries that ran out of attempts: ${stats[i].days.reduce((n, d) => n + d.exhausted, 0)}.`)
      : null));
  page('Webhooks', shown, ...banners,
    hooks.length ? table(['Endpoint', 'Events', 'Health', ''], rows) : h('p', { class: 'muted' }, 'No endpoints yet.'),
    panel,
    hooks.length ? h('section', { 'aria-label': 'Last 7 days' }, h('h2', {}, 'Last 7 days'),
      h('p', { class: 'muted' }, 'Attempts per day (UTC) by each endpoint: a failed attempt is any that was not answered 2xx. The service never pauses an endpoint that fails: only you do.'),
      ...charts) : null,
    h('h2', {}, 'New endpoint'), create);
}

const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'];

/** The endpoint `webhookId` names, by its URL (an endpoint deleted since says so). */
export function endpointOf(hooks, webhookId) {
  const w = hooks.find((one) => one.id === webhookId);
  return w ? userText(w.url, 'span', { class: 'mono' }) : h('span', { class: 'muted' }, 'a deleted endpoint');
}

export async function deliveriesPage() {
  const q = query();
  const hooks = await api('GET', '/business/webhooks');
  const webhook = q.get('webhook') || '';
  const shown = DELIVERY_STATUSES.includes(q.get('status')) ? q.get('status') : '';
  const params = new URLSearchParams({ limit: '50' });
  if (webhook) params.set('webhook_id', webhook);
  if (shown) params.set('status', shown);
  if (q.get('after')) params.set('starting_after', q.get('after'));
  const log = await api('GET', `/business/webhook-deliveries?${params}`);
  const hashWith = (changes) => listHash('#/deliveries', ['webhook', 'status'], changes);
  const filters = h('div', { class: 'filters' },
    field('Endpoint', h('select', { name: 'webhook', onchange: (e) => { location.hash = hashWith({ webhook: e.target.value }); } },
      h('option', { value: '' }, 'All endpoints'),
      hooks.map((w) => h('option', { value: w.id, selected: w.id === webhook }, w.url)))),
    field('Status', h('select', { name: 'status', onchange: (e) => { location.hash = hashWith({ status: e.target.value }); } },
      h('option', { value: '' }, 'Any status'),
      DELIVERY_STATUSES.map((one) => h('option', { value: one, selected: one === shown }, one)))));
  const rows = log.deliveries.map((d) => h('tr', { dataset: { delivery: d.event_type } },
    h('td', {}, h('a', { href: `#/delivery/${d.id}` }, d.event_type)),
    h('td', {}, endpointOf(hooks, d.webhook_id)),
    h('td', {}, status(d.status)), h('td', {}, d.attempts),
    h('td', {}, d.last_http_status ?? ''), h('td', {}, when(d.created_at))));
  const last = log.deliveries[log.deliveries.length - 1];
  page('Webhook deliveries', filters,
    log.deliveries.length ? table(['Event', 'Endpoint', 'Status', 'Attempts', 'Last HTTP', 'Created'], rows)
      : h('p', { class: 'muted' }, webhook || shown ? 'No deliveries match.' : 'No deliveries yet.'),
    log.has_more && last ? h('p', {}, h('a', { href: hashWith({ after: last.id }) }, 'Older deliveries')) : null);
}

export async function deliveryPage(reload) {
  const id = pathParts()[1];
  const [d, hooks] = await Promise.all([
    api('GET', `/business/webhook-deliveries/${encodeURIComponent(id)}`),
    api('GET', '/business/webhooks'),
  ]);
  const attempts = d.attempts_log.map((a) => h('tr', { dataset: { attempt: String(a.attempt) } },
    h('td', {}, a.attempt), h('td', {}, when(a.at)),
    h('td', {}, a.http_status ?? h('span', { class: 'muted' }, 'no answer')),
    h('td', {}, a.error ? userText(a.error, 'span') : ''),
    h('td', {}, `${a.duration_ms} ms`),
    h('td', {}, a.response_body === null || a.response_body === undefined
      ? h('span', { class: 'muted' }, 'none')
      : userText(a.response_body, 'pre', { class: 'response mono' }))));
  const next = d.status === 'retrying' || d.status === 'pending'
    ? (d.next_attempt_at ? `Next attempt ${when(d.next_attempt_at)}.` : 'The next attempt is on its way.')
    : d.status === 'failed' ? 'No more attempts: every retry failed.' : 'Delivered.';
  page('Delivery',
    h('p', {}, h('a', { href: `#/deliveries?webhook=${d.webhook_id}` }, '← Deliveries')),
    h('section', { class: 'card', 'aria-label': 'Delivery' },
      h('p', {}, h('code', { class: 'mono' }, d.event_type), ' to ', endpointOf(hooks, d.webhook_id)),
      h('p', {}, status(d.status), ` ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}. ${next}`),
      d.message_send_id ? h('p', {}, h('a', { href: `#/message/${d.message_send_id}` }, 'The message it announces')) : null,
      d.status === 'failed' && canManage() ? act('Send it again', async () => {
        await api('POST', `/business/webhook-deliveries/${id}/retry`);
        await reload('ok', 'The delivery is queued again.');
      }, '') : null),
    h('h2', {}, 'Attempts'),
    attempts.length ? table(['#', 'At', 'HTTP', 'Error', 'Took', 'Receiver answered'], attempts)
      : h('p', { class: 'muted' }, 'Not attempted yet.'),
    h('h2', {}, 'What was sent'),
    d.payload === null || d.payload === undefined
      ? h('p', { class: 'muted' }, 'Nothing yet: the payload shows after the first attempt.')
      : userText(JSON.stringify(d.payload, null, 2), 'pre', { class: 'payload mono', 'aria-label': 'Payload' }));
}

// ---- events ----

let stopEvents = null;
export function stopEventsPolling() {
  if (stopEvents) stopEvents();
  stopEvents = null;
}

// What an event is about, in a few words.
function eventSummary(e) {
  const d = e.data || {};
  if (e.type === 'message.received') return `a follower wrote (message ${d.sequence} of the conversation)`;
  if (e.type === 'message.read') return 'a follower read your messages';
  if (e.type.startsWith('message.')) return `message ${d.message_send_id}${d.reason ? ` · ${d.reason}` : ''}${d.broadcast_id ? ' · broadcast' : ''}${d.conversation_id ? ' · conversation' : ''}`;
  if (e.type.startsWith('follow.')) return `user ${d.user_id} · ${d.status}${d.marketing_opt_in ? ' · marketing' : ''}`;
  if (e.type === 'broadcast.completed') return `broadcast ${d.broadcast_id} · ${d.status}`;
  if (e.type === 'grant.revoked') return `app ${d.client_id}`;
  if (e.type === 'webhook.failing') return `${d.url} · ${d.consecutive_failures} failed in a row`;
  if (e.type === 'webhook.recovered') return `${d.url} · answers again`;
  if (e.type === 'user.redacted') return `user ${d.user_id} · erased`;
  return '';
}

const EVENT_HEADERS = ['When', 'Type', 'About', ''];

function eventRow(e) {
  const tr = h('tr', { dataset: { event: e.type } },
    h('td', {}, when(e.created_at)), h('td', {}, h('code', { class: 'mono' }, e.type)),
    h('td', {}, eventSummary(e)),
    h('td', {}, h('details', {}, h('summary', {}, 'data'),
      userText(JSON.stringify(e.data, null, 2), 'pre', { class: 'mono' }), h('p', { class: 'muted' }, `id ${e.id}`))));
  [...tr.children].forEach((td, i) => { if (EVENT_HEADERS[i]) td.dataset.label = EVENT_HEADERS[i]; });
  return tr;
}

export async function eventsPage() {
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
    notice('info', 'Which sends announce their outcome (message.sent, message.failed): messages sent by an app, the messages of a broadcast, and messages sent in a conversation from the Inbox. A single message sent from this console\'s Messages page announces none; its outcome shows in the history.'),
    h('div', { class: 'row' }, filter),
    h('div', { class: 'table-wrap', hidden: list.events.length === 0 }, h('table', { class: 'stack' },
      h('thead', {}, h('tr', {}, EVENT_HEADERS.map((t) => h('th', { scope: 'col' }, t)))),
      body)),
    empty,
    list.has_more && last ? h('p', {}, h('a', { href: `#/events?${older}` }, 'Older events')) : null);
  // Only the first page follows what arrives: poll with `after` = the newest shown.
  if (q.get('after')) return;
  let newest = list.events[0] ? list.events[0].id : null;
  stopEvents = every(2000, location.hash, async () => {
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
  });
}
