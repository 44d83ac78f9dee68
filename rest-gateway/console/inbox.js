// The Inbox: the business's conversations with the users who wrote to it, and each thread with
// its reply box. Both pages read the API again every second while they are open, so a new user
// message shows within about a second without a reload.

import { api } from './api.js';
import { describe } from './words.js';
import { templatePicker } from './templates.js';
import {
  h, act, ask, badge, canManage, clearNotices, duration, every, field, form, listHash, notice, page, pathParts,
  query, say, state, status, trimmed, userText, when, FormProblem, contentText,
} from './dom.js';

/** How often an open Inbox page asks again (the Inbox promises a new message within 2 s). */
const POLL_MS = 1000;

let stopPolling = null;

export function stopInboxPolling() {
  if (stopPolling) stopPolling();
  stopPolling = null;
}

// The navigation's unread count, set by whoever read it last.
const unreadListeners = new Set();
export function onUnread(fn) { unreadListeners.add(fn); }
export function setUnread(n) { for (const fn of unreadListeners) fn(n); }

/** Reads how many conversations have unread messages (one indexed read) for the navigation. */
export async function pollUnread() {
  const l = await api('GET', '/business/conversations?limit=1');
  setUnread(l.unread_conversations);
}

/** What the team calls this person: its label, else the name they chose, else a neutral name. */
export function conversationName(c) {
  if (c.label) return c.label;
  if (c.display_name) return c.display_name;
  return `Follower ${c.user_id.slice(0, 8)}`;
}

/** "open, closes in 3 h" or "closed" (the window for free replies). */
export function windowState(c, now = Date.now()) {
  const closes = new Date(c.window_expires_at).getTime();
  return closes > now ? `open, closes in ${duration(closes - now)}` : 'closed';
}

function windowOpen(c) {
  return new Date(c.window_expires_at).getTime() > Date.now();
}

// The team, read with each page (assignees are named by phone number, to the team only).
function teamMembers() {
  return api('GET', '/business/team');
}

function assigneeName(userId, members) {
  if (!userId) return 'nobody';
  if (state.me && userId === state.me.user_id) return 'you';
  const m = members.find((one) => one.user_id === userId);
  return m ? m.phone_number : 'a former member';
}

const FILTERS = [
  ['', 'All conversations'], ['unread', 'Unread'], ['mine', 'Assigned to me'], ['unassigned', 'Unassigned'],
];
const STATUSES = [['', 'Open and closed'], ['open', 'Open'], ['closed', 'Closed']];

function listParams(q) {
  const params = new URLSearchParams({ limit: '50' });
  const show = q.get('show') || '';
  if (show === 'unread') params.set('unread', 'true');
  if (show === 'mine') params.set('assigned_to', 'me');
  if (show === 'unassigned') params.set('assigned_to', 'none');
  if (q.get('status')) params.set('status', q.get('status'));
  if (q.get('after')) params.set('starting_after', q.get('after'));
  return params;
}

function conversationItem(c, members) {
  const name = conversationName(c);
  return h('li', { class: `conversation${c.unread ? ' unread' : ''}`, dataset: { conversation: c.id } },
    h('a', { href: `#/inbox/${c.id}` },
      h('span', { class: 'who-line' },
        userText(name, 'bdi', { class: 'name' }),
        c.label && c.display_name ? userText(c.display_name, 'bdi', { class: 'muted' }) : null,
        c.unread ? badge(`${c.unread} unread`, 'count') : null),
      h('span', { class: 'meta' },
        h('span', { dataset: { window: '' } }, `Window ${windowState(c)}`),
        h('span', {}, `Assigned to ${assigneeName(c.assigned_to, members)}`),
        c.status === 'closed' ? status('closed') : null,
        c.blocked ? status('blocked') : null,
        !c.follows ? h('span', { class: 'muted' }, 'no longer follows') : null,
        h('span', { class: 'muted' }, `Last message ${when(c.last_message_at)}`))));
}

