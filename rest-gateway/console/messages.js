// Messages: send one (checked first if you like), what is scheduled, the history with what was
// sent, one message with its outcome and webhook deliveries; broadcasts with a review step.

import { api } from './api.js';
import { describe, REASON_TEXT } from './words.js';
import { endpointOf } from './webhooks.js';
import { templatePicker } from './templates.js';
import {
  h, act, ask, canManage, contentText, every, field, form, future, notice, page, pathParts, query,
  state, status, table, labelCells, trimmed, userText, when, FormProblem,
} from './dom.js';

// Labels of the send form's fields, for the service's validation details.
const SEND_LABELS = {
  to: 'The phone number', body: 'The message', category: 'The category',
  send_at: 'The send time', expires_at: 'The expiry', name: 'The name',
  max_per_second: 'Messages per second', 'message_content.text': 'The message',
  'message_content.title': 'The title', 'message_content.image_url': 'The image address',
  'message_content.buttons[0].label': 'The button label', 'message_content.buttons[0].url': 'The button address',
};

/** Why a message failed, in words (the code as a tooltip, for support). */
export function reason(code) {
  if (!code) return '';
  return h('span', { title: code }, REASON_TEXT[code] || 'it could not be delivered');
}

/** A message's content as the follower sees it: title, text, image and button, all as text. */
export function preview(m) {
  const c = m.message_content;
  if (!c || typeof m.body === 'string') {
    return h('div', { class: 'preview', dataset: { preview: '' } }, userText(m.body ?? contentText(m), 'p'));
  }
  if (typeof c.code === 'string') {
    return h('div', { class: 'preview', dataset: { preview: '' } }, h('p', {}, `A sign-in code (${c.code})`));
  }
  const button = c.buttons && c.buttons[0];
  return h('div', { class: 'preview', dataset: { preview: '' } },
    c.title ? userText(c.title, 'p', { class: 'title' }) : null,
    c.image_url ? h('p', { class: 'muted' }, 'Image: ', userText(c.image_url, 'span', { class: 'mono' })) : null,
    userText(c.text, 'p'),
    button ? h('p', { class: 'button-preview' }, userText(button.label, 'span'), ' → ', userText(button.url, 'span', { class: 'mono' })) : null);
}

// A send's body from the Messages form (its own words, or the picker's template); a time in the
// past is refused here, in words.
function sendBody(data, picker) {
  const to = String(data.get('to') || '').trim();
  const text = String(data.get('body') || '');
  if (!to) throw new FormProblem('Write the phone number of the follower first.');
  const template = picker.value();
  if (!template && !text.trim()) throw new FormProblem('Write a message first, or choose a template.');
  const body = { to, category: data.get('category'), ...(template ? { template } : { body: text }) };
  const sendAt = future(data.get('send_at'), 'The send time', 'Leave it empty to send now, or pick a later time.');
  const expiresAt = future(data.get('expires_at'), 'The expiry', 'Leave it empty, or pick a later time.');
  if (sendAt && expiresAt && expiresAt <= sendAt) throw new FormProblem('The expiry must be after the send time.');
  if (sendAt) body.send_at = sendAt;
  if (expiresAt) body.expires_at = expiresAt;
  return body;
}

/** A template's wording with `values` in place of its placeholders (a review shows it so). */
function fillIn(wording, values) {
  return String(wording || '').replace(/\{\{([a-z0-9_]{1,64})\}\}/g, (all, name) => (name in values ? values[name] : all));
}

const HISTORY_STATUSES = ['scheduled', 'accepted', 'delivered', 'failed', 'canceled'];

function canCancel(m) {
  return canManage() || (state.me && m.sent_by && m.sent_by === state.me.user_id);
}

function recipient(m) {
  if (m.to) return m.to;
  if (m.conversation_id) return h('a', { href: `#/inbox/${m.conversation_id}` }, 'a conversation');
  if (m.broadcast_id) return h('span', { class: 'muted' }, 'a follower (broadcast)');
  return h('span', { class: 'muted' }, 'a follower');
}

function cancelButton(m, after) {
  return act('Cancel', async () => {
    const who = m.to || 'the follower';
    if (!await ask(`Cancel the message to ${who}?`, {
      detail: `It was to be sent ${when(m.send_at)}. A canceled message is not sent at all.`,
      yes: 'Cancel the message', no: 'Keep it', danger: true,
    })) return;
    await api('POST', `/business/messages/${m.id}/cancel`, {});
    await after(`Canceled: the message to ${who} will not be sent.`);
  }, 'danger');
}

