// Templates: messages a business sends again and again, with named variables, a fixed kind,
// versions that never change and one wording per language. The Templates page lists them and
// makes new ones; a template's page shows each version, previews every language live from the
// service's own rendering, makes the next version and archives. The picker lets the send forms
// (Messages, Broadcasts, the Inbox's reply box) send a template by asking for its values.

import { api } from './api.js';
import { describe } from './words.js';
import {
  h, act, ask, canManage, field, form, notice, page, pathParts, query, status, table, userText, when, FormProblem,
} from './dom.js';

// Labels of the template form's fields, for the service's validation details.
const LABELS = { name: 'The name', category: 'The kind', default_locale: 'The default language' };

/** The variables a text asks for, `{{name}}`, in order of first use. */
export function placeholders(text) {
  const names = [];
  for (const m of String(text || '').matchAll(/\{\{([a-z0-9_]{1,64})\}\}/g)) {
    if (!names.includes(m[1])) names.push(m[1]);
  }
  return names;
}

/** A language tag the way people read it: `pt-BR` → "pt-BR (Portuguese, Brazil)" where the browser knows it. */
function languageName(tag) {
  try {
    const name = new Intl.DisplayNames([navigator.language || 'en'], { type: 'language' }).of(tag);
    return name && name !== tag ? `${tag} (${name})` : tag;
  } catch {
    return tag;
  }
}

/** The words of a variant: its body, or its structured content's title and text. */
function variantText(v) {
  if (typeof v.body === 'string') return v.body;
  const c = v.message_content || {};
  return [c.title, c.text].filter(Boolean).join(' · ');
}

const DEFAULT_MAX = 100;

/**
 * The editor of a version: languages with their wording (a body each), the variables their
 * placeholders use (each with its longest value), and the default language. `template` fills it
 * in (a new version starts from the newest); `fixed` shows the name and kind as text.
 */
function editor(template) {
  const variants = h('div', { class: 'variants' });
  const variables = h('div', { class: 'variables', 'aria-live': 'polite' });
  const defaultLocale = h('select', { name: 'default_locale' });
  const maxes = new Map(Object.entries(template ? template.variables : {}).map(([n, v]) => [n, v.max_length]));

  const rows = () => [...variants.querySelectorAll('[data-variant]')];
  const refresh = () => {
    const names = [];
    for (const row of rows()) {
      for (const n of placeholders(row.querySelector('textarea').value)) if (!names.includes(n)) names.push(n);
    }
    // Keep what was typed in the inputs already shown.
    for (const input of variables.querySelectorAll('input')) maxes.set(input.name.slice(4), Number(input.value) || DEFAULT_MAX);
    variables.replaceChildren(...(names.length
      ? [h('p', { class: 'muted' }, 'Each value a message gives a variable may be this long at most:'),
        h('div', { class: 'filters' }, names.map((n) => field(`{{${n}}}`,
          h('input', { type: 'number', name: `max_${n}`, min: 1, max: 1000, step: 1, value: maxes.get(n) || DEFAULT_MAX }))))]
      : [h('p', { class: 'muted' }, 'No variables yet: write {{name}} in the wording where a value goes (lowercase letters, digits and _).')]));
    const chosen = defaultLocale.value || (template && template.default_locale) || '';
    const tags = rows().map((row) => row.querySelector('input').value.trim()).filter(Boolean);
    defaultLocale.replaceChildren(...tags.map((t) => h('option', { value: t, selected: t === chosen }, languageName(t))));
  };
  const addVariant = (locale = '', body = '') => {
    const input = h('input', { type: 'text', name: 'locale', value: locale, placeholder: 'en, pt-BR…', maxlength: 35, 'aria-label': 'Language' });
    const text = h('textarea', { name: 'body', rows: 3, maxlength: 4096, 'aria-label': 'Wording' }, body);
    const row = h('fieldset', { dataset: { variant: '' } }, h('legend', {}, 'A language'),
      field('Language (a BCP 47 tag, like en or pt-BR)', input),
      field('Wording', text),
      act('Remove this language', async () => {
        row.remove();
        refresh();
      }));
    input.addEventListener('input', refresh);
    text.addEventListener('input', refresh);
    variants.append(row);
    refresh();
    return row;
  };
  const structured = template && Object.values(template.variants).some((v) => typeof v.body !== 'string');
  for (const [locale, v] of Object.entries(template ? template.variants : { '': { body: '' } })) addVariant(locale, v.body || '');
  const fields = [
    variants,
    act('Add a language', async () => { addVariant().querySelector('input').focus(); }),
    variables,
    field('Default language (for followers whose language it lacks)', defaultLocale),
  ];
  const read = () => {
    const out = { variants: {}, variables: {} };
    for (const row of rows()) {
      const tag = row.querySelector('input').value.trim();
      const body = row.querySelector('textarea').value;
      if (!tag) throw new FormProblem('Give every wording its language (like en or pt-BR).');
      if (!body.trim()) throw new FormProblem(`Write the wording for ${tag}.`);
      if (out.variants[tag]) throw new FormProblem(`${tag} is there twice: keep one wording per language.`);
      out.variants[tag] = { body };
    }
    if (!Object.keys(out.variants).length) throw new FormProblem('Add at least one language.');
    for (const input of variables.querySelectorAll('input')) {
      const n = Number(input.value);
      if (!Number.isInteger(n) || n < 1 || n > 1000) {
        throw new FormProblem(`The longest value of {{${input.name.slice(4)}}} must be a whole number from 1 to 1,000.`);
      }
      out.variables[input.name.slice(4)] = { max_length: n };
    }
    out.default_locale = defaultLocale.value;
    return out;
  };
  return { fields, read, structured };
}