export async function inboxPage() {
  const parts = pathParts();
  if (parts[1]) {
    await conversationPage(parts[1]);
    return;
  }
  const q = query();
  const params = listParams(q);
  const [list, members] = await Promise.all([
    api('GET', `/business/conversations?${params}`),
    teamMembers(),
  ]);
  setUnread(list.unread_conversations);
  const hashWith = (changes) => listHash('#/inbox', ['show', 'status'], changes);
  const select = (label, name, options) => field(label,
    h('select', { name, onchange: (e) => { location.hash = hashWith({ [name]: e.target.value }); } },
      options.map(([value, text]) => h('option', { value, selected: (q.get(name) || '') === value }, text))));
  const items = h('ul', { class: 'conversations', 'aria-label': 'Conversations' });
  const empty = h('p', { class: 'muted' });
  const summary = h('p', { class: 'muted', 'aria-live': 'polite' });
  const show = (l) => {
    items.replaceChildren(...l.conversations.map((c) => conversationItem(c, members)));
    empty.hidden = l.conversations.length > 0;
    empty.textContent = q.get('show') || q.get('status')
      ? 'No conversation matches.'
      : 'No conversations yet. When a follower writes to your business, the conversation shows here.';
    summary.textContent = l.unread_conversations
      ? `${l.unread_conversations} conversation${l.unread_conversations === 1 ? ' has' : 's have'} unread messages.`
      : 'Everything is read.';
  };
  show(list);
  const last = list.conversations[list.conversations.length - 1];
  page('Inbox',
    h('p', { class: 'muted' }, 'Followers who wrote to your business, newest activity first. You can answer in your own words for 24 hours after their last message; after that, a utility message (or a marketing message to someone who opted in) still goes.'),
    h('div', { class: 'filters' }, select('Show', 'show', FILTERS), select('Status', 'status', STATUSES)),
    summary, items, empty,
    list.has_more && last ? h('p', {}, h('a', { href: hashWith({ after: last.id }) }, 'Older conversations')) : null);
  if (q.get('after')) return;
  let seen = JSON.stringify(list);
  stopPolling = every(POLL_MS, location.hash, async () => {
    const fresh = await api('GET', `/business/conversations?${params}`);
    setUnread(fresh.unread_conversations);
    const text = JSON.stringify(fresh);
    if (text !== seen) {
      seen = text;
      show(fresh);
    } else {
      // The windows' "closes in" moves with the clock.
      for (const c of fresh.conversations) {
        const el = items.querySelector(`[data-conversation="${c.id}"] [data-window]`);
        if (el) el.textContent = `Window ${windowState(c)}`;
      }
    }
  });
}

// ---- one conversation ----

function outcome(m) {
  if (m.direction !== 'outbound') return null;
  const parts = [status(m.status === 'accepted' ? 'on its way' : m.status)];
  if (m.read_at) parts.push(h('span', { class: 'read', dataset: { read: '' } }, `Read ${when(m.read_at)}`));
  parts.push(h('a', { href: `#/message/${m.id}` }, 'Details'));
  return h('span', { class: 'outcome' }, parts);
}

function entry(m, byId) {
  const inbound = m.direction === 'inbound';
  const quoted = m.reply_to ? byId.get(m.reply_to) : null;
  return h('li', { class: `bubble ${inbound ? 'inbound' : 'outbound'}`, dataset: { entry: m.id, direction: m.direction } },
    h('span', { class: 'by' }, inbound ? 'They wrote' : `You sent${m.category && m.category !== 'service' ? ` (${m.category})` : ''}`,
      ' · ', h('time', { datetime: m.at }, when(m.at))),
    m.reply_to ? h('span', { class: 'quote muted' }, 'In reply to ',
      quoted ? userText(`“${trimmed(contentText(quoted), 60)}”`, 'bdi') : 'an earlier message') : null,
    userText(contentText(m), 'p', { class: 'text' }),
    m.message_content && m.message_content.buttons && m.message_content.buttons.length
      ? h('p', { class: 'muted' }, 'Button: ', userText(m.message_content.buttons[0].label, 'bdi'))
      : null,
    inbound
      ? (m.read_at ? h('span', { class: 'muted' }, `Seen by your team ${when(m.read_at)}`) : h('span', { class: 'muted' }, 'New'))
      : outcome(m));
}

// An Idempotency-Key: a random UUID (getRandomValues works on plain http too, randomUUID not).
function newKey() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