export async function messagesPage(reload) {
  const q = query();
  const params = new URLSearchParams({ limit: '50' });
  if (q.get('after')) params.set('starting_after', q.get('after'));
  const shown = HISTORY_STATUSES.includes(q.get('status')) ? q.get('status') : '';
  if (shown) params.set('status', shown);
  const [history, scheduled] = await Promise.all([
    api('GET', `/business/messages?${params}`),
    api('GET', '/business/messages?status=scheduled&limit=100'),
  ]);
  const category = h('select', { name: 'category' }, h('option', { value: 'utility' }, 'utility'), h('option', { value: 'marketing' }, 'marketing'));
  const message = field('Message', h('textarea', { name: 'body', maxlength: 4096, required: true }));
  const picker = templatePicker(() => category.value, [message]);
  category.addEventListener('change', picker.refresh);
  const send = form({ 'aria-label': 'Send a message' }, [
    field('To (phone number of a follower)', h('input', { type: 'tel', name: 'to', placeholder: '+14155550123', required: true })),
    field('Category', category),
    picker.element,
    message,
    h('div', { class: 'filters' },
      field('Send at (optional)', h('input', { type: 'datetime-local', name: 'send_at' })),
      field('Expires at (optional)', h('input', { type: 'datetime-local', name: 'expires_at' }))),
    h('p', { class: 'muted' }, 'Times are in your local time zone. Leave the send time empty to send now; up to 30 days ahead. A message not sent by its expiry is not sent at all. Consent is checked again at the send time.'),
  ], 'Send', async (data, out, f) => {
    const body = sendBody(data, picker);
    const sent = await api('POST', '/business/messages', body);
    f.reset();
    picker.refresh();
    await reload('ok', body.send_at ? `Scheduled for ${when(body.send_at)}.` : `Sent: message ${sent.id}. Its outcome shows in the history below.`);
  }, SEND_LABELS);
  // Check: the same body, answered as the send would be now; nothing is sent.
  const checked = h('div', { class: 'check-result', 'aria-live': 'polite' });
  const check = act('Check', async () => {
    try {
      await api('POST', '/business/messages/check', sendBody(new FormData(send), picker));
      checked.replaceChildren(notice('ok', 'This message would be sent now. Nothing was sent.'));
    } catch (err) {
      checked.replaceChildren(notice('error', `It would not be sent: ${describe(err, SEND_LABELS)}`));
    }
  });
  send.querySelector('button[type=submit]').after(check);
  send.querySelector('.form-result').before(checked);
  // Soonest first.
  const soonest = [...scheduled.messages].sort((a, b) => String(a.send_at).localeCompare(String(b.send_at)));
  const waiting = soonest.map((m) => h('tr', { dataset: { scheduled: m.id } },
    h('td', {}, h('a', { href: `#/message/${m.id}` }, when(m.send_at))), h('td', {}, recipient(m)),
    h('td', {}, userText(trimmed(contentText(m)), 'span', { class: 'content' })),
    h('td', {}, m.category), h('td', {}, m.expires_at ? when(m.expires_at) : 'never'),
    h('td', {}, canCancel(m) ? cancelButton(m, (text) => reload('ok', text)) : h('span', { class: 'muted' }, 'sent by another member'))));
  const filter = h('select', { name: 'status', class: 'narrow', 'aria-label': 'Show messages' },
    h('option', { value: '' }, 'all messages'),
    HISTORY_STATUSES.map((one) => h('option', { value: one, selected: one === shown }, one)));
  filter.addEventListener('change', () => {
    location.hash = filter.value ? `#/messages?status=${filter.value}` : '#/messages';
  });
  const rows = history.messages.map((m) => h('tr', { dataset: { message: m.id } },
    h('td', {}, h('a', { href: `#/message/${m.id}` }, when(m.created_at))),
    h('td', {}, recipient(m)),
    h('td', {}, userText(trimmed(contentText(m)), 'span', { class: 'content' })),
    h('td', {}, m.category), h('td', {}, status(m.status)), h('td', {}, reason(m.failure_reason))));
  const last = history.messages[history.messages.length - 1];
  const older = new URLSearchParams({ ...(shown ? { status: shown } : {}), ...(last ? { after: last.id } : {}) });
  page('Messages', send,
    h('h2', {}, 'Scheduled'),
    waiting.length ? table(['Send at', 'To', 'Message', 'Category', 'Expires', ''], waiting)
      : h('p', { class: 'muted' }, 'Nothing is scheduled.'),
    scheduled.has_more ? h('p', { class: 'muted' }, 'The next 100 are shown; filter the history by "scheduled" for the rest.') : null,
    h('h2', {}, 'History'),
    h('div', { class: 'row' }, filter),
    history.messages.length ? table(['Accepted', 'To', 'Message', 'Category', 'Status', 'Why it failed'], rows)
      : h('p', { class: 'muted' }, shown ? `No ${shown} messages.` : 'No messages yet.'),
    history.has_more && last ? h('p', {}, h('a', { href: `#/messages?${older}` }, 'Older messages')) : null);
}

