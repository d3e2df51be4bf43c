// `switchboard import openclaw` against OpenClaw state directories built the way OpenClaw
// lays them out (fixtures/openclaw/openclaw-state.ts): the classic 2026.6 files and the
// 2026.9.6 SQLite databases. Then a real gateway on the imported state, with the real grammY
// and Anthropic SDK clients against the testkit fakes: a paired sender is answered without a
// pairing prompt, in the session they had, with its history in the model's context.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultAuthStateNamespaces } from '@switchboard/auth-profiles';
import type { Message } from '@switchboard/hooks';
import { createSqliteSessionStore, type SessionStore } from '@switchboard/sessions';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { createFakeTelegram, type FakeTelegram } from '@switchboard/testkit/telegram';
import JSON5 from 'json5';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { modelApis } from '../src/config/schema.ts';
import { startGateway } from '../src/gateway/start-gateway.ts';
import { importErrorCodes } from '../src/import/errors.ts';
import { createGatewayLogger } from '../src/runtime/logger.ts';
import { checkConfigFile } from '../src/runtime/plugins.ts';
import {
  build2026OpenClawState,
  buildClassicOpenClawState,
  fixtureFacts,
} from './fixtures/openclaw/openclaw-state.ts';

const telegramToken = '123456789:TEST-switchboard-token';
const anthropicBaseUrl = 'http://127.0.0.1:9/';
const directories: string[] = [];

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-import-'));
  directories.push(directory);
  return directory;
}

afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

async function cli(args: readonly string[]): Promise<{ code: number; out: string; error: string }> {
  let out = '';
  let error = '';
  const code = await runCli(args, {
    out: (text) => {
      out += text;
    },
    error: (text) => {
      error += text;
    },
    environment: {},
  });
  return { code, out, error };
}

const importArgs = (from: string, to: string, ...extra: string[]) => [
  'import',
  'openclaw',
  '--from',
  from,
  '--state-dir',
  to,
  ...extra,
];

/** Every file under a directory with its content hash: proves the import never writes OpenClaw's state. */
function snapshotFiles(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[path.slice(root.length)] = createHash('sha256').update(readFileSync(path)).digest('hex');
    }
  };
  walk(root);
  return files;
}