// ---- the list ----

export async function templatesPage(reload) {
  const archived = query().get('status') === 'archived';
  const list = await api('GET', `/business/templates?limit=200${archived ? '&status=archived' : ''}`);
  const rows = list.templates.map((t) => h('tr', { dataset: { template: t.name } },
    h('td', {}, h('a', { href: `#/templates/${t.id}` }, t.name)),
    h('td', {}, t.category),
    h('td', {}, `version ${t.version}`),
    h('td', {}, Object.keys(t.variants).join(', ')),
    h('td', {}, Object.keys(t.variables).map((n) => `{{${n}}}`).join(' ') || h('span', { class: 'muted' }, 'none')),
    h('td', {}, when(t.created_at))));
  const switcher = h('p', {}, archived
    ? h('a', { href: '#/templates' }, 'Show the templates in use')
    : h('a', { href: '#/templates?status=archived' }, 'Show archived templates'));
  let create = h('p', { class: 'muted' }, 'Only the owner or an admin can make templates.');
  if (canManage()) {
    const ed = editor(null);
    create = form({ 'aria-label': 'New template' }, [
      field('Name (lowercase letters, digits and _; it never changes)',
        h('input', { type: 'text', name: 'name', maxlength: 64, pattern: '[a-z0-9_]{1,64}', required: true, placeholder: 'order_shipped' })),
      field('Kind (it never changes)', h('select', { name: 'category' },
        h('option', { value: 'utility' }, 'utility'), h('option', { value: 'marketing' }, 'marketing'))),
      ...ed.fields,
    ], 'Create the template', async (data) => {
      const name = String(data.get('name') || '').trim();
      if (!/^[a-z0-9_]{1,64}$/.test(name)) {
        throw new FormProblem('The name is 1 to 64 lowercase letters, digits or _ (like order_shipped).');
      }
      const made = await api('POST', '/business/templates', { name, category: data.get('category'), ...ed.read() });
      location.hash = `#/templates/${made.id}`;
    }, LABELS);
  }
  page(archived ? 'Archived templates' : 'Templates',
    h('p', { class: 'muted' }, 'Messages you send again and again. Each follower gets the wording in their own language when the template has it; a change makes a new version, and earlier versions stay as they were.'),
    switcher,
    rows.length ? table(['Name', 'Kind', 'Newest', 'Languages', 'Variables', 'Changed'], rows)
      : h('p', { class: 'muted' }, archived ? 'No archived templates.' : 'No templates yet.'),
    archived ? null : [h('h2', {}, 'New template'), create]);
}

