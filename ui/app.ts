// The status page (docs/ui.md): every view is read from /ui/api and drawn with DOM nodes and
// textContent only, so nothing the operator reports is ever parsed as HTML.

type Child = Node | string | number | undefined | false;

const TOKEN_KEY = 'kaddon-ui-token';

function h(tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children)
    if (child !== undefined && child !== false)
      element.append(typeof child === 'number' ? String(child) : child);
  return element;
}

function link(href: string, text: string): HTMLElement {
  const anchor = h('a', { href }, text);
  anchor.addEventListener('click', (event) => {
    event.preventDefault();
    navigate(href);
  });
  return anchor;
}

function table(headers: readonly string[], rows: readonly Child[][]): HTMLElement {
  return h(
    'table',
    {},
    h('thead', {}, h('tr', {}, ...headers.map((header) => h('th', {}, header)))),
    h('tbody', {}, ...rows.map((row) => h('tr', {}, ...row.map((cell) => h('td', {}, cell))))),
  );
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Where the operator signs users in through their identity provider, when it does. */
    readonly signIn?: string,
  ) {
    super(message);
  }
}

async function api<T>(path: string): Promise<T> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const response = await fetch(`/ui/api/${path}`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as T & { error?: string; signIn?: string };
  if (!response.ok) throw new HttpError(response.status, body.error ?? response.statusText, body.signIn);
  return body;
}

function state(name: string): HTMLElement {
  return h('span', { class: name }, name);
}

function time(iso: unknown): string {
  return typeof iso === 'string' ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '';
}

interface Module {
  name: string;
  enabled: boolean;
  state: string;
  reason: string;
  message: string;
  lastDelivery?: { at: string; helmRevision?: number; gitRevision?: string };
  driftedObjects: string[];
}

async function overview(): Promise<Child[]> {
  const data = await api<{
    counts: Record<string, number>;
    attention: Module[];
    git?: { url: string; revision?: string; lastSync?: string; lastError?: string };
    replica: { role: string; version: string; uptimeSeconds: number };
    queues: { name: string; length: number }[];
    running?: string;
  }>('overview');
  const cards = ['Failed', 'Maintenance', 'Progressing', 'Ready', 'Disabled'].map((name) =>
    h('div', { class: 'card', 'data-count': name }, h('b', { class: name }, data.counts[name] ?? 0), name),
  );
  return [
    h('div', { class: 'cards' }, ...cards),
    h('h2', {}, 'Needs attention'),
    data.attention.length === 0
      ? h('p', {}, 'Every enabled module is Ready.')
      : table(
          ['Module', 'State', 'Reason', 'Message'],
          data.attention.map((module) => [
            link(`/ui/modules/${encodeURIComponent(module.name)}`, module.name),
            state(module.state),
            module.reason,
            module.message,
          ]),
        ),
    data.git &&
      h(
        'section',
        {},
        h('h2', {}, 'Git source'),
        table(
          ['URL', 'Revision', 'Last sync', 'Last error'],
          [[data.git.url, data.git.revision, time(data.git.lastSync), data.git.lastError ?? '']],
        ),
      ),
    h('h2', {}, 'This replica'),
    table(
      ['Role', 'Version', 'Uptime', 'Running'],
      [[data.replica.role, data.replica.version, `${data.replica.uptimeSeconds} s`, data.running ?? 'idle']],
    ),
    h('h2', {}, 'Queues'),
    table(
      ['Queue', 'Tasks'],
      data.queues.map((queue) => [queue.name, queue.length]),
    ),
  ];
}

/**
 * A view's filters: a choice and a search, each labelled; a change puts them in the view's URL
 * (`/ui/<view>?<choice>=…&<search>=…`) and draws the view again.
 */