// ---- one message ----

const SOURCE_TEXT = {
  console: 'this console', app: 'an app', broadcast: 'a broadcast', scheduled: 'a schedule',
};

export async function messagePage(reload) {
  const id = pathParts()[1];
  const [m, deliveries, hooks] = await Promise.all([
    api('GET', `/business/messages/${encodeURIComponent(id)}`),
    api('GET', `/business/webhook-deliveries?message_send_id=${encodeURIComponent(id)}&limit=50`),
    api('GET', '/business/webhooks'),
  ]);
  const times = [
    ['Accepted', m.created_at],
    m.send_at ? [m.status === 'scheduled' ? 'To be sent' : 'Send time', m.send_at] : null,
    m.expires_at ? ['Expires', m.expires_at] : null,
    m.completed_at ? [m.status === 'delivered' ? 'Delivered' : m.status === 'failed' ? 'Failed' : 'Ended', m.completed_at] : null,
  ].filter(Boolean);
  const events = deliveries.deliveries.map((d) => h('tr', { dataset: { delivery: d.id } },
    h('td', {}, h('a', { href: `#/delivery/${d.id}` }, d.event_type)),
    h('td', {}, endpointOf(hooks, d.webhook_id)), h('td', {}, status(d.status)), h('td', {}, when(d.created_at))));
  page('Message',
    h('p', {}, h('a', { href: '#/messages' }, '← Messages')),
    h('section', { class: 'card', 'aria-label': 'What was sent' },
      h('h2', {}, 'What was sent'),
      preview(m),
      h('p', { class: 'muted' }, `A ${m.category} message to `, recipient(m), `, from ${SOURCE_TEXT[m.source] || m.source}.`)),
    h('section', { class: 'card', 'aria-label': 'Outcome' },
      h('h2', {}, 'Outcome'),
      h('p', {}, status(m.status), m.failure_reason ? [' ', reason(m.failure_reason)] : null),
      h('dl', { class: 'times' }, times.map(([k, v]) => [h('dt', {}, k), h('dd', {}, when(v))])),
      m.status === 'scheduled' && canCancel(m) ? cancelButton(m, (text) => reload('ok', text)) : null),
    h('section', { class: 'card', 'aria-label': 'Webhook deliveries' },
      h('h2', {}, 'Webhook deliveries'),
      events.length ? table(['Event', 'Endpoint', 'Status', 'Created'], events)
        : h('p', { class: 'muted' }, m.source === 'console' && !m.conversation_id
          ? 'Messages sent from this console announce no events: only messages sent by an app, a broadcast or a conversation do.'
          : 'No webhook delivery announces this message yet.')));
}

// ---- broadcasts ----

