// One MCP server: connecting with a deadline, its tool list, reconnecting with backoff, calls.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { backoffDelay, type Logger } from '@switchboard/hooks';
import { type McpServerConfig, type McpTransportKind, transportOf } from './config.ts';
import { errorMessage, McpError, type McpErrorCode } from './errors.ts';
import type { McpEvent } from './events.ts';
import type { McpCallResult } from './results.ts';
import type { McpSdk } from './sdk.ts';
import { type JsonSchemaCheck, type PreparedSchema, prepareInputSchema } from './tool-schema.ts';
import { openTransport } from './transport.ts';

/** How long to wait before reconnecting: doubling from `initialDelayMs` up to `maxDelayMs`. */
export interface BackoffSettings {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** A connection that stayed up this long resets the doubling. */
  readonly stableAfterMs: number;
}

export const defaultBackoff: BackoffSettings = {
  initialDelayMs: 1_000,
  maxDelayMs: 60_000,
  stableAfterMs: 30_000,
};

/**
 * Where a server is: `disabled` (config says so), `idle` (lazy, not needed yet),
 * `connecting`, `connected`, `failed` (waiting to retry), `closed` (stopped for good).
 */
export type ServerState = 'disabled' | 'idle' | 'connecting' | 'connected' | 'failed' | 'closed';

/** One tool as the server listed it, prepared for offering. */
export interface ServerTool {
  /** Its name on the server. */
  readonly tool: string;
  readonly title?: string;
  readonly description: string;
  readonly schema: PreparedSchema;
  /** Checks arguments against the server's schema; undefined when it could not be compiled. */
  readonly check?: JsonSchemaCheck;
  /** Why arguments are left to the server to check (the schema did not compile). */
  readonly checkProblem?: string;
  /** Why `toolFilter` holds the tool back, when it does. */
  readonly filtered?: string;
}

/** A progress notification of a running call. */
export interface CallProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface ServerConnectionOptions {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly sdk: () => Promise<McpSdk>;
  readonly logger: Logger;
  readonly now: () => number;
  readonly backoff: BackoffSettings;
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly emit: (event: McpEvent) => void;
}

/** The last lines a stdio server wrote to stderr, kept for its status. */
const stderrLines = 20;
const stderrLineChars = 500;
const maxToolPages = 100;