function filterForm(
  view: string,
  choice: { name: string; every: string; values: readonly string[] },
  search: { name: string; label: string; placeholder: string },
  query: URLSearchParams,
): HTMLElement {
  const chosen = query.get(choice.name) ?? '';
  const select = h(
    'select',
    { name: choice.name, 'aria-label': choice.name },
    ...['', ...choice.values].map((value) =>
      h(
        'option',
        value === chosen ? { value, selected: '' } : { value },
        value === '' ? choice.every : value,
      ),
    ),
  );
  const input = h('input', {
    name: search.name,
    type: 'search',
    placeholder: search.placeholder,
    'aria-label': search.label,
    value: query.get(search.name) ?? '',
  });
  const form = h('form', { class: 'filters' }, select, input);
  const apply = (): void => {
    const next = new URLSearchParams();
    const choiceValue = (select as HTMLSelectElement).value;
    const text = (input as HTMLInputElement).value.trim();
    if (choiceValue !== '') next.set(choice.name, choiceValue);
    if (text !== '') next.set(search.name, text);
    history.replaceState(null, '', `/ui/${view}${next.size > 0 ? `?${next.toString()}` : ''}`);
    void render();
  };
  select.addEventListener('change', apply);
  input.addEventListener('change', apply);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    apply();
  });
  return form;
}

async function modules(query: URLSearchParams): Promise<Child[]> {
  const all = await api<Module[]>('modules');
  const wanted = query.get('state') ?? '';
  const search = (query.get('q') ?? '').toLowerCase();
  const shown = all.filter(
    (module) => (wanted === '' || module.state === wanted) && module.name.toLowerCase().includes(search),
  );
  const form = filterForm(
    'modules',
    {
      name: 'state',
      every: 'every state',
      values: ['Failed', 'Maintenance', 'Progressing', 'Ready', 'Disabled'],
    },
    { name: 'q', label: 'module name', placeholder: 'name' },
    query,
  );
  return [
    form,
    h('p', {}, `${shown.length} of ${all.length} modules`),
    table(
      [
        'Module',
        'Enabled',
        'State',
        'Reason',
        'Message',
        'Last delivery',
        'Helm revision',
        'Git revision',
        'Drifted',
      ],
      shown.map((module) => [
        link(`/ui/modules/${encodeURIComponent(module.name)}`, module.name),
        module.enabled ? 'yes' : 'no',
        state(module.state),
        module.reason,
        module.message,
        time(module.lastDelivery?.at),
        module.lastDelivery?.helmRevision,
        module.lastDelivery?.gitRevision?.slice(0, 12),
        module.driftedObjects.join(', '),
      ]),
    ),
  ];
}

interface HookRun {
  binding: string;
  startedAt: string;
  durationMs: number;
  outcome: string;
  stdout?: string;
  stderr?: string;
}