let stopBroadcastPoll = null;
export function stopBroadcastPolling() {
  if (stopBroadcastPoll) stopBroadcastPoll();
  stopBroadcastPoll = null;
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

const BROADCAST_HEADERS = ['Name', 'Message', 'Category', 'Status', 'Starts', 'Progress', ''];

function broadcastRows(list, manage, reload) {
  return list.map((b) => h('tr', { dataset: { broadcast: b.id } },
    h('td', {}, userText(b.name, 'span')),
    h('td', {}, userText(trimmed(contentText(b)), 'span', { class: 'content' })),
    h('td', {}, b.category), h('td', {}, status(b.status)),
    h('td', {}, when(b.send_at || b.created_at)), h('td', {}, progress(b)),
    h('td', {}, manage && (b.status === 'scheduled' || b.status === 'running')
      ? act('Cancel', async () => {
        if (!await ask(`Cancel the broadcast "${b.name}"?`, {
          detail: 'It creates no more messages; messages already created still go out.',
          yes: 'Cancel the broadcast', no: 'Keep it', danger: true,
        })) return;
        await api('POST', `/business/broadcasts/${b.id}/cancel`, {});
        await reload('ok', `Canceled: "${b.name}" creates no more messages.`);
      }, 'danger')
      : null)));
}

// The broadcast the form describes (its own words, or the picker's template), or a sentence
// saying what is missing.
function broadcastBody(data, picker) {
  const name = String(data.get('name') || '').trim();
  const text = String(data.get('body') || '');
  if (!name) throw new FormProblem('Give the broadcast a name first (only your team sees it).');
  if (name.length > 100) throw new FormProblem('The name can be at most 100 characters.');
  const template = picker.value();
  if (!template && !text.trim()) throw new FormProblem('Write the message first, or choose a template.');
  const body = { name, category: data.get('category') };
  const extras = ['title', 'image_url', 'button_label', 'button_url'].map((k) => String(data.get(k) || '').trim());
  if (template) {
    body.template = template;
  } else if (body.category === 'marketing' && extras.some(Boolean)) {
    const [title, imageUrl, label, url] = extras;
    if (Boolean(label) !== Boolean(url)) throw new FormProblem('A button needs both a label and an address.');
    body.message_content = { text };
    if (title) body.message_content.title = title;
    if (imageUrl) body.message_content.image_url = imageUrl;
    if (label) body.message_content.buttons = [{ label, url }];
  } else {
    body.body = text;
  }
  const sendAt = future(data.get('send_at'), 'The start time', 'Leave it empty to start now, or pick a later time.');
  if (sendAt) body.send_at = sendAt;
  const pace = String(data.get('max_per_second') || '').trim();
  if (pace) {
    const n = Number(pace);
    if (!Number.isInteger(n) || n < 1) throw new FormProblem('Messages per second must be a whole number, at least 1.');
    body.max_per_second = n;
  }
  return body;
}

export async function broadcastsPage(reload) {
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
    field('Title', h('input', { type: 'text', name: 'title', maxlength: 200 })),
    field('Image URL (https)', h('input', { type: 'url', name: 'image_url', placeholder: 'https://' })),
    h('div', { class: 'filters' },
      field('Button label', h('input', { type: 'text', name: 'button_label', maxlength: 40 })),
      field('Button URL (https)', h('input', { type: 'url', name: 'button_url', placeholder: 'https://' }))));
  const message = field('Message', h('textarea', { name: 'body', maxlength: 4096, required: true }));
  const picker = templatePicker(() => category.value, [message], () => {
    rich.hidden = category.value !== 'marketing' || !!picker.chosen();
  });
  const showReach = () => {
    const marketing = category.value === 'marketing';
    picker.refresh();
    reach.textContent = marketing
      ? `Audience now: ${active} active follower${active === 1 ? '' : 's'}, of whom ${optedIn} opted in to marketing: only they are reached (consent is checked again as each message is created).`
      : `Audience now: ${active} active follower${active === 1 ? '' : 's'}. Whoever unfollows before their message is created is skipped.`;
  };
  category.addEventListener('change', showReach);
  showReach();
  const review = h('div', { 'aria-live': 'polite' });
  let compose = null;
  if (manage) {
    compose = form({ 'aria-label': 'New broadcast' }, [
      field('Name (for you; recipients do not see it)', h('input', { type: 'text', name: 'name', maxlength: 100, required: true, placeholder: 'December opening hours' })),
      field('Category', category),
      reach,
      picker.element,
      message,
      rich,
      h('div', { class: 'filters' },
        field('Start at (optional)', h('input', { type: 'datetime-local', name: 'send_at' })),
        field('Messages per second (optional)', h('input', { type: 'number', name: 'max_per_second', min: 1, step: 1, placeholder: 'as fast as allowed' }))),
      h('p', { class: 'muted' }, 'Times are in your local time zone; leave the start empty to start now, or pick a time up to 30 days ahead. A broadcast spends your send budget, at most half of it, so your own sends always go first. You see it once more before it goes.'),
    ], 'Review the broadcast', async (data) => {
      const body = broadcastBody(data, picker);
      // How many it reaches now, read again at the review.
      const fresh = (await api('GET', '/business/usage')).followers;
      const count = body.category === 'marketing' ? fresh.marketing_opt_in : fresh.active;
      const who = body.category === 'marketing'
        ? `${count} follower${count === 1 ? '' : 's'} who opted in to marketing`
        : `${count} follower${count === 1 ? '' : 's'}`;
      const goLabel = body.send_at ? `Schedule it for ${who}` : `Send it to ${who} now`;
      compose.hidden = true;
      review.replaceChildren(h('section', { class: 'card review', 'aria-label': 'Review the broadcast' },
        h('h2', {}, 'Review the broadcast'),
        h('dl', { class: 'times' },
          h('dt', {}, 'Name'), h('dd', {}, userText(body.name, 'span')),
          h('dt', {}, 'Category'), h('dd', {}, body.category),
          h('dt', {}, 'Reaches now'), h('dd', { dataset: { reach: String(count) } }, who),
          h('dt', {}, 'When'), h('dd', {}, body.send_at ? `starts ${when(body.send_at)}` : 'now, as soon as you confirm'),
          body.max_per_second ? [h('dt', {}, 'Pace'), h('dd', {}, `${body.max_per_second} a second at most`)] : null),
        h('p', {}, body.template
          ? `What each follower will see (the template ${body.template.name} in their language; in its default language):`
          : 'What each follower will see:'),
        preview(body.template ? { body: fillIn(picker.wording(), body.template.variables) } : body),
        count === 0 ? notice('info', 'Nobody would receive it now: it reaches whoever follows (and, for marketing, opted in) as its messages are created.') : null,
        h('div', { class: 'row' },
          act(goLabel, async () => {
            const created = await api('POST', '/business/broadcasts', body);
            await reload('ok', created.status === 'scheduled'
              ? `Scheduled: "${created.name}" starts ${when(created.send_at)}.`
              : `Broadcasting "${created.name}": progress shows below.`);
          }, ''),
          act('Back to edit', async () => {
            review.replaceChildren();
            compose.hidden = false;
          }))));
      review.querySelector('button').focus();
    }, SEND_LABELS);
  }
  const filter = h('select', { name: 'status', class: 'narrow', 'aria-label': 'Show broadcasts' },
    h('option', { value: '' }, 'all broadcasts'),
    BROADCAST_STATUSES.map((one) => h('option', { value: one, selected: one === shown }, one)));
  filter.addEventListener('change', () => {
    location.hash = filter.value ? `#/broadcasts?status=${filter.value}` : '#/broadcasts';
  });
  const body = h('tbody', {}, broadcastRows(list.broadcasts, manage, reload));
  labelCells(BROADCAST_HEADERS, body);
  const last = list.broadcasts[list.broadcasts.length - 1];
  const older = new URLSearchParams({ ...(shown ? { status: shown } : {}), ...(last ? { after: last.id } : {}) });
  page('Broadcasts',
    h('p', { class: 'muted' }, 'One message to everyone who follows your business. Phone numbers are never shown: the history lists broadcast messages without them.'),
    manage ? [compose, review] : h('p', { class: 'muted' }, 'Only the owner or an admin can broadcast.'),
    h('h2', {}, 'Your broadcasts'),
    h('div', { class: 'row' }, filter),
    list.broadcasts.length
      ? h('div', { class: 'table-wrap' }, h('table', { class: 'stack' },
        h('thead', {}, h('tr', {}, BROADCAST_HEADERS.map((t) => h('th', { scope: 'col' }, t)))),
        body))
      : h('p', { class: 'muted' }, shown ? `No ${shown} broadcasts.` : 'No broadcasts yet.'),
    list.has_more && last ? h('p', {}, h('a', { href: `#/broadcasts?${older}` }, 'Older broadcasts')) : null);
  // Progress: while one runs (or waits for its outcomes), read the page's list again.
  const live = (l) => l.broadcasts.some((b) => b.status === 'running' || (b.status !== 'scheduled' && !b.completed_at)
    || (b.status === 'scheduled' && new Date(b.send_at) <= new Date()));
  if (live(list)) {
    stopBroadcastPoll = every(1000, location.hash, async () => {
      const fresh = await api('GET', `/business/broadcasts?${params}`);
      body.replaceChildren(...broadcastRows(fresh.broadcasts, manage, reload));
      labelCells(BROADCAST_HEADERS, body);
      if (!live(fresh)) stopBroadcastPolling();
    });
  }
}