/** Whether a tool name matches a `toolFilter` entry (`*` matches any run of characters). */
function globMatches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const expression = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${expression}$`).test(name);
}

/** Why the server's `toolFilter` holds `tool` back, or undefined when it lets it through. */
function filterReason(config: McpServerConfig, tool: string): string | undefined {
  const excluded = config.toolFilter?.exclude?.find((pattern) => globMatches(pattern, tool));
  if (excluded !== undefined) return `excluded by toolFilter.exclude "${excluded}"`;
  const include = config.toolFilter?.include;
  if (include !== undefined && !include.some((pattern) => globMatches(pattern, tool))) {
    return `not matched by toolFilter.include (${include.map((pattern) => `"${pattern}"`).join(', ')})`;
  }
  return undefined;
}

/**
 * The connection to one configured server. Contract: `start` begins connecting (once; later
 * calls return the attempt in progress); every failure is recorded (`error`) and retried after
 * a backoff delay until `close`; `callTool` never waits for a connection: it fails at once
 * with `MCP_SERVER_UNAVAILABLE` when the server is not connected.
 */
export class ServerConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly #options: ServerConnectionOptions;
  #state: ServerState;
  #transport: McpTransportKind;
  #error: { readonly code: McpErrorCode; readonly message: string } | undefined;
  #attempts = 0;
  #failures = 0;
  #connectedAt: number | undefined;
  #nextRetryAt: number | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #client: Client | undefined;
  #sdk: McpSdk | undefined;
  #tools: readonly ServerTool[] = [];
  #serverInfo: { readonly name: string; readonly version: string } | undefined;
  #stderr: string[] = [];
  #strippedEnv: readonly string[] = [];
  #attempt: Promise<void> | undefined;
  #connectAbort: AbortController | undefined;
  #firstAttemptDone = false;
  #refreshing = false;
  #refreshAgain = false;

  constructor(options: ServerConnectionOptions) {
    this.#options = options;
    this.name = options.name;
    this.config = options.config;
    this.#state = options.config.enabled ? 'idle' : 'disabled';
    this.#transport = transportOf(options.config);
  }

  get state(): ServerState {
    return this.#state;
  }

  /** The tools of the last successful listing (kept while reconnecting, so names stay put). */
  get tools(): readonly ServerTool[] {
    return this.#tools;
  }

  /** Facts for the status view. */
  get facts(): {
    readonly transport: McpTransportKind;
    readonly error: { readonly code: McpErrorCode; readonly message: string } | undefined;
    readonly attempts: number;
    readonly failures: number;
    readonly connectedAt: number | undefined;
    readonly nextRetryAt: number | undefined;
    readonly serverInfo: { readonly name: string; readonly version: string } | undefined;
    readonly stderr: readonly string[];
    readonly strippedEnv: readonly string[];
    readonly firstAttemptDone: boolean;
  } {
    return {
      transport: this.#transport,
      error: this.#error,
      attempts: this.#attempts,
      failures: this.#failures,
      connectedAt: this.#connectedAt,
      nextRetryAt: this.#nextRetryAt,
      serverInfo: this.#serverInfo,
      stderr: [...this.#stderr],
      strippedEnv: this.#strippedEnv,
      firstAttemptDone: this.#firstAttemptDone,
    };
  }

  /** Begins connecting when idle; resolves when the attempt in progress has finished. */
  start(): Promise<void> {
    if (this.#state === 'idle') this.#attempt = this.#connect();
    return this.#attempt ?? Promise.resolve();
  }

  /** Resolves when the first connection attempt has finished (at once if it has). */
  async firstAttempt(): Promise<void> {
    if (!this.#firstAttemptDone) await this.#attempt;
  }

  /** Calls a tool of this server. Throws `McpError` (see the class contract). */
  async callTool(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    signal: AbortSignal,
    onProgress: (progress: CallProgress) => void,
  ): Promise<McpCallResult> {
    const client = this.#client;
    const sdk = this.#sdk;
    if (this.#state !== 'connected' || client === undefined || sdk === undefined)
      throw this.#unavailable(tool);
    const timeout = this.config.requestTimeoutMs;
    try {
      return (await client.callTool({ name: tool, arguments: { ...args } }, undefined, {
        signal,
        timeout,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => onProgress(progress),
      })) as McpCallResult;
    } catch (error) {
      const details = { server: this.name, tool };
      if (signal.aborted) {
        throw new McpError(
          'MCP_TOOL_ABORTED',
          `MCP tool "${tool}" of server "${this.name}" was aborted with the run.`,
          {
            cause: error,
            details,
          },
        );
      }
      if (error instanceof sdk.McpError && error.code === sdk.ErrorCode.RequestTimeout) {
        throw new McpError(
          'MCP_TOOL_TIMEOUT',
          `MCP tool "${tool}" of server "${this.name}" did not answer within ${timeout} ms (requestTimeoutMs); the call was cancelled.`,
          { cause: error, details: { ...details, timeoutMs: timeout }, retryable: true },
        );
      }
      if (error instanceof sdk.McpError && error.code === sdk.ErrorCode.ConnectionClosed) {
        throw new McpError(
          'MCP_SERVER_CLOSED',
          `MCP server "${this.name}" closed the connection during the call of "${tool}"${this.#stderrHint()}; it is being restarted.`,
          { cause: error, details, retryable: true },
        );
      }
      throw new McpError(
        'MCP_TOOL_CALL_FAILED',
        `MCP server "${this.name}" refused the call of "${tool}": ${errorMessage(error)}`,
        { cause: error, details },
      );
    }
  }

  /** Stops for good: cancels a retry, aborts a connection attempt, closes the client. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#clearRetry();
    this.#connectAbort?.abort();
    const client = this.#client;
    this.#client = undefined;
    await Promise.allSettled([this.#attempt, client?.close()]);
    this.#options.emit({ type: 'server_closed', server: this.name });
  }

  #unavailable(tool: string): McpError {
    const retry =
      this.#nextRetryAt === undefined
        ? ''
        : `; next attempt in ${Math.max(0, Math.ceil((this.#nextRetryAt - this.#options.now()) / 1000))} s`;
    const why = this.#error === undefined ? '' : ` (${this.#error.message})`;
    return new McpError(
      'MCP_SERVER_UNAVAILABLE',
      `MCP server "${this.name}" is ${this.#state}${why}${retry}, so its tool "${tool}" cannot be called now.`,
      { details: { server: this.name, tool, state: this.#state }, retryable: this.#state !== 'closed' },
    );
  }

  async #connect(): Promise<void> {
    if (this.#state === 'closed' || this.#state === 'disabled') return;
    this.#state = 'connecting';
    this.#attempts += 1;
    this.#nextRetryAt = undefined;
    this.#stderr = [];
    this.#options.emit({ type: 'server_connecting', server: this.name, attempt: this.#attempts });
    const abort = new AbortController();
    this.#connectAbort = abort;
    const timeoutMs = this.config.connectionTimeoutMs;
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    timer.unref();
    let client: Client | undefined;
    try {
      const sdk = await this.#options.sdk();
      this.#sdk = sdk;
      const first = transportOf(this.config);
      try {
        client = await this.#open(sdk, first, abort.signal);
      } catch (error) {
        // A server without streamable HTTP answers the POST with a 4xx: try legacy SSE, as the spec advises.
        const fallback =
          this.config.transport === undefined &&
          first === 'streamable-http' &&
          error instanceof sdk.StreamableHTTPError &&
          error.code !== undefined &&
          error.code >= 400 &&
          error.code < 500 &&
          !abort.signal.aborted;
        if (!fallback) throw error;
        this.#options.logger.info('mcp: streamable HTTP refused, trying SSE', {
          server: this.name,
          error: errorMessage(error),
        });
        client = await this.#open(sdk, 'sse', abort.signal);
      }
      const tools = await this.#listTools(client, sdk, abort.signal);
      if (this.#closed()) {
        await client.close().catch(() => undefined);
        return;
      }
      this.#client = client;
      this.#tools = tools;
      this.#state = 'connected';
      this.#error = undefined;
      this.#connectedAt = this.#options.now();
      const version = client.getServerVersion();
      this.#serverInfo = version === undefined ? undefined : { name: version.name, version: version.version };
      this.#options.emit({
        type: 'server_connected',
        server: this.name,
        transport: this.#transport,
        toolCount: tools.length,
      });
    } catch (error) {
      await client?.close().catch(() => undefined);
      if (this.#closed()) return;
      if (abort.signal.aborted) {
        this.#fail(
          'MCP_CONNECT_TIMEOUT',
          `no answer to initialize and tools/list within ${timeoutMs} ms (connectionTimeoutMs)${this.#stderrHint()}`,
        );
      } else {
        this.#fail('MCP_CONNECT_FAILED', `${this.#describeConnectError(error)}${this.#stderrHint()}`);
      }
    } finally {
      clearTimeout(timer);
      this.#connectAbort = undefined;
      this.#firstAttemptDone = true;
    }
  }

  /** Opens a transport and runs the initialize handshake; the connection is watched from then on. */
  async #open(sdk: McpSdk, kind: McpTransportKind, signal: AbortSignal): Promise<Client> {
    const opened = openTransport(sdk, this.config, kind);
    this.#strippedEnv = opened.strippedEnv;
    if (opened.strippedEnv.length > 0) {
      this.#options.logger.warn('mcp: environment keys that can hijack an interpreter were not passed', {
        server: this.name,
        keys: opened.strippedEnv.join(','),
      });
    }
    opened.stderr?.setEncoding('utf8');
    opened.stderr?.on('data', (chunk: string) => this.#recordStderr(chunk));
    const client = new sdk.Client(
      { name: this.#options.clientInfo.name, version: this.#options.clientInfo.version },
      { capabilities: {} },
    );
    client.onclose = () => this.#lost(client);
    client.onerror = (error) =>
      this.#options.logger.debug('mcp: transport error', { server: this.name, error: errorMessage(error) });
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () =>
      this.#refreshTools(client, sdk),
    );
    try {
      await client.connect(opened.transport, { signal, timeout: this.config.connectionTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    deliverResponsesAfterNotifications(opened.transport);
    this.#transport = kind;
    return client;
  }

  async #listTools(client: Client, sdk: McpSdk, signal: AbortSignal | undefined): Promise<ServerTool[]> {
    const validator = new sdk.AjvJsonSchemaValidator();
    const tools: ServerTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < maxToolPages; page += 1) {
      const listed = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: this.config.requestTimeoutMs,
        signal,
      });
      for (const tool of listed.tools) {
        const schema = prepareInputSchema(tool.inputSchema);
        let check: JsonSchemaCheck | undefined;
        let checkProblem: string | undefined;
        if (schema.ok) {
          try {
            const validate = validator.getValidator(
              schema.jsonSchema as Parameters<typeof validator.getValidator>[0],
            );
            check = (value) => {
              const result = validate(value);
              return result.valid
                ? undefined
                : (result.errorMessage ?? 'the arguments do not match the schema');
            };
          } catch (error) {
            checkProblem = `its inputSchema did not compile (${errorMessage(error)}); the server checks the arguments`;
          }
        }
        const filtered = filterReason(this.config, tool.name);
        tools.push({
          tool: tool.name,
          title: tool.title,
          description: tool.description ?? '',
          schema,
          check,
          checkProblem,
          filtered,
        });
      }
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  /** `notifications/tools/list_changed`: list again (one listing at a time; a burst lists once more). */
  #refreshTools(client: Client, sdk: McpSdk): void {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return;
    }
    this.#refreshing = true;
    void (async () => {
      try {
        do {
          this.#refreshAgain = false;
          try {
            const tools = await this.#listTools(client, sdk, undefined);
            if (client !== this.#client) return;
            this.#tools = tools;
            this.#options.emit({ type: 'tools_changed', server: this.name, toolCount: tools.length });
          } catch (error) {
            this.#options.logger.warn(
              'mcp: listing tools after list_changed failed; the previous list stays',
              {
                server: this.name,
                error: errorMessage(error),
              },
            );
          }
        } while (this.#refreshAgain && client === this.#client);
      } finally {
        this.#refreshing = false;
      }
    })();
  }

  /** The connection closed under us: record it and reconnect after the backoff delay. */
  #lost(client: Client): void {
    if (client !== this.#client || this.#state === 'closed') return;
    this.#client = undefined;
    const what = this.#transport === 'stdio' ? 'the server process exited' : 'the connection closed';
    this.#fail('MCP_SERVER_CLOSED', `${what}${this.#stderrHint()}`);
  }

  #fail(code: McpErrorCode, message: string): void {
    const now = this.#options.now();
    const { initialDelayMs, maxDelayMs, stableAfterMs } = this.#options.backoff;
    if (
      this.#connectedAt !== undefined &&
      this.#state === 'connected' &&
      now - this.#connectedAt >= stableAfterMs
    ) {
      this.#failures = 0;
    }
    this.#failures += 1;
    this.#state = 'failed';
    this.#error = { code, message };
    const delay = backoffDelay({ attempt: this.#failures, baseMs: initialDelayMs, capMs: maxDelayMs });
    this.#nextRetryAt = now + delay;
    this.#clearRetry();
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#attempt = this.#connect();
    }, delay);
    this.#retryTimer.unref();
    this.#options.emit({ type: 'server_failed', server: this.name, code, error: message, retryInMs: delay });
  }

  /** Read through a method: `close` may change the state while an attempt awaits. */
  #closed(): boolean {
    return this.#state === 'closed';
  }

  #clearRetry(): void {
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
  }

  #describeConnectError(error: unknown): string {
    const message = errorMessage(error);
    if (this.#transport === 'stdio' && (error as { code?: unknown })?.code === 'ENOENT') {
      return `could not start "${this.config.command}": command not found (${message})`;
    }
    return message;
  }

  #recordStderr(chunk: string): void {
    for (const line of chunk.split(/\r?\n/)) {
      if (line.trim() === '') continue;
      this.#stderr.push(line.length > stderrLineChars ? `${line.slice(0, stderrLineChars)}…` : line);
      this.#options.logger.debug('mcp: server stderr', { server: this.name, line });
    }
    if (this.#stderr.length > stderrLines) this.#stderr.splice(0, this.#stderr.length - stderrLines);
  }

  #stderrHint(): string {
    const last = this.#stderr.at(-1);
    return last === undefined ? '' : ` (last stderr line: ${JSON.stringify(last)})`;
  }
}

/**
 * The SDK runs notification handlers a microtask later but a response at once, and forgets a
 * call's progress handler when its response arrives: progress notifications that reach us in
 * the same read as the response (a fast tool) were dropped. Responses are therefore handed
 * on one microtask later, after the handlers of the notifications that preceded them.
 */
function deliverResponsesAfterNotifications(transport: {
  onmessage?: ((message: never, extra?: never) => void) | undefined;
}): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message, extra) => {
    const isResponse =
      typeof message === 'object' &&
      message !== null &&
      'id' in message &&
      ('result' in message || 'error' in message);
    if (isResponse) queueMicrotask(() => deliver(message, extra));
    else deliver(message, extra);
  };
}
