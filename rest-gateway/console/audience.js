// The audience (followers, the evidence of their consent where it was asked for, look-ups of
// numbers the business holds, the consent wording) and usage (totals and the last 30 days).

import { api } from './api.js';
import { barChart, dayChart, COLOURS } from './charts.js';
import { h, act, canManage, field, form, listHash, notice, page, query, status, table, when } from './dom.js';

const SOURCE_TEXT = { user: 'the follower', operator: 'an operator of this service' };

// Opens (or closes) a follower's consent evidence in a row right under `row`: every change, each
// opt-in with the wording it was given under, and the marketing messages sent under it.
async function toggleHistory(row, userId, columns) {
  const next = row.nextElementSibling;
  if (next && next.classList.contains('history-row')) {
    next.remove();
    return;
  }
  const evidence = await api('GET', `/business/followers/${userId}/evidence`);
  const wording = (c) => {
    if (!c.opt_in) return '';
    if (!c.consent_text) return 'no wording was set then';
    return h('span', {}, `version ${c.consent_text.version}${c.user_named_version ? ' (shown to them)' : ''}: `,
      h('q', { class: 'user-text' }, c.consent_text.text));
  };
  const messages = evidence.marketing_messages;
  const detail = h('tr', { class: 'history-row' }, h('td', { colspan: columns },
    h('section', { class: 'card', 'aria-label': 'Consent evidence' },
      h('h3', {}, 'Consent evidence'),
      h('p', { class: 'muted' }, 'Follower ', h('code', { class: 'mono' }, userId)),
      table(['When', 'Status', 'Marketing consent', 'By', 'Wording agreed to'], evidence.changes.map((c) => h('tr', {},
        h('td', {}, when(c.at)), h('td', {}, status(c.status)),
        h('td', {}, c.marketing_opt_in ? 'opted in' : 'no'), h('td', {}, SOURCE_TEXT[c.source] || c.source),
        h('td', {}, wording(c))))),
      h('h4', {}, 'Marketing messages sent to them (still kept)'),
      messages.length ? table(['Sent', 'Message', 'Outcome'], messages.map((m) => h('tr', {},
        h('td', {}, when(m.created_at)), h('td', {}, h('a', { href: `#/messages/${m.id}` }, h('code', { class: 'mono' }, m.id))),
        h('td', {}, status(m.status)))))
        : h('p', { class: 'muted' }, 'None.'))));
  row.after(detail);
}

// The consent wording in force, and (owner, admin) a form that makes a new version.
function wordingSection(current) {
  const shown = h('div', { 'aria-live': 'polite' });
  const show = (t) => shown.replaceChildren(t
    ? h('p', {}, `Version ${t.version}, since ${when(t.created_at)}: `, h('q', { class: 'user-text' }, t.text))
    : h('p', { class: 'muted' }, 'No wording set yet: opt-ins are recorded as given without one.'));
  show(current);
  const edit = canManage() ? form({ 'aria-label': 'Set the consent wording' }, [
    field('New wording (a new version; earlier ones stay as evidence)',
      h('textarea', { name: 'text', rows: 3, maxlength: 2000, required: true }, current ? current.text : '')),
  ], 'Save as a new version', async (data, out) => {
    const saved = await api('PUT', '/business/consent-text', { text: String(data.get('text') || '') });
    show(saved);
    out.replaceChildren(notice('ok', `Version ${saved.version} is in force.`));
  }, { text: 'The wording' }) : null;
  return [h('h2', {}, 'Consent wording'),
    h('p', { class: 'muted' }, 'What followers agree to when they opt in to your marketing. Apps show it beside the opt-in; each opt-in records the version in force.'),
    shown, edit];
}

function historyButton(userId, columns, label) {
  return act(label, async (b) => toggleHistory(b.closest('tr'), userId, columns), 'secondary', { title: 'Consent evidence' });
}

