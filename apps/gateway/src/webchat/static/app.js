// Switchboard WebChat: a chat page for the gateway, speaking the gateway's WebSocket
// protocol like any other client. No framework and no build step; model output is turned
// into DOM nodes by markdown.js and never parsed as HTML.
import { GatewayClosedError, GatewayRequestError, openConnection, randomId } from './connection.js';
import { describeConnectError, describeRunError } from './describe-error.js';
import { parseMarkdown, safeUrl, textOf } from './markdown.js';

const tokenKey = 'switchboard.webchat.token';
const sessionKey = 'switchboard.webchat.session';
/** Titles waiting to be stored on the gateway as session labels (the session may not exist yet). */
const titlesKey = 'switchboard.webchat.titles';
const labelMaxLength = 64;

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const ui = {
  app: byId('app'),
  sidebar: byId('sidebar'),
  sessions: byId('sessions'),
  newChat: /** @type {HTMLButtonElement} */ (byId('new-chat')),
  status: byId('status'),
  statusText: byId('status-text'),
  forget: byId('forget'),
  menu: byId('menu'),
  title: byId('session-title'),
  titleInput: /** @type {HTMLInputElement} */ (byId('title-input')),
  rename: byId('rename'),
  meta: byId('session-meta'),
  banner: byId('banner'),
  messages: byId('messages'),
  jump: byId('jump'),
  backdrop: byId('backdrop'),
  composer: /** @type {HTMLFormElement} */ (byId('composer')),
  input: /** @type {HTMLTextAreaElement} */ (byId('input')),
  send: /** @type {HTMLButtonElement} */ (byId('send')),
  stop: /** @type {HTMLButtonElement} */ (byId('stop')),
  login: byId('login'),
  loginForm: /** @type {HTMLFormElement} */ (byId('login-form')),
  token: /** @type {HTMLInputElement} */ (byId('token')),
  loginError: byId('login-error'),
};

/**
 * @typedef {object} ToolView
 * @property {string} id
 * @property {string} name
 * @property {unknown} args
 * @property {'running' | 'done' | 'error'} status
 * @property {string} result
 * @property {number} offset  where in the reply text the call happened
 * @property {HTMLElement | undefined} element
 */
/**
 * @typedef {object} TurnView
 * @property {string | undefined} runId
 * @property {'pending' | 'streaming' | 'final' | 'aborted' | 'error'} state
 * @property {string} text
 * @property {number} agentTextLength
 * @property {Map<string, ToolView>} tools
 * @property {any} usage
 * @property {any} error
 * @property {boolean} local  started from this page
 * @property {number} startedAt
 * @property {HTMLElement} element
 * @property {boolean} dirty
 */

const state = {
  /** @type {string | undefined} */
  token: undefined,
  /** @type {any} */
  connection: undefined,
  /** @type {string | undefined} */
  sessionKey: undefined,
  defaultAgentId: 'main',
  mainKey: 'main',
  /** @type {any[]} */
  sessions: [],
  /** Sessions created here that the gateway has not stored yet. @type {Set<string>} */
  draftSessions: new Set(),
  /** @type {Map<string, TurnView>} */
  turns: new Map(),
  /** Running runs per session. @type {Map<string, Set<string>>} */
  activeRuns: new Map(),
  reconnectDelayMs: 1000,
  /** Only the newest connection attempt counts (the sign-in form can start one while another runs). */
  connectAttempt: 0,
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  reconnectTimer: undefined,
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  sessionsTimer: undefined,
  historyRequest: 0,
};

function readTitles() {
  try {
    return /** @type {Record<string, string>} */ (JSON.parse(localStorage.getItem(titlesKey) ?? '{}'));
  } catch {
    return {};
  }
}

/** @param {string} key @param {string | undefined} title */
function setPendingTitle(key, title) {
  const titles = readTitles();
  if (title === undefined) delete titles[key];
  else titles[key] = title;
  const keys = Object.keys(titles);
  for (const old of keys.slice(0, Math.max(0, keys.length - 200))) delete titles[old];
  if (keys.length === 0) localStorage.removeItem(titlesKey);
  else localStorage.setItem(titlesKey, JSON.stringify(titles));
}