async function conversationPage(id) {
  const [c, thread, members] = await Promise.all([
    api('GET', `/business/conversations/${encodeURIComponent(id)}`),
    api('GET', `/business/conversations/${encodeURIComponent(id)}/messages?limit=50`),
    teamMembers(),
  ]);
  const here = location.hash;
  const manage = canManage();
  let current = c;
  let messages = thread.messages;

  const list = h('ol', { class: 'thread', 'aria-label': 'Messages', 'aria-live': 'polite' });
  const showThread = () => {
    const byId = new Map(messages.map((m) => [m.id, m]));
    list.replaceChildren(...[...messages].reverse().map((m) => entry(m, byId)));
  };
  showThread();

  // The business's read mark follows what the page shows.
  const markRead = async () => {
    const newest = messages.find((m) => m.direction === 'inbound');
    if (!newest || !current.unread) return;
    await api('POST', `/business/conversations/${encodeURIComponent(id)}/read`, { up_to: newest.id });
    current = { ...current, unread: 0 };
    await pollUnread();
  };

  const facts = h('div', { class: 'facts' });
  const reply = h('div', { class: 'reply' });
  const heading = h('span', {});
  const showFacts = () => {
    heading.replaceChildren(userText(conversationName(current), 'bdi'));
    document.title = `${conversationName(current)} · Inbox · Business console`;
    facts.replaceChildren(...[
      h('span', { dataset: { window: '' } }, `Window ${windowState(current)}`),
      status(current.status),
      current.blocked ? status('blocked') : null,
      current.display_name && current.label ? h('span', {}, 'Calls themselves ', userText(current.display_name, 'bdi')) : null,
      h('span', {}, current.follows ? (current.marketing_opt_in ? 'Follows you, opted in to marketing' : 'Follows you') : 'No longer follows you'),
      h('span', {}, `Assigned to ${assigneeName(current.assigned_to, members)}`),
    ].filter(Boolean));
  };
  showFacts();

  const update = async (body, said) => {
    current = await api('PATCH', `/business/conversations/${encodeURIComponent(id)}`, body);
    showFacts();
    showTools();
    say('ok', said);
  };

  const tools = h('div', { class: 'tools' });
  const showTools = () => {
    const assign = h('select', { name: 'assigned_to', 'aria-label': 'Assigned to' },
      h('option', { value: '' }, 'Nobody'),
      members.map((m) => h('option', { value: m.user_id, selected: m.user_id === current.assigned_to },
        state.me && m.user_id === state.me.user_id ? `Me (${m.phone_number})` : m.phone_number)));
    assign.addEventListener('change', async () => {
      clearNotices();
      try {
        await update({ assigned_to: assign.value || null },
          assign.value ? `Assigned to ${assigneeName(assign.value, members)}.` : 'Nobody is assigned now.');
      } catch (err) { say('error', describe(err)); }
    });
    const labelForm = form({ 'aria-label': 'Label the conversation', class: 'inline' }, [
      field('Label (what your team calls them)', h('input', { type: 'text', name: 'label', maxlength: 100, value: current.label || '' })),
    ], 'Save the label', async (data) => {
      const label = String(data.get('label') || '').trim();
      await update({ label: label || null }, label ? 'The label is saved.' : 'The label is removed.');
    }, { label: 'The label' });
    tools.replaceChildren(
      h('div', { class: 'row' },
        field('Assigned to', assign),
        state.me && current.assigned_to !== state.me.user_id
          ? act('Assign to me', () => update({ assigned_to: state.me.user_id }, 'Assigned to you.')) : null,
        current.status === 'open'
          ? act('Close', () => update({ status: 'closed' }, 'Closed. A new message from them opens it again.'))
          : act('Reopen', () => update({ status: 'open' }, 'Reopened.')),
        manage ? (current.blocked
          ? act('Unblock', async () => {
            if (!await ask(`Unblock ${conversationName(current)}?`, { detail: 'They can write to your business again.', yes: 'Unblock' })) return;
            current = await api('POST', `/business/conversations/${encodeURIComponent(id)}/unblock`, {});
            showFacts(); showTools();
            say('ok', 'Unblocked: they can write to you again.');
          })
          : act('Block', async () => {
            if (!await ask(`Block ${conversationName(current)}?`, {
              detail: 'Their new messages are refused until you unblock them. You can still send them messages.', yes: 'Block', danger: true,
            })) return;
            current = await api('POST', `/business/conversations/${encodeURIComponent(id)}/block`, {});
            showFacts(); showTools();
            say('ok', 'Blocked: their messages are refused.');
          }, 'danger')) : null),
      labelForm);
  };
  showTools();

  // The reply box: free text while the window is open, a category message after.
  let key = newKey();
  let keyFor = '';
  let replyMode = null;
  const showReply = (force = false) => {
    const mode = !current.follows ? 'none' : windowOpen(current) ? 'free' : 'category';
    if (mode === replyMode && !force) return;
    replyMode = mode;
    if (mode === 'none') {
      reply.replaceChildren(notice('info', 'They no longer follow your business, so nothing can be sent to them. Their messages stay here.'));
      return;
    }
    const send = async (body, f) => {
      // One key per message written: a retry of the same words after a lost answer is not sent twice.
      const words = JSON.stringify(body);
      if (words !== keyFor) { key = newKey(); keyFor = words; }
      const sent = await api('POST', `/business/conversations/${encodeURIComponent(id)}/messages`, body,
        { headers: { 'Idempotency-Key': key } });
      keyFor = '';
      f.reset();
      say('ok', 'Sent.');
      await refresh();
      return sent;
    };
    // A utility (or, opted in, marketing) message: in words, or one of the business's templates.
    const categoryForm = () => {
      const categories = [['utility', 'A utility message (about their order, booking or account)']];
      if (current.marketing_opt_in) categories.push(['marketing', 'A marketing message (they opted in)']);
      const kind = h('select', { name: 'category' }, categories.map(([v, t]) => h('option', { value: v }, t)));
      const message = field('Message', h('textarea', { name: 'body', maxlength: 4096, rows: 3, required: true }));
      const picker = templatePicker(() => kind.value, [message]);
      kind.addEventListener('change', picker.refresh);
      return form({ 'aria-label': 'Send a category message' }, [
        field('Kind of message', kind), picker.element, message,
      ], 'Send the message', async (data, out, f) => {
        const template = picker.value();
        const body = String(data.get('body') || '');
        if (!template && !body.trim()) throw new FormProblem('Write a message first, or choose a template.');
        await send({ category: data.get('category'), ...(template ? { template } : { body }) }, f);
        picker.refresh();
      }, { body: 'The message' });
    };
    if (mode === 'free') {
      reply.replaceChildren(form({ 'aria-label': 'Write a reply' }, [
        field('Reply', h('textarea', { name: 'text', maxlength: 4096, rows: 3, required: true })),
      ], 'Send the reply', async (data, out, f) => {
        const text = String(data.get('text') || '');
        if (!text.trim()) throw new FormProblem('Write a reply first.');
        await send({ text }, f);
      }, { text: 'The reply' }),
      act('Send a template or a utility message instead', async () => {
        reply.replaceChildren(categoryForm(), act('Back to a reply in your own words', async () => showReply(true)));
      }));
      return;
    }
    const last = when(current.last_inbound_at);
    const closed = when(current.window_expires_at);
    reply.replaceChildren(
      notice('info', `The window for replies in your own words closed at ${closed}, 24 hours after their last message (${last}). `
        + (current.marketing_opt_in
          ? 'You can still send a utility message, or a marketing message since they opted in.'
          : 'You can still send a utility message; they have not opted in to marketing.')),
      categoryForm());
  };
  showReply();

  const older = h('p', {});
  const showOlder = (hasMore) => {
    older.replaceChildren(...[hasMore && act('Show earlier messages', async () => {
      const earlier = await api('GET', `/business/conversations/${encodeURIComponent(id)}/messages?limit=50&starting_after=${messages[messages.length - 1].id}`);
      messages = [...messages, ...earlier.messages];
      showThread();
      showOlder(earlier.has_more);
    })].filter(Boolean));
  };
  showOlder(thread.has_more);

  page('Conversation',
    h('p', {}, h('a', { href: '#/inbox' }, '← Inbox')),
    h('h2', { class: 'conversation-name' }, heading),
    facts, tools, older, list, reply);

  let seen = JSON.stringify([current, thread.messages]);
  async function refresh() {
    const [fresh, page1] = await Promise.all([
      api('GET', `/business/conversations/${encodeURIComponent(id)}`),
      api('GET', `/business/conversations/${encodeURIComponent(id)}/messages?limit=50`),
    ]);
    const text = JSON.stringify([fresh, page1.messages]);
    if (text !== seen) {
      seen = text;
      current = fresh;
      // The first page replaces what it covers; earlier pages stay.
      const ids = new Set(page1.messages.map((m) => m.id));
      const oldest = page1.messages[page1.messages.length - 1];
      messages = [...page1.messages, ...messages.filter((m) => !ids.has(m.id) && oldest && m.at < oldest.at)];
      showThread();
      showFacts();
    } else {
      facts.querySelector('[data-window]').textContent = `Window ${windowState(current)}`;
    }
    showReply();
    if (location.hash === here && document.visibilityState === 'visible') await markRead();
  }

  await markRead();
  stopPolling = every(POLL_MS, here, refresh);
}