// ---- one template ----

/** The preview: a value for each variable, and every language rendered by the service as it changes. */
function previewer(t) {
  const values = h('div', { class: 'filters' }, Object.entries(t.variables).map(([n, v]) => field(`{{${n}}}`,
    h('input', { type: 'text', name: n, maxlength: v.max_length, value: n.replace(/_/g, ' ') }))));
  const outputs = h('div', { class: 'previews', 'aria-live': 'polite' });
  let seq = 0;
  const render = async () => {
    const mine = ++seq;
    const variables = Object.fromEntries([...values.querySelectorAll('input')].map((i) => [i.name, i.value]));
    const shown = await Promise.all(Object.keys(t.variants).map(async (locale) => {
      try {
        const r = await api('POST', `/business/templates/${t.id}/render`, { variables, locale, version: t.version });
        return h('section', { class: 'card', dataset: { rendered: locale } },
          h('h3', {}, languageName(locale), locale === t.default_locale ? ' · default' : ''),
          userText(variantText(r), 'p'));
      } catch (err) {
        return h('section', { class: 'card', dataset: { rendered: locale } },
          h('h3', {}, languageName(locale)), notice('error', describe(err)));
      }
    }));
    if (mine === seq) outputs.replaceChildren(...shown);
  };
  let timer = null;
  values.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => { render().catch(() => {}); }, 250);
  });
  render().catch(() => {});
  return h('section', { 'aria-label': 'Preview' }, h('h2', {}, 'Preview'),
    Object.keys(t.variables).length ? values : h('p', { class: 'muted' }, 'This template has no variables.'),
    outputs);
}

export async function templatePage(reload) {
  const id = pathParts()[1];
  const asked = query().get('version');
  const t = await api('GET', `/business/templates/${encodeURIComponent(id)}${asked ? `?version=${encodeURIComponent(asked)}` : ''}`);
  const newest = asked ? (await api('GET', `/business/templates/${encodeURIComponent(id)}`)).version : t.version;
  const versions = h('p', { class: 'versions' }, 'Versions: ', Array.from({ length: newest }, (_, i) => i + 1).map((v) => [
    v === t.version ? h('strong', { 'aria-current': 'true' }, String(v)) : h('a', { href: `#/templates/${t.id}?version=${v}` }, String(v)), ' ']));
  const wording = table(['Language', 'Wording'], Object.entries(t.variants).map(([locale, v]) => h('tr', { dataset: { variant: locale } },
    h('td', {}, languageName(locale), locale === t.default_locale ? ' · default' : ''),
    h('td', {}, userText(variantText(v), 'span')))));
  let change = null;
  if (canManage() && t.status === 'active' && t.version === newest) {
    const ed = editor(t);
    change = ed.structured
      ? notice('info', 'This template sends structured content (a title, a button): change it with the API.')
      : [h('h2', {}, `Make version ${newest + 1}`),
        h('p', { class: 'muted' }, `Version ${t.version} stays as it is: messages already sent keep it, and new ones use the new version.`),
        form({ 'aria-label': 'Make a new version' }, ed.fields, `Save as version ${newest + 1}`, async () => {
          const saved = await api('PATCH', `/business/templates/${t.id}`, ed.read());
          await reload('ok', `Saved: ${saved.name} is at version ${saved.version}.`);
        }, LABELS),
        h('h2', {}, 'Archive'),
        h('p', { class: 'muted' }, 'An archived template can no longer be sent or changed; its versions stay readable. This cannot be undone.'),
        act('Archive this template', async () => {
          if (!await ask(`Archive ${t.name}?`, {
            detail: 'Messages naming it are refused from now on. Messages already sent keep it.', yes: 'Archive', no: 'Keep it', danger: true,
          })) return;
          await api('POST', `/business/templates/${t.id}/archive`, {});
          await reload('ok', `${t.name} is archived.`);
        }, 'danger')];
  }
  page(t.name,
    h('p', {}, h('a', { href: '#/templates' }, '← Templates')),
    h('section', { class: 'card', 'aria-label': 'Template' },
      h('p', {}, status(t.status), ` A ${t.category} template · version ${t.version} made ${when(t.created_at)}`),
      versions,
      wording),
    previewer(t),
    t.status === 'archived' ? notice('info', 'This template is archived: it can no longer be sent or changed.') : change);
}