/** One line, at most the gateway's label length. @param {string} text @param {number} [limit] */
function titleFrom(text, limit = labelMaxLength) {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

// ---------------------------------------------------------------------------------------
// Small DOM helpers (text only ever goes through text nodes)

/**
 * @param {string} tag
 * @param {{ className?: string, text?: string, attrs?: Record<string, string> }} [options]
 * @param {(Node | string)[]} [children]
 */
function h(tag, options = {}, children = []) {
  const node = document.createElement(tag);
  if (options.className !== undefined) node.className = options.className;
  if (options.text !== undefined) node.textContent = options.text;
  for (const [name, value] of Object.entries(options.attrs ?? {})) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

const markdownTags = new Set([
  'p',
  'br',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'blockquote',
  'ul',
  'ol',
  'li',
  'pre',
  'code',
  'strong',
  'em',
  'del',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'div',
]);
const markdownAttributes = new Set([
  'href',
  'rel',
  'target',
  'start',
  'data-language',
  'data-align',
  'class',
]);

/**
 * Builds DOM nodes from markdown.js's tree: known tags and attributes only.
 * @param {import('./markdown.js').MarkdownNode} node
 * @returns {Node}
 */
function toDom(node) {
  if (typeof node === 'string') return document.createTextNode(node);
  if (!markdownTags.has(node.tag)) return document.createTextNode(textOf([node]));
  if (node.tag === 'pre') return codeBlock(textOf(node.children), node.attrs?.['data-language'] ?? '');
  const element = document.createElement(node.tag);
  for (const [name, value] of Object.entries(node.attrs ?? {})) {
    if (!markdownAttributes.has(name)) continue;
    if (name === 'href') {
      const href = safeUrl(value);
      if (href !== undefined) element.setAttribute('href', href);
      continue;
    }
    if (name === 'class' && value !== 'table-wrap') continue;
    element.setAttribute(name, value);
  }
  for (const child of node.children) element.append(toDom(child));
  return element;
}

/** @param {string} code @param {string} language */
function codeBlock(code, language) {
  const copy = h('button', { className: 'copy', text: 'Copy', attrs: { type: 'button' } });
  copy.addEventListener('click', () => {
    void copyText(code).then((ok) => {
      copy.textContent = ok ? 'Copied' : 'Select and copy';
      setTimeout(() => {
        copy.textContent = 'Copy';
      }, 1500);
    });
  });
  return h('div', { className: 'code' }, [
    h('div', { className: 'code-head' }, [h('span', { text: language === '' ? 'code' : language }), copy]),
    h('pre', {}, [h('code', { text: code })]),
  ]);
}

/** @param {string} text */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** @param {string} text */
function renderMarkdown(text) {
  const fragment = document.createDocumentFragment();
  for (const node of parseMarkdown(text)) fragment.append(toDom(node));
  return fragment;
}

/** @param {number} value */
const count = (value) => Number(value ?? 0).toLocaleString('en-US');

/** @param {any} usage */
function formatUsage(usage) {
  if (usage === undefined || usage === null) return '';
  if (!(Number(usage.input) > 0) && !(Number(usage.output) > 0)) return '';
  const parts = [`${count(usage.input)} in`, `${count(usage.output)} out`];
  if (Number(usage.cacheRead) > 0) parts.push(`${count(usage.cacheRead)} cached`);
  const cost = Number(usage.cost?.total ?? 0);
  if (cost > 0) parts.push(`$${cost < 0.01 ? cost.toFixed(4) : cost.toFixed(2)}`);
  return `Tokens: ${parts.join(' · ')}`;
}

/** @param {number} timestamp */
function ago(timestamp) {
  const seconds = Math.max(0, Math.round((Date.now() - timestamp) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(timestamp).toLocaleDateString();
}

/** @param {unknown} value @param {number} limit */
function shortJson(value, limit) {
  let text;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  text = text ?? '';
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

// ---------------------------------------------------------------------------------------
// Status, banner, login

/** @param {'connecting' | 'connected' | 'offline'} status @param {string} text */
function setStatus(status, text) {
  ui.status.dataset.status = status;
  ui.statusText.textContent = text;
}

/** @param {string | undefined} text @param {'info' | 'error'} [tone] */
function setBanner(text, tone = 'info') {
  ui.banner.hidden = text === undefined;
  ui.banner.textContent = text ?? '';
  ui.banner.dataset.tone = tone;
}

/** @param {string} [message] */
function showLogin(message) {
  document.documentElement.dataset.state = 'login';
  ui.login.hidden = false;
  ui.loginError.textContent = message ?? '';
  setStatus('offline', 'Not connected');
  ui.token.focus();
  ui.token.select();
}

ui.loginForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const token = ui.token.value.trim();
  if (token === '') {
    ui.loginError.textContent = 'Paste the token first.';
    return;
  }
  state.token = token;
  ui.loginError.textContent = '';
  void connect({ fromLogin: true });
});

ui.forget.addEventListener('click', () => {
  localStorage.removeItem(tokenKey);
  state.token = undefined;
  state.connectAttempt += 1;
  state.connection?.close();
  state.connection = undefined;
  clearTimeout(state.reconnectTimer);
  showLogin('Token forgotten. Paste a token to connect again.');
});

// ---------------------------------------------------------------------------------------
// Connection

/** @param {{ fromLogin?: boolean, firstVisit?: boolean }} [options] */
async function connect(options = {}) {
  const ticket = ++state.connectAttempt;
  clearTimeout(state.reconnectTimer);
  setStatus('connecting', 'Connecting…');
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`;
  let connection;
  try {
    connection = await openConnection({
      url,
      token: state.token,
      version: document.documentElement.dataset.version ?? '0',
      onEvent,
      onClose,
    });
  } catch (error) {
    if (ticket !== state.connectAttempt) return;
    if (error instanceof GatewayRequestError) {
      const described = describeConnectError(error.error);
      if (described.askToken) {
        if (error.detailCode === 'AUTH_TOKEN_MISMATCH') localStorage.removeItem(tokenKey);
        // A first visit already shows the form; no token yet is not an error.
        if (options.firstVisit === true && error.detailCode === 'AUTH_TOKEN_MISSING')
          setStatus('offline', 'Not connected');
        else showLogin(described.message);
        return;
      }
      setBanner(described.message, 'error');
    } else {
      scheduleReconnect(`Cannot reach the gateway at ${location.host}.`);
    }
    if (options.fromLogin === true)
      ui.loginError.textContent = error instanceof Error ? error.message : String(error);
    return;
  }
  if (ticket !== state.connectAttempt) {
    connection.close();
    return;
  }
  state.connection = connection;
  state.reconnectDelayMs = 1000;
  if (state.token !== undefined) localStorage.setItem(tokenKey, state.token);
  ui.login.hidden = true;
  setBanner(undefined);
  setStatus('connected', 'Connected');
  const defaults = connection.hello?.snapshot?.sessionDefaults ?? {};
  state.defaultAgentId = defaults.defaultAgentId ?? 'main';
  state.mainKey = defaults.mainKey ?? 'main';
  const mainSession = defaults.mainSessionKey ?? `agent:${state.defaultAgentId}:${state.mainKey}`;
  await refreshSessions();
  const remembered = localStorage.getItem(sessionKey) ?? undefined;
  const known =
    remembered !== undefined &&
    (state.sessions.some((row) => row.key === remembered) || remembered === mainSession);
  await selectSession(state.sessionKey ?? (known ? remembered : mainSession));
  document.documentElement.dataset.state = 'ready';
}

/** @param {number} code @param {string} reason */
function onClose(code, reason) {
  state.connection = undefined;
  state.activeRuns.clear();
  updateComposer();
  if (code === 1008 && /unauthori[sz]ed/i.test(reason)) {
    showLogin('The gateway no longer accepts this token.');
    return;
  }
  scheduleReconnect(code === 1012 ? 'The gateway is restarting.' : 'Lost the connection to the gateway.');
}

/** @param {string} why */
function scheduleReconnect(why) {
  document.documentElement.dataset.state = 'offline';
  const delay = state.reconnectDelayMs;
  state.reconnectDelayMs = Math.min(30_000, delay * 2);
  setStatus('offline', 'Offline');
  setBanner(`${why} Reconnecting in ${Math.round(delay / 1000)} s…`, 'error');
  clearTimeout(state.reconnectTimer);
  state.reconnectTimer = setTimeout(() => void connect(), delay);
}

/** @param {string} method @param {unknown} [params] */
function request(method, params) {
  if (state.connection === undefined) return Promise.reject(new GatewayClosedError('not connected', 0));
  return state.connection.request(method, params);
}

// ---------------------------------------------------------------------------------------
// Sessions

async function refreshSessions() {
  try {
    const result = await request('sessions.list', { limit: 100 });
    state.sessions = Array.isArray(result.sessions) ? result.sessions : [];
    for (const row of state.sessions) {
      state.draftSessions.delete(row.key);
      const listed = (Array.isArray(row.activeRunIds) ? row.activeRunIds : []).filter((runId) => {
        const known = state.turns.get(runId)?.state;
        return known !== 'final' && known !== 'aborted' && known !== 'error';
      });
      // A run just sent from this page may not be listed yet; one with events is trusted.
      const local = [...(state.activeRuns.get(row.key) ?? [])].filter((runId) => {
        const turn = state.turns.get(runId);
        return turn?.local === true && (turn.state === 'streaming' || Date.now() - turn.startedAt < 5000);
      });
      const runs = new Set([...listed, ...local]);
      if (runs.size > 0) state.activeRuns.set(row.key, runs);
      else state.activeRuns.delete(row.key);
    }
    syncTitles();
    if (state.sessionKey !== undefined) {
      updateComposer();
      // A message that never got a reply event (merged into another run, or dropped from the
      // queue) would wait forever: the transcript has the truth, so load it again.
      const key = state.sessionKey;
      const waiting = [...state.turns.values()].some((turn) => turn.local && turn.state === 'pending');
      if (waiting && !state.activeRuns.has(key) && !state.draftSessions.has(key)) void selectSession(key);
    }
  } catch (error) {
    if (!(error instanceof GatewayClosedError))
      setBanner(`Could not list sessions: ${String(error.message)}`, 'error');
  }
  renderSessions();
}

function refreshSessionsSoon() {
  clearTimeout(state.sessionsTimer);
  state.sessionsTimer = setTimeout(() => void refreshSessions(), 250);
}

/** Keys whose label is being written right now. @type {Set<string>} */
const labelWrites = new Set();

/**
 * Stores titles chosen here (the first message, a rename, or one kept by an older version of
 * this page) as labels on the gateway once their session exists there, so every browser
 * shows them. A label the gateway already has wins over a title not stored yet.
 */
function syncTitles() {
  const pending = readTitles();
  for (const row of state.sessions) {
    const title = pending[row.key];
    if (title === undefined || labelWrites.has(row.key)) continue;
    if (row.label) setPendingTitle(row.key, undefined);
    else void saveLabel(row.key, title);
  }
}

/** @param {string} key @param {string | null} label */
async function saveLabel(key, label) {
  labelWrites.add(key);
  try {
    const result = await request('sessions.patch', { key, label });
    const index = state.sessions.findIndex((row) => row.key === key);
    if (index >= 0 && result?.entry) state.sessions[index] = result.entry;
    setPendingTitle(key, undefined);
  } catch (error) {
    // Offline: the title stays waiting and is stored after the next connect.
    if (!(error instanceof GatewayClosedError)) {
      setPendingTitle(key, undefined);
      setBanner(`Could not rename this chat: ${String(error.message)}`, 'error');
    }
  } finally {
    labelWrites.delete(key);
  }
  renderSessions();
}

/** @param {string} key @param {any} [row] */
function sessionTitle(key, row) {
  const waiting = readTitles()[key];
  if (waiting !== undefined) return waiting;
  if (row?.label) return String(row.label);
  if (row?.displayName) return String(row.displayName);
  const rest = key.split(':').slice(2).join(':');
  if (rest === state.mainKey) return 'Main session';
  if (rest.startsWith('webchat-')) return 'New chat';
  return rest === '' ? key : rest;
}

/** @type {Map<string, HTMLLIElement>} */
const sessionItems = new Map();
let sessionsSignature = '';

/**
 * Renders the session list. Rows are kept per key and only moved or updated, so a click
 * never lands on a row that was replaced under the pointer.
 */
function renderSessions() {
  const rows = [
    ...[...state.draftSessions].map((key) => ({ key, updatedAt: Date.now(), draft: true })),
    ...state.sessions,
  ];
  if (state.sessionKey !== undefined && !rows.some((row) => row.key === state.sessionKey))
    rows.unshift({ key: state.sessionKey, updatedAt: Date.now(), draft: true });
  const views = rows.map((row) => ({
    key: String(row.key),
    title: sessionTitle(row.key, row),
    meta: [
      row.draft === true ? 'not started' : ago(row.updatedAt),
      row.channel && row.channel !== 'webchat' ? row.channel : '',
    ]
      .filter(Boolean)
      .join(' · '),
    running: (state.activeRuns.get(row.key)?.size ?? 0) > 0,
    current: row.key === state.sessionKey,
  }));
  const signature = JSON.stringify(views);
  if (signature !== sessionsSignature) {
    sessionsSignature = signature;
    const keep = new Set(views.map((view) => view.key));
    for (const [key, item] of sessionItems) {
      if (!keep.has(key)) {
        item.remove();
        sessionItems.delete(key);
      }
    }
    views.forEach((view, position) => {
      let item = sessionItems.get(view.key);
      if (item === undefined) {
        item = /** @type {HTMLLIElement} */ (
          h('li', {}, [
            h('button', { className: 'session', attrs: { type: 'button', 'data-key': view.key } }, [
              h('span', { className: 'session-title' }),
              h('span', { className: 'session-meta' }),
            ]),
          ])
        );
        sessionItems.set(view.key, item);
      }
      const button = /** @type {HTMLElement} */ (item.firstElementChild);
      /** @type {HTMLElement} */ (button.children[0]).textContent = view.title;
      /** @type {HTMLElement} */ (button.children[1]).textContent = view.meta;
      const dot = button.querySelector('.running');
      if (view.running && dot === null)
        button.append(h('i', { className: 'running', attrs: { title: 'Working' } }));
      if (!view.running) dot?.remove();
      if (view.current) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
      if (ui.sessions.children[position] !== item)
        ui.sessions.insertBefore(item, ui.sessions.children[position] ?? null);
    });
  }
  if (state.sessionKey !== undefined) {
    const row = state.sessions.find((entry) => entry.key === state.sessionKey);
    ui.title.textContent = sessionTitle(state.sessionKey, row);
    ui.meta.textContent = row?.model ? `${row.model}` : '';
    document.title = `${ui.title.textContent} · Switchboard`;
  }
}

ui.sessions.addEventListener('click', (event) => {
  const button = /** @type {HTMLElement | null} */ (
    event.target instanceof Element ? event.target.closest('.session') : null
  );
  const key = button?.dataset.key;
  if (key === undefined) return;
  setDrawer(false);
  void selectSession(key);
});

ui.newChat.addEventListener('click', () => {
  const suffix = `${Date.now().toString(36)}${randomId().slice(0, 4)}`.toLowerCase();
  const key = `agent:${state.defaultAgentId}:webchat-${suffix}`;
  state.draftSessions.add(key);
  setDrawer(false);
  void selectSession(key);
  ui.input.focus();
});

/** Opens or closes the session drawer (small screens). @param {boolean} open */
function setDrawer(open) {
  ui.app.classList.toggle('sidebar-open', open);
  ui.menu.setAttribute('aria-expanded', String(open));
}

ui.menu.addEventListener('click', () => setDrawer(!ui.app.classList.contains('sidebar-open')));
ui.backdrop.addEventListener('click', () => setDrawer(false));
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && ui.app.classList.contains('sidebar-open')) setDrawer(false);
});

function startRename() {
  if (state.sessionKey === undefined) return;
  ui.titleInput.value = ui.title.textContent ?? '';
  ui.title.hidden = true;
  ui.rename.hidden = true;
  ui.titleInput.hidden = false;
  ui.titleInput.focus();
  ui.titleInput.select();
}

/** An empty title clears the label. @param {boolean} save */
function finishRename(save) {
  if (ui.titleInput.hidden) return;
  ui.titleInput.hidden = true;
  ui.title.hidden = false;
  ui.rename.hidden = false;
  const key = state.sessionKey;
  const title = titleFrom(ui.titleInput.value);
  if (!save || key === undefined || title === ui.title.textContent) return;
  setPendingTitle(key, title === '' ? undefined : title);
  // A session the gateway does not have yet gets its label once it does (syncTitles).
  if (state.sessions.some((row) => row.key === key)) void saveLabel(key, title === '' ? null : title);
  renderSessions();
}

ui.rename.addEventListener('click', startRename);
ui.title.addEventListener('dblclick', startRename);
ui.titleInput.addEventListener('blur', () => finishRename(true));
ui.titleInput.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.isComposing) {
    event.preventDefault();
    finishRename(true);
  } else if (event.key === 'Escape') finishRename(false);
});

/** @param {string} key */
async function selectSession(key) {
  state.sessionKey = key;
  localStorage.setItem(sessionKey, key);
  state.turns.clear();
  renderSessions();
  ui.messages.replaceChildren();
  updateJump();
  updateComposer();
  const ticket = ++state.historyRequest;
  if (state.draftSessions.has(key)) {
    renderEmpty();
    return;
  }
  ui.messages.dataset.loading = 'true';
  let history;
  try {
    history = await request('chat.history', { sessionKey: key, limit: 200 });
  } catch (error) {
    if (ticket === state.historyRequest)
      setBanner(`Could not load this session's history: ${String(error.message)}`, 'error');
    return;
  } finally {
    if (ticket === state.historyRequest) delete ui.messages.dataset.loading;
  }
  if (ticket !== state.historyRequest) return;
  renderHistory(history);
  for (const runId of state.activeRuns.get(key) ?? []) turnFor(runId, false).state = 'streaming';
  flushRenders();
  updateComposer();
  scrollToBottom(true);
}

function renderEmpty() {
  if (ui.messages.childElementCount > 0) return;
  ui.messages.append(
    h('div', { className: 'empty' }, [
      h('p', { className: 'empty-title', text: 'No messages yet.' }),
      h('p', { className: 'muted', text: 'Say hello: your agent answers here, with its tools.' }),
    ]),
  );
}

// ---------------------------------------------------------------------------------------
// Messages

/** @param {any} content */
function contentText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) =>
      block?.type === 'text' ? String(block.text ?? '') : block?.type === 'image' ? '[image]' : '',
    )
    .join('');
}