async function withStore<T>(stateDirectory: string, work: (store: SessionStore) => Promise<T>): Promise<T> {
  const store = await createSqliteSessionStore({ stateDirectory, durability: 'normal' });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** What the import wrote into the store, read back: sessions, transcripts, approvals, credentials. */
async function storeContents(stateDirectory: string) {
  return withStore(stateDirectory, async (store) => {
    const { sessions } = await store.listSessions({ limit: 1000 });
    const transcripts: Record<string, unknown[]> = {};
    for (const session of sessions) transcripts[session.key] = await store.readTranscript(session.sessionId);
    return {
      sessions: [...sessions].sort((left, right) => left.key.localeCompare(right.key)),
      transcripts,
      approvals: await store.listState('pairing-approved'),
      credentials: await store.listState(defaultAuthStateNamespaces.credentials),
      jobs: await store.listState('scheduler-jobs'),
    };
  });
}

const messagesOf = (entries: readonly unknown[]): Message[] =>
  (entries as Array<{ type: string; message?: Message }>)
    .filter((entry) => entry.type === 'message')
    .map((entry) => entry.message as Message);

const secrets = [
  fixtureFacts.anthropicKeys.work,
  fixtureFacts.anthropicKeys.personal,
  fixtureFacts.gatewayToken,
  telegramToken,
  'oauth-access-token-fixture',
];

describe('switchboard import openclaw: a classic (2026.6) state directory', () => {
  let from: string;
  beforeAll(() => {
    from = join(temporaryDirectory(), 'openclaw');
    buildClassicOpenClawState(from, { telegramToken, anthropicBaseUrl });
  });

  it('prints the whole plan on a dry run and writes nothing', async () => {
    const to = join(temporaryDirectory(), 'switchboard');
    const before = snapshotFiles(from);
    const result = await cli(importArgs(from, to, '--dry-run'));
    expect(result.error).toBe('');
    expect(result.code).toBe(0);
    expect(existsSync(to)).toBe(false);
    expect(snapshotFiles(from)).toEqual(before);
    const out = result.out;
    expect(out).toContain('dry run: nothing was written');
    expect(out).toContain('config shape: classic');
    expect(out).toMatch(/changed +agents\.defaults\.thinkingDefault → agents\.defaults\.thinking/);
    expect(out).toMatch(/changed +channels\.telegram\.tokenFile → channels\.telegram\.botToken/);
    expect(out).toMatch(/unsupported +agents\.defaults\.sandbox\.mode: Switchboard's sandbox \(bubblewrap/);
    expect(out).toMatch(/unsupported +commands\.ownerAllowFrom/);
    expect(out).toMatch(/changed +session\.dmScope: not set in OpenClaw, whose default is "main"/);
    expect(out).toMatch(/will import +agent:main:main \(5 entries\): left out: 1 branch:off/);
    expect(out).toMatch(/will import +telegram\/default: sender 1001/);
    expect(out).toMatch(/will import +anthropic:work \(anthropic, api_key\)/);
    expect(out).toMatch(/unsupported +openai:me@example\.com \(openai-codex, OAuth login\)/);
    expect(out).toMatch(/will import +daily-digest "Daily digest" for agent main/);
    expect(out).toMatch(/mapped +agents\.defaults\.heartbeat\.every/);
    expect(out).toMatch(/not imported +1 pending pairing request/);
    expect(out).toMatch(/^Summary$/m);
    for (const secret of secrets) expect(out).not.toContain(secret);
  });

  it('imports every part, and a second run changes nothing', async () => {
    const to = join(temporaryDirectory(), 'switchboard');
    const before = snapshotFiles(from);
    const first = await cli(importArgs(from, to));
    expect(first.error).toBe('');
    expect(first.code).toBe(0);
    for (const secret of secrets) expect(first.out).not.toContain(secret);
    expect(snapshotFiles(from)).toEqual(before);

    // The config: converted, valid, private, pointing at the workspaces where they are.
    const configPath = join(to, 'switchboard.json');
    expect(statSync(configPath).mode & 0o777).toBe(0o600);
    const config = JSON5.parse(readFileSync(configPath, 'utf8'));
    expect(config.session.dmScope).toBe('main');
    expect(config.agents.defaults.thinking).toBe('low');
    expect(config.agents.defaults.timeZone).toBe('Europe/Berlin');
    expect(config.agents.list).toEqual([
      { id: 'main', default: true, name: 'Main', workspace: join(from, 'workspace') },
      {
        id: 'work',
        name: 'Work',
        workspace: join(from, 'workspace-work'),
        model: 'anthropic/claude-sonnet-4-6',
        tools: { deny: ['exec'] },
      },
    ]);
    expect(config.channels.telegram.botToken).toBe(telegramToken);
    expect(config.channels.telegram.tokenFile).toBeUndefined();
    expect(config.auth.order).toEqual({ anthropic: ['anthropic:work', 'anthropic:default'] });
    expect(config.auth.profiles['openai:me@example.com']).toBeUndefined();
    expect(config.gateway.auth.token).toBe(fixtureFacts.gatewayToken);
    expect(Object.keys(config.models.providers).sort()).toEqual(
      modelApis.includes('openai-completions' as never) ? ['anthropic', 'openrouter'] : ['anthropic'],
    );
    const checked = await checkConfigFile({ stateDirectory: to, environment: {} });
    expect(checked.problems.filter((problem) => problem.severity === 'error')).toEqual([]);

    // The state: credentials in order, approvals, sessions with their transcripts.
    const contents = await storeContents(to);
    expect(contents.credentials.map((record) => record.key).sort()).toEqual([
      'anthropic:default',
      'anthropic:work',
    ]);
    expect(contents.credentials.find((record) => record.key === 'anthropic:work')?.value).toMatchObject({
      provider: 'anthropic',
      mode: 'api_key',
      apiKey: fixtureFacts.anthropicKeys.work,
    });
    expect(contents.approvals.map((record) => record.key).sort()).toEqual([
      'telegram:default:1001',
      'telegram:default:1002',
    ]);
    expect(contents.sessions.map((session) => session.key)).toEqual([
      fixtureFacts.mainSessionKey,
      fixtureFacts.groupSessionKey,
      fixtureFacts.workSessionKey,
    ]);
    const main = contents.sessions.find((session) => session.key === fixtureFacts.mainSessionKey)!;
    expect(main.agentId).toBe('main');
    expect(main.lastRoute).toMatchObject({ channel: 'telegram', to: '1001', accountId: 'default' });
    expect(main.thinkingLevel).toBe('low');
    expect(main.queue).toEqual({ mode: 'collect' });
    expect(main.tokens.input).toBe(3850);
    expect(main.metadata.importedFrom).toEqual({
      source: 'openclaw',
      sessionId: '0b6f3c1e-4a5d-4c8e-9f10-000000000001',
    });
    const mainMessages = messagesOf(contents.transcripts[fixtureFacts.mainSessionKey]!);
    expect(mainMessages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
    ]);
    const toolTurn = mainMessages[1] as Extract<Message, { role: 'assistant' }>;
    expect(toolTurn.content).toEqual([
      { type: 'thinking', thinking: 'The user wants me to read the notes.', signature: 'c2lnbmF0dXJl' },
      { type: 'toolCall', id: 'toolu_01', name: 'read', arguments: { path: 'notes.md' } },
    ]);
    expect(toolTurn.stopReason).toBe('toolUse');
    expect(JSON.stringify(contents.transcripts[fixtureFacts.mainSessionKey])).not.toContain('ABANDONED');
    expect(contents.transcripts[fixtureFacts.mainSessionKey]![0]).toMatchObject({
      type: 'model_change',
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
    });
    expect(messagesOf(contents.transcripts[fixtureFacts.groupSessionKey]!)).toHaveLength(2);
    expect(first.out).toMatch(
      /imported +agent:main:telegram:group:-1001234567890 \(2 entries\): 1 unreadable lines left out/,
    );
    const work = contents.sessions.find((session) => session.key === fixtureFacts.workSessionKey)!;
    expect(work.agentId).toBe('work');
    expect(contents.jobs.map((record) => record.value)).toEqual([
      expect.objectContaining({
        id: fixtureFacts.cronJobId,
        name: 'Daily digest',
        agentId: 'main',
        schedule: { kind: 'cron', expr: '0 8 * * *', tz: 'Europe/Berlin' },
        payload: { kind: 'agentTurn', message: 'Summarize my inbox.' },
        delivery: { mode: 'announce', channel: 'telegram', to: fixtureFacts.pairedSender },
        sessionTarget: 'isolated',
      }),
    ]);
    expect(config.agents.defaults.heartbeat).toEqual({ every: '30m', target: 'last' });

    // Again: everything is already there.
    const configText = readFileSync(configPath, 'utf8');
    const second = await cli(importArgs(from, to));
    expect(second.code).toBe(0);
    expect(second.out).not.toMatch(/^ {2}imported /m);
    expect(second.out).toMatch(/unchanged +agent:main:main/);
    expect(second.out).toMatch(/unchanged +telegram\/default: sender 1001/);
    expect(second.out).toMatch(/unchanged +anthropic:work/);
    expect(readFileSync(configPath, 'utf8')).toBe(configText);
    expect(await storeContents(to)).toEqual(contents);
  });

  it('refuses to replace a switchboard.json it did not write, unless --force', async () => {
    const to = temporaryDirectory();
    const own = '{ gateway: { port: 19999 } }\n';
    writeFileSync(join(to, 'switchboard.json'), own);
    const refused = await cli(importArgs(from, to));
    expect(refused.code).toBe(1);
    expect(refused.error).toContain('already exists and was not written by this import; pass --force');
    expect(readFileSync(join(to, 'switchboard.json'), 'utf8')).toBe(own);
    expect(existsSync(join(to, 'switchboard.db'))).toBe(false);

    const dryRun = await cli(importArgs(from, to, '--dry-run'));
    expect(dryRun.code).toBe(0);
    expect(dryRun.out).toMatch(/problem +.*switchboard\.json: exists and was not written by this import/);

    const forced = await cli(importArgs(from, to, '--force'));
    expect(forced.code).toBe(0);
    expect(readFileSync(join(to, 'switchboard.json.before-openclaw-import'), 'utf8')).toBe(own);
    expect(JSON5.parse(readFileSync(join(to, 'switchboard.json'), 'utf8')).gateway.port).toBe(18789);
    // The file is now the import's own: the next run leaves it alone without --force.
    const again = await cli(importArgs(from, to));
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/unchanged +.*switchboard\.json/);
  });

  it('imports only the parts named by --only', async () => {
    const to = temporaryDirectory();
    const result = await cli(importArgs(from, to, '--only', 'pairing,sessions'));
    expect(result.code).toBe(0);
    expect(existsSync(join(to, 'switchboard.json'))).toBe(false);
    expect(result.out).not.toMatch(/^cron/m);
    expect(result.out).not.toMatch(/^credentials/m);
    const contents = await storeContents(to);
    expect(contents.sessions).toHaveLength(3);
    expect(contents.approvals).toHaveLength(2);
    expect(contents.credentials).toEqual([]);
  });

  it('says what is wrong with the command line or the source', async () => {
    const to = temporaryDirectory();
    const unknownPart = await cli(importArgs(from, to, '--only', 'config,memories'));
    expect(unknownPart.code).toBe(2);
    expect(unknownPart.error).toContain(
      '--only names unknown parts: memories; the parts are config, credentials',
    );
    const missing = await cli(importArgs(join(to, 'nowhere'), to));
    expect(missing.code).toBe(6);
    expect(missing.error).toContain(`OpenClaw state directory ${join(to, 'nowhere')} does not exist`);
    const notOpenClaw = await cli(importArgs(to, join(to, 'target')));
    expect(notOpenClaw.code).toBe(6);
    expect(notOpenClaw.error).toContain('is not an OpenClaw state directory');
    const otherSource = await cli(['import', 'hermes']);
    expect(otherSource.code).toBe(2);
    expect(otherSource.error).toContain('unknown import source: hermes');
  });

  it('documents every error code the importer throws', () => {
    const folder = join(import.meta.dirname, '..', 'src', 'import');
    const used = new Set(
      readdirSync(folder)
        .filter((name) => name.endsWith('.ts'))
        .flatMap((name) =>
          [...readFileSync(join(folder, name), 'utf8').matchAll(/'(IMPORT_[A-Z_]+)'/g)].map(
            (match) => match[1],
          ),
        ),
    );
    expect(used.size).toBeGreaterThan(3);
    for (const code of used) expect(importErrorCodes).toHaveProperty(code as string);
  });
});

