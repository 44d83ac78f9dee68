// The console's building blocks: elements made with text nodes only (nothing is ever parsed as
// HTML), the page frame, notices, forms, buttons, tables that stack on a phone, and an in-page
// confirmation dialog.

import { describe, FormProblem } from './words.js';

export { FormProblem };

export const main = document.getElementById('main');
export const flash = document.getElementById('flash');

/** Who is signed in (`GET /me`), shared by every page. */
export const state = { me: null };

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVG = 'http://www.w3.org/2000/svg';
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/**
 * Text someone else wrote (a follower's message, a receiver's answer, a payload): set as text,
 * its direction isolated from the page's (`dir="auto"` on its own element, so a right-to-left
 * override inside cannot turn the text around it), long unbroken strings wrapped. `tag` is `p`
 * for a paragraph, `pre` for a document, `span` inside a line.
 */
export function userText(text, tag = 'p', attrs = {}) {
  const el = h(tag, { ...attrs, dir: 'auto', class: `user-text ${attrs.class || ''}`.trim() });
  el.textContent = String(text ?? '');
  return el;
}

/** The first `max` characters of `text`, with an ellipsis when there is more. */
export function trimmed(text, max = 80) {
  const t = String(text ?? '').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The words a message shows: its body, or its rich content's title and text. */
export function contentText(m) {
  if (!m) return '';
  if (typeof m.body === 'string') return m.body;
  const c = m.message_content;
  if (!c) return '';
  if (typeof c.code === 'string') return `Code ${c.code}`;
  return [c.title, c.text].filter(Boolean).join(' · ');
}

export function field(label, input, hint) {
  return h('label', {}, h('span', { class: 'label' }, label), input, hint ? h('span', { class: 'hint' }, hint) : null);
}

export function notice(kind, ...text) {
  return h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...text);
}

export function showError(where, err, labels) {
  where.replaceChildren(notice('error', describe(err, labels)));
}

export function say(kind, text) {
  flash.replaceChildren(notice(kind, text));
}

/** A new action starts clean: the sentences earlier actions left on the page go. */
export function clearNotices() {
  flash.replaceChildren();
  for (const el of main.querySelectorAll('.form-result, .check-result')) el.replaceChildren();
}

export function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** "3 h", "25 min", "2 days": how long from now until `iso` (never negative). */
export function duration(ms) {
  const min = Math.max(0, Math.round(ms / 60000));
  if (min < 60) return `${Math.max(1, min)} min`;
  const hours = Math.round(min / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}

export function badge(text, kind = '') {
  return h('span', { class: `badge ${kind}` }, text);
}

// One colour per meaning, everywhere: green is success only, red is failure only.
const STATUS_KIND = {
  delivered: 'ok', succeeded: 'ok', active: 'ok', live: 'ok', completed: 'ok', sent: 'ok', healthy: 'ok',
  failed: 'bad', suspended: 'bad', blocked: 'bad', failing: 'bad',
  paused: 'warn', retrying: 'warn', pending: 'warn', sandbox: 'warn', scheduled: 'warn', running: 'warn',
  accepted: '', canceled: '', open: '', closed: '',
};

export function status(text) {
  return badge(text, STATUS_KIND[text] || '');
}

// A form whose submit runs `action`; its errors go to an alert below the form, in words
// (`labels` names the form's fields for the service's validation details).
export function form(attrs, fields, submitLabel, action, labels) {
  const out = h('div', { class: 'form-result' });
  const button = h('button', { type: 'submit' }, submitLabel);
  const f = h('form', { ...attrs, novalidate: true }, ...fields, h('div', { class: 'row actions' }, button), out);
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearNotices();
    button.disabled = true;
    try {
      await action(new FormData(f), out, f);
    } catch (err) {
      showError(out, err, labels);
    } finally {
      button.disabled = false;
    }
  });
  return f;
}