/** @param {string} text @param {number} [timestamp] */
function appendUser(text, timestamp) {
  ui.messages.querySelector('.empty')?.remove();
  const node = h('div', { className: 'message user' }, [h('div', { className: 'bubble', text })]);
  if (timestamp !== undefined) node.title = new Date(timestamp).toLocaleString();
  ui.messages.append(node);
}

/** @param {string | undefined} runId @param {boolean} local @returns {TurnView} */
function createTurn(runId, local) {
  ui.messages.querySelector('.empty')?.remove();
  const element = h('article', { className: 'message assistant' });
  if (runId !== undefined) element.dataset.runId = runId;
  ui.messages.append(element);
  /** @type {TurnView} */
  const turn = {
    runId,
    state: 'pending',
    text: '',
    agentTextLength: 0,
    tools: new Map(),
    usage: undefined,
    error: undefined,
    local,
    startedAt: Date.now(),
    element,
    dirty: true,
  };
  if (runId !== undefined) state.turns.set(runId, turn);
  return turn;
}

/** @param {string} runId @param {boolean} local */
function turnFor(runId, local) {
  return state.turns.get(runId) ?? createTurn(runId, local);
}

/** @param {TurnView} turn @param {string} id @param {string} name */
function toolFor(turn, id, name) {
  let tool = turn.tools.get(id);
  if (tool === undefined) {
    tool = {
      id,
      name,
      args: undefined,
      status: 'running',
      result: '',
      offset: turn.agentTextLength,
      element: undefined,
    };
    turn.tools.set(id, tool);
  }
  return tool;
}