describe('switchboard import openclaw: a 2026.9.6 state directory (keyed config, SQLite state)', () => {
  it('reads agents.entries, memory.search and the databases', async () => {
    const from = join(temporaryDirectory(), 'openclaw');
    build2026OpenClawState(from, { telegramToken, anthropicBaseUrl });
    const to = temporaryDirectory();
    const before = snapshotFiles(from);
    const result = await cli(importArgs(from, to, '--json'));
    expect(result.error).toBe('');
    expect(result.code).toBe(0);
    expect(snapshotFiles(from)).toEqual(before);
    const report = JSON.parse(result.out);
    expect(report.ok).toBe(true);
    expect(report.configShape).toBe('2026.9');
    const configLines = report.parts.find((part: { part: string }) => part.part === 'config').lines;
    expect(configLines).toContainEqual({
      status: 'changed',
      subject: 'agents.entries.work → agents.list[]',
      detail: 'the keyed 2026.9 shape becomes a list entry with this id',
    });
    expect(configLines).toContainEqual(
      expect.objectContaining({ status: 'unsupported', subject: 'agents.entries.work.thinkingDefault' }),
    );
    const config = JSON5.parse(readFileSync(join(to, 'switchboard.json'), 'utf8'));
    expect(config.agents.list.map((agent: { id: string }) => agent.id)).toEqual(['main', 'work']);
    expect(config.session.dmScope).toBe('per-channel-peer');
    expect(config.agents.defaults.thinking).toBe('medium');
    expect(config.auth.order).toEqual({ anthropic: ['anthropic:default', 'anthropic:work'] });
    if (config.memory !== undefined) expect(config.memory.search.provider).toBe('openai');
    else
      expect(configLines).toContainEqual(
        expect.objectContaining({ status: 'unsupported', subject: 'memory.search' }),
      );

    const contents = await storeContents(to);
    expect(contents.approvals.map((record) => record.key).sort()).toEqual([
      'telegram:default:1001',
      'telegram:ops:1002',
    ]);
    expect(contents.credentials.map((record) => record.key).sort()).toEqual([
      'anthropic:default',
      'anthropic:work',
    ]);
    expect(contents.sessions.map((session) => session.key)).toEqual(['agent:main:telegram:direct:1001']);
    const entries = contents.transcripts['agent:main:telegram:direct:1001'] as Array<Record<string, unknown>>;
    expect(entries.map((entry) => entry.type)).toEqual([
      'model_change',
      'message',
      'message',
      'message',
      'message',
      'compaction',
      'message',
    ]);
    // The compaction keeps the answer it kept in OpenClaw (firstKeptEntryId e07: sequence 5).
    expect(entries[5]).toMatchObject({ type: 'compaction', firstKeptSequence: 5, tokensBefore: 2700 });
    expect((entries[4]!.message as { content: Array<{ text: string }> }).content[0]!.text).toContain(
      'PAPAYA',
    );
    expect(contents.jobs.map((record) => record.value)).toEqual([
      expect.objectContaining({
        id: fixtureFacts.cronJobId,
        state: expect.objectContaining({ consecutiveErrors: 0 }),
      }),
    ]);
  });
});