interface Hook {
  name: string;
  bindings: string[];
  lastRuns: HookRun[];
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function output(name: string, text: string | undefined): Child {
  return (
    text !== undefined && text !== '' && h('div', {}, h('small', {}, name), h('pre', { class: name }, text))
  );
}

/** Each hook with its bindings, then a table of its last runs, newest first. */
function hooksList(hooks: Hook[]): Child[] {
  const restricted = hooks.some((hook) => hook.lastRuns.some((run) => !('stderr' in run)));
  return [
    hooks.length === 0 && h('p', {}, 'No hooks.'),
    ...hooks.flatMap((hook) => [
      h('h4', { class: 'hook' }, hook.name, ' ', h('small', {}, hook.bindings.join(', '))),
      hook.lastRuns.length === 0
        ? h('p', {}, 'Not run since the operator started.')
        : table(
            ['Binding', 'Started', 'Duration', 'Outcome', 'Output'],
            hook.lastRuns.map((run) => [
              run.binding,
              time(run.startedAt),
              duration(run.durationMs),
              h('span', { class: run.outcome === 'ok' ? 'outcome' : 'outcome failed' }, run.outcome),
              h('div', {}, output('stdout', run.stdout), output('stderr', run.stderr)),
            ]),
          ),
    ]),
    restricted &&
      h(
        'p',
        { class: 'output-restricted' },
        'Hook output is shown to those who may get the operator\u2019s ConfigMap, as values are.',
      ),
  ];
}

async function moduleView(name: string, query: URLSearchParams): Promise<Child[]> {
  const module = await api<
    Module & {
      health: { status: string; message: string };
      phase: string;
      waitingFor?: string;
      objects: { id: string; health?: string; message?: string }[];
      events: { time: string; type: string; reason: string; note: string }[];
      hooks: Hook[];
      requires: { name: string; state: string }[];
      requiredBy: { name: string; state: string }[];
    }
  >(`modules/${encodeURIComponent(name)}`);
  const refs = (list: { name: string; state: string }[]): Child =>
    list.length === 0
      ? 'none'
      : h(
          'span',
          {},
          ...list.flatMap((ref) => [
            link(`/ui/modules/${encodeURIComponent(ref.name)}`, ref.name),
            ' ',
            state(ref.state),
            ' ',
          ]),
        );
  const values = await restricted('Values', `modules/${encodeURIComponent(name)}/values`, (body) =>
    h('pre', {}, JSON.stringify(body, null, 2)),
  );
  // docs/values.md "Where a value came from": each leaf with the layer that set it; for those who
  // may not see values, the note `values` holds says so once.
  const origins = await api<Origin[]>(`modules/${encodeURIComponent(name)}/origins`).catch(() => undefined);
  const valuesShown =
    origins === undefined
      ? [values]
      : [originsTable(origins), h('details', {}, h('summary', {}, 'as JSON'), values)];
  return [
    h('h2', {}, module.name, ' ', state(module.state)),
    table(
      ['Enabled', 'Phase', 'Reason', 'Message'],
      [
        [
          module.enabled ? 'yes' : 'no',
          h(
            'span',
            { class: 'phase' },
            module.waitingFor === undefined ? module.phase : `${module.phase}: ${module.waitingFor}`,
          ),
          module.reason,
          h('pre', { class: 'message' }, module.message),
        ],
      ],
    ),
    h('h3', {}, 'Objects'),
    h(
      'p',
      {},
      `Health: ${module.health.status}${module.health.message === '' ? '' : ` \u2014 ${module.health.message}`}`,
    ),
    table(
      ['Object', 'Health', 'Message'],
      module.objects.map((object) => [
        object.id,
        object.health === undefined ? '' : h('span', { class: `health ${object.health}` }, object.health),
        object.message ?? '',
      ]),
    ),
    h('h3', {}, 'Events'),
    table(
      ['Time', 'Type', 'Reason', 'Message'],
      [...module.events]
        .reverse()
        .map((event) => [
          time(event.time),
          h('span', { class: event.type }, event.type),
          event.reason,
          event.note,
        ]),
    ),
    h('h3', {}, 'Hooks'),
    ...hooksList(module.hooks),
    h('h3', {}, 'Values'),
    ...valuesShown,
    h('h3', {}, 'Requirements'),
    table(['Requires', 'Required by'], [[refs(module.requires), refs(module.requiredBy)]]),
    ...(await releasesOf(name, query)),
    ...(await deliveryDiff(name, query)),
  ];
}

/** A diff as /ui/api answers it (the revisions' diff has no action). */
interface DiffAnswer {
  action?: string;
  text: string;
}

/** What only who may get the operator's ConfigMap sees (values, diffs): a note for anyone else. */
async function restricted(what: string, path: string, draw: (body: unknown) => Child): Promise<Child> {
  let body: unknown;
  try {
    body = await api(path);
  } catch (error: unknown) {
    if (!(error instanceof HttpError) || error.status !== 403) throw error;
    return h(
      'p',
      { class: 'restricted' },
      `${what} are shown to those who may get the operator\u2019s ConfigMap.`,
    );
  }
  return draw(body);
}

interface Origin {
  path: string;
  value: unknown;
  origin: string;
}

/** docs/values.md "Where a value came from": each leaf, its value and the layer that set it. */
function originsTable(origins: readonly Origin[]): HTMLElement {
  return table(
    ['Value', 'Is', 'From'],
    origins.map((entry) => [
      h('code', {}, entry.path || '/'),
      h('code', {}, JSON.stringify(entry.value)),
      entry.origin,
    ]),
  );
}

/** Keeps the view's URL, with the query changed as `change` says, and draws it again. */
function requery(change: (query: URLSearchParams) => void): void {
  const query = new URLSearchParams(location.search);
  change(query);
  history.replaceState(null, '', `${location.pathname}${query.size > 0 ? `?${query.toString()}` : ''}`);
  void render();
}

/** The release's revisions, and what changed between two of them (?from=N&to=M). */
async function releasesOf(name: string, query: URLSearchParams): Promise<Child[]> {
  const base = `modules/${encodeURIComponent(name)}`;
  const releases = await api<
    { revision: number; status: string; updated: string; description: string; checksum: string }[]
  >(`${base}/releases`);
  if (releases.length === 0) return [h('h3', {}, 'Releases'), h('p', {}, 'No release.')];
  const pick = (key: string, fallback: number | undefined): HTMLSelectElement => {
    const chosen = query.get(key) ?? String(fallback);
    return h(
      'select',
      { name: key, 'aria-label': `${key} revision` },
      ...releases.map(({ revision }) =>
        h('option', String(revision) === chosen ? { selected: '' } : {}, String(revision)),
      ),
    ) as HTMLSelectElement;
  };
  const from = pick('from', releases[1]?.revision ?? releases[0]?.revision);
  const to = pick('to', releases[0]?.revision);
  const form = h(
    'form',
    { class: 'compare' },
    'Compare ',
    from,
    ' with ',
    to,
    ' ',
    h('button', {}, 'Compare'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    requery((next) => {
      next.set('from', from.value);
      next.set('to', to.value);
    });
  });
  const compared = query.has('from') && query.has('to');
  return [
    h('h3', {}, 'Releases'),
    table(
      ['Revision', 'Status', 'Updated', 'Description', 'Checksum'],
      releases.map((release) => [
        release.revision,
        release.status,
        time(release.updated),
        release.description,
        release.checksum.slice(0, 12),
      ]),
    ),
    form,
    compared &&
      (await restricted(
        'Diffs',
        `${base}/revision-diff?from=${query.get('from') ?? ''}&to=${query.get('to') ?? ''}`,
        (body) => {
          const { text } = body as DiffAnswer;
          return h(
            'pre',
            { class: 'diff revisions' },
            text === '' ? 'The two revisions hold the same.' : text,
          );
        },
      )),
  ];
}

/** The last `kaddon module diff` the page asked for: dry runs cost the API server, so redraws reuse it. */
let lastDiff: { module: string; at: string; body: Child } | undefined;

/** What delivering the module would change now, on request (?diff=1). */
async function deliveryDiff(name: string, query: URLSearchParams): Promise<Child[]> {
  const ask = h('button', {}, query.has('diff') ? 'Compare again' : 'Compare with the cluster');
  ask.addEventListener('click', () => {
    lastDiff = undefined;
    requery((next) => {
      next.set('diff', '1');
    });
  });
  if (query.has('diff') && lastDiff?.module !== name) {
    const body = await restricted('Diffs', `modules/${encodeURIComponent(name)}/diff`, (answer) => {
      const { action, text } = answer as DiffAnswer;
      return h('pre', { class: 'diff delivery' }, action === 'unchanged' ? 'No changes.' : text);
    });
    lastDiff = { module: name, at: new Date().toISOString(), body };
  }
  return [
    h('h3', {}, 'What a delivery would change'),
    h('p', {}, ask, lastDiff?.module === name ? ` as of ${time(lastDiff.at)}` : ''),
    lastDiff?.module === name && lastDiff.body,
  ];
}

async function queues(): Promise<Child[]> {
  const dump = await api<{
    active: {
      name: string;
      status: string;
      tasks: { description: string; attempts: number; lastError?: string }[];
    }[];
    empty?: { name: string }[];
    moduleRuns?: {
      limit: number;
      runs: { module: string; state: string; since: string; waitingFor?: string[] }[];
    };
  }>('queues');
  const runs = dump.moduleRuns;
  return [
    h('h2', {}, 'Queues'),
    table(
      ['Queue', 'Status', 'Task', 'Attempts', 'Last error'],
      dump.active.flatMap((queue) =>
        queue.tasks.length === 0
          ? [[queue.name, queue.status, '', '', '']]
          : queue.tasks.map((task) => [
              queue.name,
              queue.status,
              task.description,
              task.attempts,
              task.lastError ?? '',
            ]),
      ),
    ),
    h('p', {}, `Empty queues: ${(dump.empty ?? []).map((queue) => queue.name).join(', ') || 'none'}`),
    runs !== undefined && h('h2', {}, `Module runs (at most ${runs.limit} at once)`),
    runs !== undefined &&
      table(
        ['Module', 'State', 'Since', 'Waits for'],
        runs.runs.map((run) => [
          h('span', { class: 'run', 'data-state': run.state }, run.module),
          run.state,
          time(run.since),
          (run.waitingFor ?? []).join(', '),
        ]),
      ),
  ];
}

/** docs/ui.md "Timeline": what happened on the platform, newest first, narrowed by kind and module. */
async function timeline(query: URLSearchParams): Promise<Child[]> {
  const kind = query.get('kind') ?? '';
  const module = query.get('module') ?? '';
  const asked = new URLSearchParams();
  if (kind !== '') asked.set('kind', kind);
  if (module !== '') asked.set('module', module);
  const entries = await api<
    { time: string; module: string; kind: string; type: string; reason: string; note: string }[]
  >(`timeline${asked.size > 0 ? `?${asked.toString()}` : ''}`);
  const form = filterForm(
    'timeline',
    {
      name: 'kind',
      every: 'every kind',
      values: ['delivery', 'failure', 'recovery', 'drift', 'maintenance', 'uninstall', 'health'],
    },
    { name: 'module', label: 'module', placeholder: 'module' },
    query,
  );
  return [
    h('h2', {}, 'Timeline'),
    form,
    entries.length === 0
      ? h('p', {}, 'Nothing happened yet, or nothing of this kind.')
      : table(
          ['Time', 'Module', 'Kind', 'Event', 'What'],
          entries.map((entry) => [
            time(entry.time),
            link(`/ui/modules/${encodeURIComponent(entry.module)}`, entry.module),
            entry.kind,
            h('span', { class: entry.type }, entry.reason),
            entry.note,
          ]),
        ),
  ];
}

async function globalHooks(): Promise<Child[]> {
  return [
    h('h2', {}, 'Global hooks'),
    ...hooksList(await api<Hook[]>('global-hooks')),
    h('h3', {}, 'Global values'),
    await restricted('Values', 'global/origins', (body) => originsTable(body as Origin[])),
  ];
}

/** The signed-in user in the header, with a way to sign out; asked once per sign-in. */
let whoShown = false;

async function who(): Promise<void> {
  const slot = document.getElementById('who');
  if (slot === null || whoShown) return;
  whoShown = true;
  const me = await api<{ user: string; via: string }>('whoami').catch(() => undefined);
  if (me === undefined) {
    whoShown = false;
    return;
  }
  const out = h('button', { type: 'button' }, 'Sign out');
  out.addEventListener('click', () => {
    void (async () => {
      if (me.via === 'session') await fetch('/ui/auth/logout', { method: 'POST' });
      sessionStorage.removeItem(TOKEN_KEY);
      stream?.abort();
      const live = document.getElementById('live');
      if (live) live.textContent = 'signed out';
      slot.replaceChildren();
      whoShown = false;
      await render();
    })();
  });
  slot.replaceChildren(h('span', {}, me.user), me.via !== 'open' && out);
}

function signInForm(error: HttpError): Child[] {
  const back = encodeURIComponent(location.pathname + location.search);
  return [
    h('p', {}, error.message.charAt(0).toUpperCase() + error.message.slice(1)),
    error.signIn !== undefined &&
      h('p', {}, h('a', { href: `${error.signIn}?return=${back}`, class: 'sign-in' }, 'Sign in')),
    ...tokenForm(
      error.signIn === undefined ? 'Paste a Kubernetes bearer token.' : 'Or paste a Kubernetes bearer token.',
    ),
  ];
}

function tokenForm(why: string): Child[] {
  const input = h('input', {
    type: 'password',
    name: 'token',
    placeholder: 'kubectl create token …',
    'aria-label': 'Kubernetes bearer token',
    size: '60',
  });
  const form = h(
    'form',
    { class: 'token' },
    h('p', {}, why),
    input,
    h('button', { type: 'submit' }, 'Use token'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, (input as HTMLInputElement).value.trim());
    void render();
    follow();
  });
  return [form];
}