/** @param {any} history */
function renderHistory(history) {
  const messages = Array.isArray(history?.messages) ? history.messages : [];
  if (history?.hasMore === true)
    ui.messages.append(
      h('p', {
        className: 'muted center small',
        text: `Showing the last ${messages.length} of ${history.totalMessages} messages.`,
      }),
    );
  /** @type {TurnView | undefined} */
  let turn;
  let usage;
  const finish = () => {
    if (turn === undefined) return;
    turn.usage = usage;
    if (turn.state === 'pending') turn.state = 'final';
    renderTurn(turn);
    turn = undefined;
    usage = undefined;
  };
  for (const message of messages) {
    if (message?.role === 'user') {
      finish();
      appendUser(contentText(message.content), message.timestamp);
      continue;
    }
    if (message?.role === 'assistant') {
      turn ??= createTurn(undefined, false);
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (block?.type === 'text' && String(block.text ?? '') !== '') {
          if (turn.text !== '') turn.text += '\n\n';
          turn.text += String(block.text);
          turn.agentTextLength = turn.text.length;
        } else if (block?.type === 'toolCall') {
          const tool = toolFor(turn, String(block.id), String(block.name));
          tool.args = block.arguments;
          tool.status = 'done';
        }
      }
      if (message.usage !== undefined) {
        usage ??= { input: 0, output: 0, cacheRead: 0, cost: { total: 0 } };
        usage.input += Number(message.usage.input ?? 0);
        usage.output += Number(message.usage.output ?? 0);
        usage.cacheRead += Number(message.usage.cacheRead ?? 0);
        usage.cost.total += Number(message.usage.cost?.total ?? 0);
      }
      if (message.stopReason === 'error') {
        turn.state = 'error';
        turn.error = {
          errorMessage: message.errorMessage,
          errorDetail: { errorClass: message.errorClass, retryAfterMs: message.errorDetails?.retryAfterMs },
        };
      } else if (message.stopReason === 'aborted') turn.state = 'aborted';
      continue;
    }
    if (message?.role === 'toolResult' && turn !== undefined) {
      const tool = toolFor(turn, String(message.toolCallId), String(message.toolName ?? 'tool'));
      tool.status = message.isError === true ? 'error' : 'done';
      tool.result = contentText(message.content);
    }
  }
  finish();
  if (messages.length === 0) renderEmpty();
}