// A button that runs `action` and shows its failure in the page's notice area.
export function act(label, action, cls = 'secondary', attrs = {}) {
  const b = h('button', { type: 'button', class: cls, ...attrs }, label);
  b.addEventListener('click', async () => {
    clearNotices();
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

/**
 * Asks in the page before something that cannot be undone: a modal dialog with the question,
 * what follows, and two buttons. Resolves true only for the confirming button.
 */
export function ask(question, { detail = '', yes = 'Yes', no = 'Cancel', danger = false } = {}) {
  return new Promise((resolve) => {
    const yesButton = h('button', { type: 'button', class: danger ? 'danger solid' : '' }, yes);
    const noButton = h('button', { type: 'button', class: 'secondary' }, no);
    const dialog = h('dialog', { class: 'ask', 'aria-label': question },
      h('p', { class: 'question' }, question),
      detail ? h('p', { class: 'muted' }, detail) : null,
      h('div', { class: 'row' }, yesButton, noButton));
    const done = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    yesButton.addEventListener('click', () => done(true));
    noButton.addEventListener('click', () => done(false));
    dialog.addEventListener('cancel', (e) => { e.preventDefault(); done(false); });
    document.body.append(dialog);
    dialog.showModal();
    noButton.focus();
  });
}

export function copyable(label, value, attrs = {}) {
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
  return h('div', { class: 'secret', 'data-secret': label, ...attrs },
    h('strong', {}, `${label}:`), code, button,
    h('span', { class: 'muted' }, 'Copy it now: you will not see it again.'));
}

/**
 * A table whose rows stack on a phone: each cell carries its column's name (shown before it
 * when the table is stacked). `rows` are `tr` elements whose cells follow `headers`.
 */
export function table(headers, rows, attrs = {}) {
  const body = h('tbody', {}, rows);
  labelCells(headers, body);
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'stack', ...attrs },
      h('thead', {}, h('tr', {}, headers.map((t) => h('th', { scope: 'col' }, t)))),
      body));
}

/** Names each cell of `body` after its column (for the stacked layout); call again after new rows. */
export function labelCells(headers, body) {
  for (const tr of body.querySelectorAll(':scope > tr')) {
    [...tr.children].forEach((td, i) => {
      if (headers[i]) td.dataset.label = headers[i];
      else td.classList.add('actions-cell');
    });
  }
  return body;
}

export function page(title, ...content) {
  document.title = `${title} · Business console`;
  main.replaceChildren(h('h1', {}, title), ...content.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  main.focus({ preventScroll: true });
}

export function query() {
  const q = location.hash.split('?')[1] || '';
  return new URLSearchParams(q);
}

/**
 * A link to a list page: `page` (`#/inbox`) with the current query's `names` kept and `changes`
 * applied (an empty value drops its name). Changing a filter drops `after`: the list starts again.
 */
export function listHash(page, names, changes = {}) {
  const q = query();
  const next = new URLSearchParams();
  for (const name of [...names, 'after']) {
    const value = name in changes ? changes[name] : name !== 'after' && q.get(name);
    if (value) next.set(name, value);
  }
  return `${page}${next.toString() ? `?${next}` : ''}`;
}

/** The page's path: `#/inbox/ID` → ['inbox', 'ID']. */
export function pathParts() {
  return (location.hash || '#/').split('?')[0].replace(/^#\/?/, '').split('/').filter(Boolean);
}

export function canManage() {
  const { me } = state;
  return !!me && (me.role === 'owner' || me.role === 'admin');
}

/** A datetime-local value (the browser's time zone) as RFC 3339 in UTC; empty stays empty. */
export function instant(value, what = 'The time') {
  const text = String(value || '').trim();
  if (!text) return undefined;
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) throw new FormProblem(`${what} is not a date and a time.`);
  return d.toISOString();
}

/** A time a person picked that must lie ahead; the API's "past means now" is not what they meant. */
export function future(value, what, empty) {
  const iso = instant(value, what);
  if (iso && new Date(iso).getTime() <= Date.now()) {
    throw new FormProblem(`${what} has already passed. ${empty}`);
  }
  return iso;
}

/** Runs `fn` every `ms` while the page at `hash` stays open; the returned function stops it. */
export function every(ms, hash, fn) {
  let timer = null;
  let stopped = false;
  const tick = async () => {
    timer = null;
    if (stopped || location.hash !== hash) return;
    try {
      await fn();
    } catch (err) {
      say('error', describe(err));
    }
    if (!stopped && location.hash === hash) timer = setTimeout(tick, ms);
  };
  timer = setTimeout(tick, ms);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
