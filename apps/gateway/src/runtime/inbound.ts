import type { HookRunner, InboundMessage, Logger, ReceiveOutcome } from '@switchboard/hooks';
import { createRouteResolver, type RoutingConfig, resolveThreadSessionKeys } from '@switchboard/routing';
import type { InboundRecord, SessionDispatcher, SessionStore } from '@switchboard/sessions';
import { decideAccess } from '../access/access-policy.ts';
import type { PairingStore } from '../access/pairing.ts';
import { GatewayError } from '../gateway-error.ts';
import type { ManagedAccount } from './channels.ts';
import { crashPoint } from './crash-points.ts';
import type { Directives } from './directives.ts';
import {
  type ChannelJournalPayload,
  channelTurnInput,
  createOrderedQueue,
  queueOptionsFor,
  type RpcAdmission,
  type RpcJournalPayload,
  type RpcSubmission,
  resolveRequestSession,
} from './inbound-input.ts';
import type { InboundJournal } from './journal.ts';
import type { LiveConfig } from './live-config.ts';
import { type NotAnsweredLog, recordNotAnswered } from './not-answered.ts';
import type { SendOutbound } from './outbound.ts';
import type { RunOutcome } from './run/outcome.ts';
import { storedOutcome } from './run/stored-outcome.ts';
import type { RunRegistry } from './runs.ts';
import { refKey, rpcAccountId, rpcChannel, type TurnInput } from './turn-input.ts';

export interface InboundDependencies {
  /** Read per message (routing, agents, `messages.queue`, `session.mainKey`): a reload applies to the next one. */
  readonly config: LiveConfig;
  readonly store: SessionStore;
  /** Every journal transition goes through it (runtime/journal.ts). */
  readonly journal: InboundJournal;
  readonly hooks: HookRunner;
  readonly pairing: PairingStore;
  readonly directives: Directives;
  readonly runs: RunRegistry;
  readonly send: SendOutbound;
  readonly logger: Logger;
  readonly now: () => number;
  readonly dispatcher: SessionDispatcher<TurnInput>;
  /** Where access drops, pairing holds and journal duplicates are recorded for `status`. */
  readonly notAnswered: NotAnsweredLog;
  /**
   * Several replicas on one PostgreSQL (replicas/session-coordinator.ts): decides which
   * replica's dispatcher takes each message. Absent on SQLite: every message is enqueued here.
   */
  readonly replicas?: { admit(input: TurnInput): Promise<void> };
}

export interface Inbound {
  receiveFromChannel(account: ManagedAccount, message: InboundMessage): Promise<ReceiveOutcome>;
  submitRpc(submission: RpcSubmission): Promise<RpcAdmission>;
  /**
   * Resumes journaled messages that were never answered; returns how many. Takes the records
   * listed before the gateway admitted anything (see gateway.ts), so a message admitted by
   * this process is never taken for one left over by the last.
   */
  recover(records: readonly InboundRecord[]): Promise<number>;
  /** Puts an input into this gateway's dispatcher without asking the replicas (the caller holds the session's lease). */
  enqueueHere(input: TurnInput): void;
  /** Resolves the session key and agent for a protocol request. */
  resolveSession(
    sessionKey: string | undefined,
    agentId: string | undefined,
  ): { sessionKey: string; agentId: string };
}