let renderScheduled = false;
function scheduleRender() {
  if (renderScheduled) return;
  renderScheduled = true;
  requestAnimationFrame(() => {
    renderScheduled = false;
    flushRenders();
  });
}

function flushRenders() {
  // Whoever was at the bottom stays there, however much text arrived; others get the jump control.
  const stick = nearBottom();
  for (const turn of state.turns.values()) if (turn.dirty) renderTurn(turn);
  if (stick) scrollToBottom(true);
  updateJump();
}

/** @param {ToolView} tool */
function toolElement(tool) {
  const label = tool.status === 'running' ? 'running…' : tool.status === 'error' ? 'failed' : 'done';
  const summary = h('summary', {}, [
    h('span', {
      className: 'tool-icon',
      text: tool.status === 'running' ? '⚙' : tool.status === 'error' ? '✗' : '✓',
    }),
    h('span', { className: 'tool-name', text: tool.name }),
    h('span', { className: 'tool-args', text: shortJson(tool.args ?? '', 60) }),
    h('span', { className: 'tool-status', text: label }),
  ]);
  const body = h('div', { className: 'tool-body' }, [
    h('div', { className: 'tool-label', text: 'Arguments' }),
    h('pre', { text: shortJson(tool.args ?? {}, 4000) }),
  ]);
  if (tool.result !== '')
    body.append(
      h('div', { className: 'tool-label', text: 'Result' }),
      h('pre', { text: shortJson(tool.result, 4000) }),
    );
  const element = tool.element ?? h('details', { className: 'tool' });
  element.dataset.status = tool.status;
  element.replaceChildren(summary, body);
  tool.element = element;
  return element;
}