// ---- the picker of the send forms ----

/**
 * A "template" choice for a send form: `category()` says which kind the form sends. Choosing a
 * template hides `writing` (the form's own message fields) and asks for the template's values
 * and, optionally, a language; `value()` is then the send body's `template` (or null).
 * `changed` runs after each change of the choice.
 */
export function templatePicker(category, writing, changed = () => {}) {
  let templates = [];
  const select = h('select', { name: 'template', 'aria-label': 'Template' });
  const asked = h('div', { class: 'template-values' });
  const fill = () => {
    const kind = category();
    const current = select.value;
    const mine = templates.filter((t) => t.category === kind);
    select.replaceChildren(h('option', { value: '' }, 'None: write the message'),
      ...mine.map((t) => h('option', { value: t.name, selected: t.name === current }, t.name)));
    show();
  };
  const chosen = () => templates.find((x) => x.name === select.value && x.category === category()) || null;
  const show = () => {
    const t = chosen();
    for (const el of writing) el.hidden = !!t;
    changed();
    if (!t) {
      asked.replaceChildren();
      return;
    }
    asked.replaceChildren(
      ...Object.entries(t.variables).map(([n, v]) => field(`{{${n}}}`,
        h('input', { type: 'text', name: `var_${n}`, maxlength: v.max_length, required: true, dataset: { variable: n } }),
        `at most ${v.max_length} characters`)),
      field('Language', h('select', { name: 'template_locale' },
        h('option', { value: '' }, 'Each follower\'s own language (else the default)'),
        Object.keys(t.variants).map((l) => h('option', { value: l }, languageName(l))))),
      h('div', { class: 'preview', dataset: { preview: '' } }, userText(variantText(t.variants[t.default_locale]), 'p')));
  };
  select.addEventListener('change', show);
  const element = field('Template (optional)', select);
  const wrap = h('div', { class: 'template-picker' }, element, asked);
  api('GET', '/business/templates?limit=200').then((list) => {
    templates = list.templates;
    fill();
  }).catch((err) => {
    // The form still sends words of its own.
    wrap.replaceChildren(h('p', { class: 'muted' }, `Templates could not be read: ${describe(err)}`));
  });
  return {
    element: wrap,
    refresh: fill,
    /** The chosen template (as listed), or null. */
    chosen,
    /** The chosen template as a send names it, or null; a value left empty is said in words. */
    value() {
      const t = chosen();
      if (!t) return null;
      const variables = {};
      for (const input of asked.querySelectorAll('input[data-variable]')) {
        if (!input.value.trim()) throw new FormProblem(`Fill in {{${input.dataset.variable}}} for the template.`);
        variables[input.dataset.variable] = input.value;
      }
      const locale = asked.querySelector('select[name=template_locale]').value;
      return { name: t.name, variables, ...(locale ? { locale } : {}) };
    },
    /** The chosen template's wording in its default language (for a review), or null. */
    wording() {
      const t = chosen();
      return t ? variantText(t.variants[t.default_locale]) : null;
    },
  };
}