export function createInbound(dependencies: InboundDependencies): Inbound {
  const { config, store, journal, hooks, pairing, directives, runs, send, logger, now } = dependencies;
  // The resolver caches its prepared index per config object: a reload is one new index.
  const routing = (): RoutingConfig => config.current() as unknown as RoutingConfig;
  const resolver = createRouteResolver();
  const inOrder = createOrderedQueue();

  const queueOptions = (channel: string) => queueOptionsFor(config.current(), channel);

  async function replyTo(message: InboundMessage, text: string, key: string): Promise<void> {
    try {
      await send(
        {
          kind: 'text',
          channel: message.channel,
          accountId: message.accountId,
          peer: message.peer,
          threadId: message.thread === undefined ? undefined : message.thread.id,
          ...(message.chatType === 'direct' ? {} : { replyToMessageId: message.messageId }),
          text,
        },
        { idempotencyKey: key },
      );
    } catch (error) {
      logger.warn('could not send a reply', { channel: message.channel, error: String(error) });
    }
  }

  /** Resolves (replicas only) once the message is admitted: in this dispatcher or handed to the session's owner. */
  function enqueue(input: TurnInput): Promise<void> | undefined {
    if (dependencies.replicas !== undefined) return dependencies.replicas.admit(input);
    enqueueHere(input);
    return undefined;
  }

  function enqueueHere(input: TurnInput): void {
    // A protocol message takes the queue mode its call named (default followup), without
    // debounce: the client sent it whole. Collected ones merge per session.
    const options =
      input.origin === 'rpc'
        ? { mode: input.queueMode ?? ('followup' as const), debounceMs: 0 }
        : queueOptions(input.channel);
    const result = dependencies.dispatcher.enqueue(input.sessionKey, {
      id: refKey(input.ref),
      text: input.text,
      payload: input,
      routeKey:
        input.origin === 'rpc'
          ? input.queueMode === 'collect'
            ? `rpc:${input.sessionKey}`
            : `rpc:${refKey(input.ref)}`
          : input.kind === 'compact'
            ? `compact:${refKey(input.ref)}`
            : `${input.channel}:${input.accountId}:${input.peer?.id}:${input.threadId ?? ''}`,
      ...options,
      lane: input.lane,
      ...(input.kind === 'compact' ? { mode: 'followup' as const } : {}),
    });
    if (result.status === 'dropped') {
      void journal.failed([input.ref], `dropped: ${result.reason}`);
    } else if (result.status === 'queued' || result.status === 'interrupting') {
      void journal.queued(input.ref, input.sessionKey);
    }
  }

  /** Routing, directives and queueing for a journaled channel message. */
  async function process(
    record: InboundRecord,
    payload: ChannelJournalPayload,
    recovered: boolean,
  ): Promise<void> {
    const message = payload.message;
    if (hooks.has('message_received')) void hooks.run('message_received', { message });
    if (hooks.has('inbound_claim')) {
      const claim = await hooks.run('inbound_claim', { message });
      if (claim.handled) {
        if (claim.reply !== undefined) await replyTo(message, claim.reply, `${refKey(record)}:claim`);
        await journal.replied([record]);
        return;
      }
    }
    const group = message.chatType === 'direct' ? undefined : message;
    const parentPeer = message.thread?.parentPeer;
    const route = resolver.resolveAgentRoute({
      config: routing(),
      channel: message.channel,
      accountId: message.accountId,
      peer: { kind: message.peer.kind, id: message.peer.id },
      parentPeer: parentPeer === undefined ? undefined : { kind: parentPeer.kind, id: parentPeer.id },
      guildId: group?.guildId,
      teamId: message.teamId,
      memberRoleIds: group?.memberRoleIds,
    });
    // Threads that are their own conversation (Discord) keep the peer's key; others get a suffix.
    const sessionKey =
      message.thread === undefined || parentPeer !== undefined
        ? route.sessionKey
        : resolveThreadSessionKeys({ baseSessionKey: route.sessionKey, threadId: message.thread.id })
            .sessionKey;

    let text = message.text;
    if (payload.commandsAuthorized && !recovered) {
      const outcome = await directives.handle({
        text,
        sessionKey,
        agentId: route.agentId,
        channel: message.channel,
        message,
      });
      if (outcome.kind === 'handled') {
        if (outcome.reply !== undefined) await replyTo(message, outcome.reply, `${refKey(record)}:directive`);
        await journal.replied([record], { sessionKey });
        return;
      }
      if (outcome.kind === 'compact') {
        enqueue({ ...channelTurnInput(record, message, route.agentId, sessionKey), kind: 'compact' });
        return;
      }
      if (outcome.kind === 'continue') text = outcome.text;
    }
    await enqueue({
      ...channelTurnInput(record, message, route.agentId, sessionKey),
      text,
      ...(recovered ? { recovered: true } : {}),
    });
  }

  const resolveSession = (requestedKey: string | undefined, requestedAgent: string | undefined) =>
    resolveRequestSession(config.current(), requestedKey, requestedAgent);

  /** Records a channel message the gateway will not answer (see not-answered.ts). */
  function notAnswered(message: InboundMessage, reason: 'admission' | 'duplicate', detail: string): void {
    recordNotAnswered(dependencies.notAnswered, logger, {
      reason,
      detail,
      channel: message.channel,
      accountId: message.accountId,
      chatId: message.peer.id,
      senderId: message.sender.id,
      messageId: message.messageId,
    });
  }

  async function knownOutcome(runId: string): Promise<RunOutcome | undefined> {
    const record = runs.get(runId);
    if (record?.outcome !== undefined) return record.outcome;
    const stored = await store.getState('run-results', runId);
    return stored === undefined ? undefined : storedOutcome(stored.value, runId);
  }

  return {
    resolveSession,
    enqueueHere,
    async receiveFromChannel(account, message) {
      const decision = decideAccess({
        message,
        access: account.access,
        approvedSenders: pairing.approvedSenders(message.channel, message.accountId),
        normalize:
          account.channel.normalizeAllowEntry === undefined
            ? undefined
            : (entry: string) => account.channel.normalizeAllowEntry!(entry),
      });
      if (decision.kind === 'drop') {
        notAnswered(message, 'admission', decision.reason);
        return { status: 'dropped', reason: decision.reason };
      }
      if (decision.kind === 'pair') {
        const request = await pairing.request(message.channel, message.accountId, message.sender);
        if (request.status === 'created') {
          const { code } = request.request;
          await replyTo(
            message,
            `Hi! I don't know you yet. Ask the operator of this bot to approve you with this code: ${code}\n(switchboard pairing approve ${message.channel} ${code})`,
            `pairing:${message.channel}:${message.accountId}:${code}`,
          );
          if (hooks.has('channel_pairing_requested')) {
            void hooks.run('channel_pairing_requested', {
              channel: message.channel,
              accountId: message.accountId,
              sender: message.sender,
              code,
              expiresAt: request.request.expiresAt,
            });
          }
        }
        const reason = request.status === 'limited' ? 'pairing-limit' : 'pairing-required';
        notAnswered(message, 'admission', reason);
        return { status: 'dropped', reason };
      }
      const payload: ChannelJournalPayload = {
        kind: 'channel',
        message,
        commandsAuthorized: decision.commandsAuthorized,
      };
      const journaled = await journal.received({
        channel: message.channel,
        accountId: message.accountId,
        messageId: message.messageId,
        receivedAt: now(),
        payload,
      });
      if (journaled.duplicate) {
        notAnswered(message, 'duplicate', 'already-journaled');
        return { status: 'duplicate' };
      }
      crashPoint('after-journal');
      const conversation = `${message.channel}:${message.accountId}:${message.peer.id}`;
      const processed = inOrder(conversation, () => process(journaled.record, payload, false)).catch(
        (error: unknown) => {
          logger.error('inbound processing failed', { ref: refKey(journaled.record), error: String(error) });
          void journal.failed([journaled.record], String(error));
        },
      );
      // Several replicas: answered once admitted, so a platform that waits for the answer
      // before its next delivery (a webhook) keeps the conversation's order across replicas.
      if (dependencies.replicas !== undefined) await processed;
      return { status: 'journaled' };
    },

    async submitRpc(submission) {
      const runId = submission.idempotencyKey;
      const existing = runs.get(runId);
      if (existing?.outcome !== undefined) return { status: 'finished', runId, outcome: existing.outcome };
      if (existing !== undefined)
        return { status: 'in_flight', runId, sessionKey: existing.sessionKey, agentId: existing.agentId };
      // A key finished before a restart is found through the journal below (a duplicate).

      const { sessionKey, agentId } = resolveSession(submission.sessionKey, submission.agentId);
      const text = submission.message;
      const directive = await directives.handle({ text, sessionKey, agentId, channel: submission.channel });
      if (directive.kind === 'handled')
        return { status: 'directive', runId, sessionKey, agentId, reply: directive.reply ?? '' };
      const ref = { channel: rpcChannel, accountId: rpcAccountId, messageId: runId };
      const input: TurnInput = {
        kind: directive.kind === 'compact' ? 'compact' : 'message',
        ref,
        origin: 'rpc',
        text: directive.kind === 'continue' ? directive.text : text,
        ...(submission.images === undefined || submission.images.length === 0
          ? {}
          : { images: submission.images }),
        agentId,
        sessionKey,
        chatType: 'direct',
        channel: submission.channel,
        accountId: rpcAccountId,
        runId,
        deliver: submission.deliver,
        thinking: submission.thinking,
        timeoutMs: submission.timeoutMs,
        queueMode: submission.queueMode,
        lane: submission.lane,
        receivedAt: now(),
      };
      const journaled = await journal.received({
        ...ref,
        receivedAt: input.receivedAt,
        sessionKey,
        payload: { kind: 'rpc', input } satisfies RpcJournalPayload,
      });
      if (journaled.duplicate) {
        const known = await knownOutcome(runId);
        if (known !== undefined) return { status: 'finished', runId, outcome: known };
        if (journaled.record.state === 'failed') {
          throw new GatewayError(
            'CONFLICT',
            `run ${runId} ended without a result (${journaled.record.error ?? 'failed'}); retry with a new idempotencyKey`,
          );
        }
        return { status: 'in_flight', runId, sessionKey, agentId };
      }
      runs.accept(runId, sessionKey, agentId);
      // With replicas, answered once admitted: a client that waits for this answer before
      // its next message keeps the session's order across replicas (decision 0021).
      const admitting = enqueue(input);
      if (admitting !== undefined) await admitting;
      return { status: 'accepted', runId, sessionKey, agentId };
    },

    async recover(records) {
      let count = 0;
      /** Several replicas: resolves once every resumed channel message is admitted (in receipt order). */
      const admitted: Promise<void>[] = [];
      for (const record of records) {
        const payload = record.payload as
          | ChannelJournalPayload
          | RpcJournalPayload
          | { kind: 'turn'; input: TurnInput }
          | undefined;
        // `turn`: a channel message another replica routed and handed over (decision 0021).
        if (payload?.kind === 'rpc' || payload?.kind === 'turn') {
          if (payload.input.origin === 'rpc')
            runs.accept(
              payload.input.runId ?? record.messageId,
              payload.input.sessionKey,
              payload.input.agentId,
            );
          enqueue({ ...payload.input, recovered: true });
          count += 1;
        } else if (payload?.kind === 'channel') {
          const conversation = `${payload.message.channel}:${payload.message.accountId}:${payload.message.peer.id}`;
          const processing = inOrder(conversation, () => process(record, payload, true));
          if (dependencies.replicas !== undefined) admitted.push(processing.catch(() => undefined));
          count += 1;
        } else {
          await journal.failed([record], 'journal payload missing; cannot resume');
        }
      }
      if (count > 0) logger.info('resuming messages that were not answered before the restart', { count });
      await Promise.all(admitted);
      return count;
    },
  };
}