async function view(): Promise<Child[]> {
  const path = location.pathname;
  const query = new URLSearchParams(location.search);
  for (const anchor of document.querySelectorAll('nav a'))
    anchor.classList.toggle(
      'current',
      anchor.getAttribute('href') === path ||
        (path.startsWith('/ui/modules/') && anchor.getAttribute('href') === '/ui/modules'),
    );
  if (path === '/ui/modules') return modules(query);
  if (path.startsWith('/ui/modules/'))
    return moduleView(decodeURIComponent(path.slice('/ui/modules/'.length)), query);
  if (path === '/ui/queues') return queues();
  if (path === '/ui/global-hooks') return globalHooks();
  if (path === '/ui/timeline') return timeline(query);
  return overview();
}

let rendering = Promise.resolve();

function render(): Promise<void> {
  rendering = rendering.then(async () => {
    const main = document.getElementById('main');
    if (main === null) return;
    let nodes: Child[];
    try {
      nodes = await view();
      void who();
    } catch (error: unknown) {
      if (error instanceof HttpError && error.status === 401) {
        document.getElementById('who')?.replaceChildren();
        whoShown = false;
        nodes = signInForm(error);
      } else nodes = [h('p', { class: 'error' }, error instanceof Error ? error.message : String(error))];
    }
    main.replaceChildren(
      ...nodes.flatMap((node) =>
        node === undefined || node === false ? [] : [typeof node === 'number' ? String(node) : node],
      ),
    );
  });
  return rendering;
}