describe('a gateway started on the imported state', () => {
  let telegram: FakeTelegram;
  let model: FakeAnthropic;
  afterEach(async () => {
    await telegram?.close();
    await model?.close();
  });

  it('answers a paired sender without a pairing prompt, in the same session, with its history', async () => {
    telegram = await createFakeTelegram({ token: telegramToken }).start();
    model = await createFakeAnthropic().start();
    const from = join(temporaryDirectory(), 'openclaw');
    buildClassicOpenClawState(from, { telegramToken, anthropicBaseUrl: model.baseURL });
    const stateDirectory = temporaryDirectory();
    const imported = await cli(importArgs(from, stateDirectory));
    expect(imported.code).toBe(0);
    // A real install talks to api.telegram.org; this one talks to the fake.
    const configPath = join(stateDirectory, 'switchboard.json');
    const config = JSON5.parse(readFileSync(configPath, 'utf8'));
    config.channels.telegram.apiRoot = telegram.apiRoot;
    config.channels.telegram.pollingTimeoutSeconds = 2;
    // Heartbeats would write to Alice on their own schedule; this test watches her chat.
    delete config.agents.defaults.heartbeat;
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    const sessionsBefore = await withStore(
      stateDirectory,
      async (store) => (await store.listSessions()).sessions.length,
    );

    const logs: string[] = [];
    const gateway = await startGateway({
      stateDirectory,
      port: 0,
      environment: {},
      logger: createGatewayLogger({ level: 'debug', write: (line) => logs.push(line) }),
    });
    try {
      telegram.user(Number(fixtureFacts.pairedSender), { firstName: 'Alice', username: 'alice' });
      const alice = telegram.privateChat(Number(fixtureFacts.pairedSender));
      telegram.pushMessage({ chat: alice, text: 'Which word did I ask you to remember?' });
      const [reply] = await telegram.waitForMessages(alice.id, 1, 60_000);
      expect(reply!.text).not.toMatch(/pair/i);

      // The model saw the imported conversation, and was called with the imported key.
      const ours = () =>
        model.requests.filter(
          (recorded) => recorded.endpoint === 'messages' && recorded.rawBody.includes('Which word did I ask'),
        );
      const request = ours()[0];
      expect(request).toBeDefined();
      const sent = JSON.stringify(request!.body?.messages);
      expect(sent).toContain(`Please remember the code word ${fixtureFacts.codeWord}`);
      expect(sent).toContain('call the dentist');
      expect(sent).toContain('Which word did I ask you to remember?');
      expect(request!.credential).toBe(fixtureFacts.anthropicKeys.work);

      // Someone who never paired still gets a code.
      telegram.user(Number(fixtureFacts.unpairedSender), { firstName: 'Mallory', username: 'mallory' });
      const mallory = telegram.privateChat(Number(fixtureFacts.unpairedSender));
      telegram.pushMessage({ chat: mallory, text: 'hi' });
      const [prompt] = await telegram.waitForMessages(mallory.id, 1, 60_000);
      expect(prompt!.text).toMatch(/[A-Z2-9]{8}/);
      expect(ours()).toHaveLength(1);
      expect(model.requests.some((recorded) => recorded.rawBody.includes('"hi"'))).toBe(false);
    } finally {
      await gateway.close('test over', 5000);
    }
    // The one message Alice got is the answer: no pairing code came before or after it.
    expect(telegram.messagesIn(Number(fixtureFacts.pairedSender))).toHaveLength(1);

    await withStore(stateDirectory, async (store) => {
      expect((await store.listSessions()).sessions.length).toBe(sessionsBefore);
      const session = await store.getSession(fixtureFacts.mainSessionKey);
      const messages = messagesOf(await store.readTranscript(session!.sessionId));
      expect(messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'toolResult',
        'assistant',
        'user',
        'assistant',
      ]);
      expect(JSON.stringify(messages[4]!.content)).toContain('Which word did I ask you to remember?');
    });
  }, 120_000);
});