/** @param {TurnView} turn */
function renderTurn(turn) {
  turn.dirty = false;
  const element = turn.element;
  element.dataset.state = turn.state;
  const content = h('div', { className: 'content' });
  const tools = [...turn.tools.values()].sort((a, b) => a.offset - b.offset);
  let position = 0;
  for (const tool of tools) {
    const offset = Math.min(tool.offset, turn.text.length);
    if (offset > position) content.append(renderMarkdown(turn.text.slice(position, offset)));
    position = Math.max(position, offset);
    content.append(toolElement(tool));
  }
  if (position < turn.text.length) content.append(renderMarkdown(turn.text.slice(position)));
  const working = turn.state === 'pending' || turn.state === 'streaming';
  if (working && turn.text === '' && turn.tools.size === 0)
    content.append(
      h('span', { className: 'typing', attrs: { 'aria-label': 'The agent is working' } }, [
        h('i', { className: 'dot' }),
        h('i', { className: 'dot' }),
        h('i', { className: 'dot' }),
      ]),
    );
  else if (working) content.append(h('span', { className: 'caret' }));
  if (turn.state === 'final' && turn.text === '' && turn.tools.size === 0)
    content.append(h('p', { className: 'muted', text: '(no reply)' }));
  if (turn.state === 'error') {
    const described = describeRunError(turn.error ?? {});
    const box = h('div', { className: 'error-box', attrs: { role: 'alert' } }, [
      h('strong', { text: described.title }),
    ]);
    if (described.hint !== '') box.append(' ', h('span', { text: described.hint }));
    if (described.detail !== '' && described.detail !== described.title)
      box.append(h('details', {}, [h('summary', { text: 'Details' }), h('pre', { text: described.detail })]));
    content.append(box);
  }
  const footer = h('div', { className: 'footer' });
  if (turn.state === 'aborted') footer.append(h('span', { className: 'stopped', text: 'Stopped' }));
  const usage = formatUsage(turn.usage);
  if (usage !== '') footer.append(h('span', { className: 'usage', text: usage }));
  element.replaceChildren(content, footer);
}