function navigate(href: string): void {
  history.pushState(null, '', href);
  void render();
}

let stream: AbortController | undefined;
/** After a lost stream the page may have missed changes: it redraws once reconnected. */
let missed = false;

/** Server-sent events read with fetch, so the token goes in a header; reconnects after a restart. */
function follow(): void {
  stream?.abort();
  const controller = new AbortController();
  stream = controller;
  const live = document.getElementById('live');
  const token = sessionStorage.getItem(TOKEN_KEY);
  const reconnect = (): void => {
    // Aborted on purpose (a new stream, a sign-out): nothing to reconnect.
    if (controller.signal.aborted) return;
    missed = true;
    if (live) live.textContent = 'reconnecting';
    setTimeout(follow, 1000);
  };
  void (async () => {
    const response = await fetch('/ui/api/events', {
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    if (!response.ok || response.body === null) {
      if (response.status === 401 || response.status === 403) {
        if (live) live.textContent = 'not signed in';
        return;
      }
      reconnect();
      return;
    }
    if (live) live.textContent = 'live';
    if (missed) void render();
    missed = false;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      const events = buffer.split('\n\n');
      buffer = events.pop() ?? '';
      if (events.some((event) => event.includes('event: changed'))) void render();
    }
    reconnect();
  })().catch(reconnect);
}

window.addEventListener('popstate', () => void render());
document.addEventListener('DOMContentLoaded', () => {
  for (const anchor of document.querySelectorAll<HTMLAnchorElement>('nav a'))
    anchor.addEventListener('click', (event) => {
      event.preventDefault();
      navigate(anchor.getAttribute('href') ?? '/ui/');
    });
  void render();
  follow();
});