export async function audiencePage() {
  const q = query();
  const params = new URLSearchParams({ limit: '50' });
  for (const name of ['status', 'marketing_opt_in']) {
    if (q.get(name)) params.set(name, q.get(name));
  }
  if (q.get('after')) params.set('starting_after', q.get('after'));
  const [list, usage, daily, wording] = await Promise.all([
    api('GET', `/business/followers?${params}`),
    api('GET', '/business/usage'),
    api('GET', '/business/usage/daily?days=30'),
    api('GET', '/business/consent-text'),
  ]);
  const filterHash = (changes) => listHash('#/audience', ['status', 'marketing_opt_in'], changes);
  const select = (label, name, options) => field(label,
    h('select', { name, onchange: (e) => { location.hash = filterHash({ [name]: e.target.value }); } },
      options.map(([value, text]) => h('option', { value, selected: (q.get(name) || '') === value }, text))));
  const filters = h('div', { class: 'filters' },
    select('Status', 'status', [['', 'All'], ['active', 'active'], ['unfollowed', 'unfollowed']]),
    select('Marketing consent', 'marketing_opt_in', [['', 'All'], ['true', 'opted in'], ['false', 'not opted in']]));
  const rows = list.followers.map((f) => h('tr', { dataset: { follower: f.user_id } },
    h('td', {}, historyButton(f.user_id, 5, h('code', { class: 'mono' }, f.user_id))),
    h('td', {}, status(f.status)), h('td', {}, f.marketing_opt_in ? 'opted in' : 'no'),
    h('td', {}, when(f.followed_at)), h('td', {}, when(f.updated_at))));
  const last = list.followers[list.followers.length - 1];
  const results = h('div', { 'aria-live': 'polite' });
  const lookup = form({ 'aria-label': 'Look up numbers' }, [
    field('Phone numbers you hold (one per line or separated by commas, at most 100)',
      h('textarea', { name: 'numbers', rows: 4, required: true, placeholder: '+14155550123' })),
  ], 'Look up', async (data) => {
    results.replaceChildren();
    const numbers = String(data.get('numbers') || '').split(/[\s,;]+/).map((n) => n.trim()).filter(Boolean);
    const found = await api('POST', '/business/followers/lookup', { phone_numbers: numbers });
    results.replaceChildren(table(['Number', 'Follows', 'Marketing consent', ''], found.results.map((r) => h('tr', { dataset: { lookup: r.phone_number } },
      h('td', {}, r.phone_number), h('td', {}, r.follows ? 'yes' : 'no'), h('td', {}, r.marketing_opt_in ? 'opted in' : 'no'),
      h('td', {}, r.user_id ? historyButton(r.user_id, 4, 'Consent evidence') : null)))));
  }, { phone_numbers: 'Each number' });
  const stat = (label, value) => h('div', { class: 'stat' }, h('b', {}, value), label);
  page('Audience',
    h('p', { class: 'muted' }, 'Who follows your business and their marketing consent. Phone numbers are never shown: look up the numbers you already hold below. Select a follower to see the evidence of their consent.'),
    h('div', { class: 'stats' },
      stat('active followers', usage.followers.active),
      stat('opted in to marketing', usage.followers.marketing_opt_in)),
    dayChart('Follows and unfollows per day (last 30 days)', daily.days, [
      { label: 'follows', colour: COLOURS.follows, value: (d) => d.follows },
      { label: 'unfollows', colour: COLOURS.unfollows, value: (d) => d.unfollows },
    ]),
    h('h2', {}, 'Followers'),
    filters,
    list.followers.length ? table(['Follower', 'Status', 'Marketing consent', 'Followed', 'Changed'], rows)
      : h('p', { class: 'muted' }, 'No followers match.'),
    list.has_more && last ? h('p', {}, h('a', { href: filterHash({ after: last.user_id }) }, 'Older followers')) : null,
    h('h2', {}, 'Look up numbers'), lookup, results,
    ...wordingSection(wording));
}

export async function usagePage() {
  const [u, daily] = await Promise.all([api('GET', '/business/usage'), api('GET', '/business/usage/daily?days=30')]);
  const m = u.messages;
  const w = u.webhooks;
  const f = u.followers;
  const stat = (label, value, kind = '') => h('div', { class: `stat ${kind}` }, h('b', {}, value), label);
  const categories = ['authentication', 'utility', 'marketing', 'service']
    .map((c) => [c, m.by_category[c] || 0, COLOURS[c]]);
  for (const [k, v] of Object.entries(m.by_category)) {
    if (!categories.some(([c]) => c === k)) categories.push([k, v, COLOURS.pending]);
  }
  const days = daily.days;
  page('Usage',
    h('p', { class: 'muted' }, 'Totals count what is kept; the daily figures (the last 30 days, UTC) count what happened each day and stay after the history is purged. Green is always success and red always failure.'),
    h('div', { class: 'stats' },
      stat('messages', m.total), stat('delivered', m.delivered, 'ok'), stat('failed', m.failed, 'bad'), stat('pending', m.accepted),
      stat('scheduled', m.scheduled), stat('canceled', m.canceled),
      stat('webhook deliveries', w.deliveries), stat('webhooks succeeded', w.succeeded, 'ok'),
      stat('active followers', f.active), stat('opted in to marketing', f.marketing_opt_in)),
    h('h2', {}, 'The last 30 days'),
    dayChart('Messages per day', days, [
      { label: 'authentication', colour: COLOURS.authentication, value: (d) => d.messages.authentication },
      { label: 'utility', colour: COLOURS.utility, value: (d) => d.messages.utility },
      { label: 'marketing', colour: COLOURS.marketing, value: (d) => d.messages.marketing },
      { label: 'service', colour: COLOURS.service, value: (d) => d.messages.service },
    ]),
    dayChart('Messages from followers per day', days, [
      { label: 'received', colour: COLOURS.received, value: (d) => d.received || 0 },
    ]),
    dayChart('Outcomes per day', days, [
      { label: 'delivered', colour: COLOURS.delivered, value: (d) => d.delivered },
      { label: 'failed', colour: COLOURS.failed, value: (d) => d.failed },
    ]),
    dayChart('Webhooks per day', days, [
      { label: 'succeeded', colour: COLOURS.succeeded, value: (d) => d.webhooks_succeeded },
      { label: 'failed', colour: COLOURS.failed, value: (d) => d.webhooks_failed },
    ]),
    h('h2', {}, 'Totals'),
    barChart('Messages by category', categories),
    barChart('Outcomes', [['delivered', m.delivered, COLOURS.delivered], ['failed', m.failed, COLOURS.failed], ['pending', m.accepted, COLOURS.pending]]),
    barChart('Webhook deliveries', [['succeeded', w.succeeded, COLOURS.succeeded], ['failed', w.failed, COLOURS.failed], ['pending', w.pending, COLOURS.pending]]));
}