function nearBottom() {
  return ui.messages.scrollHeight - ui.messages.scrollTop - ui.messages.clientHeight < 80;
}

/** @param {boolean} force */
function scrollToBottom(force) {
  if (force || nearBottom()) ui.messages.scrollTop = ui.messages.scrollHeight;
  updateJump();
}

/** Shows "jump to newest" while the newest text is below the view. */
function updateJump() {
  ui.jump.hidden = nearBottom();
}

ui.messages.addEventListener('scroll', updateJump, { passive: true });
addEventListener('resize', updateJump);
ui.jump.addEventListener('click', () => scrollToBottom(true));

// ---------------------------------------------------------------------------------------
// Events from the gateway

/** @param {string} event @param {any} payload */
function onEvent(event, payload) {
  if (event === 'chat') onChat(payload);
  else if (event === 'agent') onAgent(payload);
  else if (event === 'session.run')
    markRun(String(payload?.sessionKey ?? ''), String(payload?.runId ?? ''), payload?.state === 'started');
  else if (event === 'tick') refreshSessionsSoon();
  else if (event === 'shutdown') setBanner('The gateway is shutting down.', 'error');
}

/** @param {string} key @param {string} runId @param {boolean} running */
function markRun(key, runId, running) {
  let runs = state.activeRuns.get(key);
  if (running) {
    if (runs === undefined) {
      runs = new Set();
      state.activeRuns.set(key, runs);
    }
    if (!runs.has(runId)) {
      runs.add(runId);
      renderSessions();
    }
  } else if (runs?.delete(runId) === true) {
    if (runs.size === 0) state.activeRuns.delete(key);
    renderSessions();
    refreshSessionsSoon();
  }
  if (key === state.sessionKey) updateComposer();
}

/** @param {any} payload */
function onChat(payload) {
  const runId = String(payload?.runId ?? '');
  const key = String(payload?.sessionKey ?? '');
  const terminal = payload?.state === 'final' || payload?.state === 'aborted' || payload?.state === 'error';
  markRun(key, runId, !terminal);
  if (key !== state.sessionKey || runId === '') return;
  const known = state.turns.get(runId);
  if (
    known !== undefined &&
    (known.state === 'final' || known.state === 'aborted' || known.state === 'error')
  )
    return;
  const turn = turnFor(runId, false);
  const snapshot = contentText(payload.message?.content);
  switch (payload.state) {
    case 'delta':
      turn.state = 'streaming';
      turn.text =
        snapshot !== '' || payload.replace === true ? snapshot : turn.text + String(payload.deltaText ?? '');
      break;
    case 'final':
      turn.state = 'final';
      if (snapshot !== '' || turn.tools.size === 0) turn.text = snapshot;
      turn.usage = payload.usage;
      break;
    case 'aborted':
      turn.state = 'aborted';
      break;
    case 'error':
      turn.state = 'error';
      turn.error = payload;
      break;
    default:
      return;
  }
  turn.dirty = true;
  scheduleRender();
  // A run started elsewhere (CLI, another tab): its user message is only in the history.
  if (terminal && !turn.local) setTimeout(() => void reloadIfIdle(key), 300);
}

/** @param {string} key */
async function reloadIfIdle(key) {
  if (state.sessionKey !== key || (state.activeRuns.get(key)?.size ?? 0) > 0) return;
  await selectSession(key);
}

/** @param {any} payload */
function onAgent(payload) {
  const key = String(payload?.sessionKey ?? '');
  const runId = String(payload?.runId ?? '');
  const data = payload?.data ?? {};
  if (payload?.stream === 'lifecycle' && data.phase === 'start') markRun(key, runId, true);
  if (key !== state.sessionKey || runId === '') return;
  const known = state.turns.get(runId);
  if (known !== undefined && known.state !== 'pending' && known.state !== 'streaming') return;
  if (payload.stream === 'assistant') {
    const turn = turnFor(runId, false);
    turn.agentTextLength = typeof data.text === 'string' ? data.text.length : turn.agentTextLength;
    return;
  }
  if (payload.stream === 'lifecycle' && data.phase === 'start') {
    const turn = turnFor(runId, false);
    turn.state = 'streaming';
    turn.dirty = true;
    scheduleRender();
    return;
  }
  if (payload.stream !== 'tool') return;
  const turn = turnFor(runId, false);
  turn.state = 'streaming';
  const tool = toolFor(turn, String(data.toolCallId ?? data.name), String(data.name ?? 'tool'));
  if (data.phase === 'start') tool.args = data.args;
  if (data.phase === 'result') {
    tool.status = data.isError === true ? 'error' : 'done';
    tool.result = contentText(data.result?.content) || shortJson(data.result ?? '', 4000);
  }
  turn.dirty = true;
  scheduleRender();
}

// ---------------------------------------------------------------------------------------
// Sending and stopping

function updateComposer() {
  const running = state.sessionKey !== undefined && (state.activeRuns.get(state.sessionKey)?.size ?? 0) > 0;
  ui.stop.hidden = !running;
  ui.send.disabled = state.connection === undefined;
}

async function send() {
  const text = ui.input.value.trim();
  const key = state.sessionKey;
  if (text === '' || key === undefined || state.connection === undefined) return;
  ui.input.value = '';
  autosize();
  // A new chat is titled after its first message; the gateway stores it as the label.
  const row = state.sessions.find((entry) => entry.key === key);
  if (
    !row?.label &&
    readTitles()[key] === undefined &&
    (state.draftSessions.has(key) || sessionTitle(key, row) === 'New chat')
  ) {
    setPendingTitle(key, titleFrom(text, 48));
    renderSessions();
  }
  appendUser(text, Date.now());
  const runId = randomId();
  const turn = createTurn(runId, true);
  renderTurn(turn);
  scrollToBottom(true);
  try {
    const result = await request('chat.send', { sessionKey: key, message: text, idempotencyKey: runId });
    // Accepted: the gateway has the session now, so it is no longer a draft.
    if (state.draftSessions.delete(key)) refreshSessionsSoon();
    if (result.status === 'ok' && typeof result.reply === 'string') {
      turn.state = 'final';
      turn.text = result.reply;
      turn.dirty = true;
      scheduleRender();
      refreshSessionsSoon();
    } else if (result.status === 'finished') {
      await selectSession(key);
    } else if (turn.state === 'pending') {
      markRun(key, runId, true);
    }
  } catch (error) {
    turn.state = 'error';
    turn.error = { errorMessage: error instanceof Error ? error.message : String(error) };
    turn.dirty = true;
    scheduleRender();
    markRun(key, runId, false);
  }
}

ui.composer.addEventListener('submit', (event) => {
  event.preventDefault();
  void send();
});

ui.input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void send();
  }
});

function autosize() {
  ui.input.style.height = 'auto';
  ui.input.style.height = `${Math.min(ui.input.scrollHeight, 240)}px`;
}
ui.input.addEventListener('input', autosize);

ui.stop.addEventListener('click', () => {
  const key = state.sessionKey;
  if (key === undefined) return;
  ui.stop.disabled = true;
  request('chat.abort', { sessionKey: key })
    .catch((error) => setBanner(`Could not stop the reply: ${String(error.message)}`, 'error'))
    .finally(() => {
      ui.stop.disabled = false;
    });
});

// ---------------------------------------------------------------------------------------
// Start

function start() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromLink = fragment.get('token');
  if (fromLink !== null && fromLink !== '') {
    localStorage.setItem(tokenKey, fromLink);
    history.replaceState(null, '', location.pathname + location.search);
  }
  state.token = localStorage.getItem(tokenKey) ?? undefined;
  updateComposer();
  if (state.token === undefined) {
    // Ask at once; meanwhile try without one, since a gateway with auth mode "none" needs none.
    showLogin();
    void connect({ firstVisit: true });
    return;
  }
  void connect();
}

start();
