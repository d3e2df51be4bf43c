// One WhatsApp account on the `baileys` transport: a personal number as a linked device.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  backoffDelay,
  type ChannelAccount,
  type ChannelStartContext,
  type ConversationTarget,
  type InboundMessage,
  type OutboundMedia,
  type OutboundMessage,
  type Peer,
  sleepOn,
} from '@switchboard/hooks';
import {
  type AnyMessageContent,
  downloadMediaMessage,
  getHistoryMsg,
  makeCacheableSignalKeyStore,
  type WAMessage,
  type WAMessageKey,
} from 'baileys';
import { jidFromPeerId, userIdFromJid } from '../address.ts';
import type { WhatsAppAccountConfig } from '../config.ts';
import { WhatsAppError } from '../errors.ts';
import { markdownToWhatsApp, renderWhatsAppMessages } from '../format.ts';
import { checkMediaSize, mediaMaxBytes } from '../media.ts';
import {
  classifyingRateLimits,
  permanentAfterPartialDelivery,
  type RateLimitRetryPolicy,
  sendRetryOf,
} from '../retry.ts';
import { createStatusReporter } from '../status.ts';
import type { Timers } from '../timers.ts';
import { openAuthStore } from './auth-state.ts';
import {
  type BaileysConnectionState,
  type ConnectionSupervisor,
  createConnectionSupervisor,
  describeState,
  disconnectReasons,
  disconnectStatusCode,
} from './connection.ts';
import { bareJid, convertInbound } from './inbound.ts';
import { toBaileysLogger } from './logger.ts';
import { baileysMediaReference, downloadBaileysMedia, type MediaDownloader } from './media.ts';
import { encodeQr, renderQrForTerminal } from './qr-code.ts';
import type { MakeWhatsAppSocket, WhatsAppSocket } from './socket.ts';

export interface BaileysAccountDependencies {
  readonly makeSocket: MakeWhatsAppSocket;
  /** Set when the factory is the test-only module: shown in the status line. */
  readonly testModule?: string;
  readonly timers: Timers;
  readonly now: () => number;
  readonly random: () => number;
  readonly textLimit: number;
  readonly rateLimitRetry: RateLimitRetryPolicy;
  /** Shows a linking QR code; default: the gateway log. */
  readonly printQr?: (rendered: string, qr: string) => void;
  /** Observes every connection state (tests, UIs). */
  readonly onConnectionState?: (state: BaileysConnectionState) => void;
  readonly downloadMedia?: MediaDownloader;
}

const groupNameTtlMs = 5 * 60_000;
const recentMessageLimit = 1_000;
const minimumTypingLeaseMs = 8_000;
const receiveAttempts = 3;

export async function startBaileysAccount(
  context: ChannelStartContext<WhatsAppAccountConfig>,
  dependencies: BaileysAccountDependencies,
): Promise<ChannelAccount> {
  const { account, logger } = context;
  const { timers, now: clock } = dependencies;
  const status = createStatusReporter(context.setStatus);
  const authFolder = join(context.dataDirectory, 'auth');
  const baileysLogger = toBaileysLogger(logger);
  const recent = new Map<string, WAMessage>();
  const groupNames = new Map<string, { name: string | undefined; at: number }>();
  const typingLeases = new Map<string, { timer: unknown; lastAt: number; intervalMs: number }>();
  const download: MediaDownloader =
    dependencies.downloadMedia ??
    ((message, socket) =>
      downloadMediaMessage(
        message,
        'stream',
        {},
        socket === undefined
          ? undefined
          : { reuploadRequest: (stale) => socket.updateMediaMessage(stale), logger: baileysLogger },
      ));
  const testNote = dependencies.testModule === undefined ? '' : ' [TEST socket factory]';
  let everOpened = false;
  let processing: Promise<void> = Promise.resolve();
  let markSettled: () => void = () => {};
  const settled = new Promise<void>((resolve) => {
    markSettled = resolve;
  });

  const remember = (message: WAMessage) => {
    const id = message.key.id;
    if (id === undefined || id === null) return;
    recent.delete(id);
    recent.set(id, message);
    if (recent.size > recentMessageLimit) recent.delete(recent.keys().next().value as string);
  };

  const onState = (state: BaileysConnectionState) => {
    dependencies.onConnectionState?.(state);
    if (state.type !== 'connecting') markSettled();
    switch (state.type) {
      case 'connecting':
        status.set({
          state: everOpened ? 'reconnecting' : 'starting',
          detail: `${describeState(state)}${testNote}`,
        });
        return;
      case 'linking':
        if (state.method === 'qr') {
          status.set({
            state: 'starting',
            detail:
              'not linked: scan the QR code printed in the gateway log with WhatsApp on the phone ' +
              `(Settings → Linked devices → Link a device)${testNote}; qr: ${state.qr}`,
          });
          if (account.printQr) showQr(state.qr);
        } else {
          const code = formatPairingCode(state.pairingCode);
          status.set({
            state: 'starting',
            detail:
              `not linked: on the phone open WhatsApp → Settings → Linked devices → Link a device → ` +
              `Link with phone number instead, and enter ${code}${testNote}`,
          });
          logger.info(`WhatsApp pairing code for account "${context.accountId}": ${code}`);
        }
        return;
      case 'open': {
        everOpened = true;
        const name = state.user.name;
        status.set({
          state: 'connected',
          detail: `linked device connected${testNote}`,
          identity: { id: userIdFromJid(bareJid(state.user.id)), name },
        });
        return;
      }
      case 'backing_off':
        status.set({
          state: 'reconnecting',
          detail: `${describeState(state)}${testNote}`,
          error: state.statusCode === undefined ? state.reason : `${state.reason} (${state.statusCode})`,
        });
        return;
      case 'logged_out':
        status.set({
          state: 'error',
          error: 'WhatsApp logged this linked device out (401)',
          detail:
            'the phone removed this linked device; restart the account (or the gateway) to link it again with a new QR code',
        });
        return;
      case 'stopped':
        status.set({ state: 'stopped' });
        return;
    }
  };

  const showQr = (qr: string) => {
    let rendered: string;
    try {
      rendered = renderQrForTerminal(encodeQr(qr));
    } catch (error) {
      logger.warn('could not render the WhatsApp QR code', { error: String(error) });
      return;
    }
    if (dependencies.printQr !== undefined) dependencies.printQr(rendered, qr);
    else {
      logger.info(
        `WhatsApp account "${context.accountId}" is not linked. On the phone open WhatsApp → Settings → ` +
          `Linked devices → Link a device, and scan:\n${rendered}\n`,
      );
    }
  };

  const groupName = async (jid: string): Promise<string | undefined> => {
    const cached = groupNames.get(jid);
    if (cached !== undefined && clock() - cached.at < groupNameTtlMs) return cached.name;
    const socket = supervisor.openSocket();
    if (socket === undefined) return cached?.name;
    let name: string | undefined;
    try {
      name = (await socket.groupMetadata(jid)).subject || undefined;
    } catch (error) {
      logger.debug('could not fetch WhatsApp group metadata', { group: jid, error: String(error) });
    }
    groupNames.set(jid, { name, at: clock() });
    return name;
  };

  const handleMessage = async (message: WAMessage, socket: WhatsAppSocket): Promise<void> => {
    const own = [socket.user?.id, socket.user?.lid].filter((jid): jid is string => typeof jid === 'string');
    const converted = await convertInbound(message, {
      channel: context.channelId,
      accountId: context.accountId,
      ownJids: own,
      resolvePhoneJid: async (lid) =>
        (await socket.signalRepository?.lidMapping?.getPNForLID(lid)) ?? undefined,
      groupName,
    });
    if (converted === undefined) return;
    remember(message);
    let inbound: InboundMessage = converted.message;
    if (converted.media !== undefined) {
      // Described only: the gateway downloads it if it admits the message (decision 0026).
      const reference = baileysMediaReference(message);
      if (reference !== undefined) inbound = { ...inbound, media: [{ ...converted.media, reference }] };
    }
    const outcome = await receiveWithRetry(inbound);
    if (outcome === undefined) return;
    status.inbound(clock());
    if (outcome.status === 'journaled' && account.sendReadReceipts) {
      const current = supervisor.openSocket();
      if (current !== undefined) {
        await current.readMessages([message.key as WAMessageKey]).catch((error: unknown) => {
          logger.debug('could not send a WhatsApp read receipt', { error: String(error) });
        });
      }
    }
  };

  const receiveWithRetry = async (inbound: InboundMessage) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await context.receive(inbound);
      } catch (error) {
        if (attempt >= receiveAttempts || context.signal.aborted) {
          logger.error('the gateway could not take a WhatsApp message; it is not acknowledged', {
            messageId: inbound.messageId,
            error: String(error),
          });
          return undefined;
        }
        await sleepOn(timers)(backoffDelay({ attempt, baseMs: 500, capMs: 30_000 }), context.signal).catch(
          () => undefined,
        );
      }
    }
  };

  const onSocket = (socket: WhatsAppSocket) => {
    const onUpsert = ({ messages, type }: { messages: WAMessage[]; type: string }) => {
      for (const message of messages) {
        if (!isWrittenToUs(message, type)) continue;
        processing = processing.then(() =>
          handleMessage(message, socket).catch((error: unknown) => {
            logger.error('could not handle a WhatsApp message', {
              messageId: message.key.id ?? undefined,
              error: error instanceof Error ? error.message : String(error),
            });
          }),
        );
      }
    };
    socket.ev.on('messages.upsert', onUpsert);
    return () => socket.ev.off('messages.upsert', onUpsert);
  };

  const supervisor: ConnectionSupervisor = createConnectionSupervisor({
    makeSocket: dependencies.makeSocket,
    openAuth: async () => {
      const store = await openAuthStore(authFolder);
      return {
        ...store,
        state: {
          creds: store.state.creds,
          keys: makeCacheableSignalKeyStore(store.state.keys, baileysLogger),
        },
      };
    },
    socketConfig: {
      logger: baileysLogger,
      browser: [account.deviceName, 'Chrome', '124.0.0'],
      markOnlineOnConnect: false,
      syncFullHistory: false,
      shouldSyncHistoryMessage: () => false,
      generateHighQualityLinkPreview: false,
      getMessage: async (key) => (key.id ? (recent.get(key.id)?.message ?? undefined) : undefined),
      // Kept (decision 0028, rule 1): makeWASocket spreads this over its defaults; undefined would erase the URL.
      ...(account.webSocketUrl === undefined ? {} : { waWebSocketUrl: account.webSocketUrl }),
    },
    pairingPhoneNumber: account.pairingPhoneNumber,
    backoff: {
      initialMs: account.reconnect.initialDelayMs,
      maxMs: account.reconnect.maxDelayMs,
      factor: account.reconnect.factor,
      jitter: 0.2,
    },
    timers,
    random: dependencies.random,
    logger,
    onState,
    onSocket,
  });

  // --- outbound -------------------------------------------------------------------------

  const targetJid = (peer: Peer): string => {
    if (peer.kind !== 'direct' && !peer.id.includes('@')) {
      throw new WhatsAppError(
        'WHATSAPP_INVALID_TARGET',
        `"${peer.id}" is not a WhatsApp group JID (…@g.us)`,
        {
          details: { peerId: peer.id },
        },
      );
    }
    return jidFromPeerId(peer.id);
  };

  const quotedFor = (jid: string, messageId: string): WAMessage => {
    const known = recent.get(messageId);
    if (known !== undefined) return known;
    // Not seen by this process (a restart): quote by id alone; WhatsApp shows the original.
    return { key: { remoteJid: jid, id: messageId, fromMe: false }, message: { conversation: '' } };
  };

  const classifySendError = (error: unknown) => {
    const code = disconnectStatusCode(error);
    if (code !== 429) return { rateLimited: false };
    const data = (error as { data?: { retryAfter?: unknown } }).data;
    const seconds = typeof data?.retryAfter === 'number' ? data.retryAfter : undefined;
    return { rateLimited: true, retryAfterMs: seconds === undefined ? undefined : seconds * 1000 };
  };

  const sendOne = async (jid: string, content: AnyMessageContent, quoted: WAMessage | undefined) => {
    let sent: WAMessage | undefined;
    try {
      sent = await classifyingRateLimits(
        async () => {
          const socket = await supervisor.waitForOpen(account.sendTimeoutMs);
          return socket.sendMessage(jid, content, quoted === undefined ? {} : { quoted });
        },
        classifySendError,
        { policy: dependencies.rateLimitRetry, what: `a message to ${jid}` },
      );
    } catch (error) {
      throw toSendError(error, jid);
    }
    const id = sent?.key.id;
    if (sent === undefined || id === undefined || id === null) {
      throw new WhatsAppError(
        'WHATSAPP_SEND_FAILED',
        `WhatsApp returned no message id for a send to ${jid}`,
        {
          retryable: true,
        },
      );
    }
    remember(sent);
    return id;
  };

  const mediaContent = async (
    media: OutboundMedia,
    caption: string | undefined,
  ): Promise<AnyMessageContent> => {
    const source = media.source;
    let data: Buffer | { url: string };
    if (source.type === 'bytes') {
      checkMediaSize(source.data.byteLength, account.mediaMaxMb, 'the attachment');
      data = Buffer.from(source.data);
    } else if (source.type === 'path') {
      const info = await stat(source.path).catch((error: unknown) => {
        throw new WhatsAppError(
          'WHATSAPP_MEDIA_FAILED',
          `cannot read the attachment ${source.path}: ${String(error)}`,
        );
      });
      checkMediaSize(info.size, account.mediaMaxMb, `the attachment ${source.path}`);
      data = { url: source.path };
    } else {
      data = { url: source.url };
    }
    const withCaption = caption === undefined || caption === '' ? {} : { caption };
    const mimetype = media.mimeType === undefined ? {} : { mimetype: media.mimeType };
    switch (media.kind) {
      case 'image':
        return { image: data, ...withCaption, ...mimetype };
      case 'video':
        return { video: data, ...withCaption, ...mimetype };
      case 'audio':
        return { audio: data, mimetype: media.mimeType ?? 'audio/mp4', ptt: false };
      case 'voice':
        return { audio: data, mimetype: media.mimeType ?? 'audio/ogg; codecs=opus', ptt: true };
      case 'sticker':
        return { sticker: data, ...mimetype };
      case 'document':
        return {
          document: data,
          mimetype: media.mimeType ?? 'application/octet-stream',
          fileName: media.fileName ?? 'file',
          ...withCaption,
        };
    }
  };

  const send = (message: OutboundMessage) => {
    const ids: string[] = [];
    return permanentAfterPartialDelivery(ids, () => sendInto(message, ids));
  };

  const sendInto = async (message: OutboundMessage, ids: string[]) => {
    const jid = targetJid(message.peer);
    let quoted =
      message.replyToMessageId === undefined ? undefined : quotedFor(jid, message.replyToMessageId);
    if (message.kind === 'text') {
      for (const chunk of renderWhatsAppMessages(message.text, dependencies.textLimit)) {
        ids.push(await sendOne(jid, { text: chunk }, quoted));
        quoted = undefined;
      }
    } else {
      const caption = message.caption === undefined ? undefined : markdownToWhatsApp(message.caption).trim();
      // Captions ride on the first image, video or document; otherwise they follow as text.
      const captionFits = caption !== undefined && caption.length <= 1024;
      let captionSent = false;
      for (const media of message.media) {
        const canCaption = !captionSent && captionFits && ['image', 'video', 'document'].includes(media.kind);
        const content = await mediaContent(media, canCaption ? caption : undefined);
        try {
          ids.push(await sendOne(jid, content, quoted));
        } catch (error) {
          if (WhatsAppError.isInstance(error)) throw error;
          throw new WhatsAppError(
            'WHATSAPP_MEDIA_FAILED',
            `could not send the ${media.kind}: ${String(error)}`,
            {
              cause: error,
            },
          );
        }
        quoted = undefined;
        if (canCaption) captionSent = true;
      }
      if (!captionSent && caption !== undefined && caption !== '') {
        for (const chunk of renderWhatsAppMessages(message.caption ?? '', dependencies.textLimit)) {
          ids.push(await sendOne(jid, { text: chunk }, undefined));
        }
      }
    }
    status.outbound(clock());
    return { messageIds: ids };
  };

  // Typing: "composing" now, "paused" once the gateway stops refreshing it (the run ended).
  const typing = async (target: ConversationTarget) => {
    const jid = targetJid(target.peer);
    const socket = supervisor.openSocket();
    if (socket === undefined) return;
    await socket.sendPresenceUpdate('composing', jid);
    const now = clock();
    const previous = typingLeases.get(jid);
    if (previous !== undefined) timers.clearTimeout(previous.timer);
    const intervalMs = previous === undefined ? 0 : Math.min(60_000, now - previous.lastAt);
    const leaseMs = Math.max(
      minimumTypingLeaseMs,
      Math.round(1.5 * Math.max(intervalMs, previous?.intervalMs ?? 0)),
    );
    const lease = {
      lastAt: now,
      intervalMs: Math.max(intervalMs, previous?.intervalMs ?? 0),
      timer: timers.setTimeout(() => {
        if (typingLeases.get(jid) !== lease) return;
        typingLeases.delete(jid);
        supervisor
          .openSocket()
          ?.sendPresenceUpdate('paused', jid)
          .catch(() => undefined);
      }, leaseMs),
    };
    typingLeases.set(jid, lease);
  };

  // The run ended: "paused" now instead of waiting for the lease to run out.
  const stopTyping = async (target: ConversationTarget) => {
    const jid = targetJid(target.peer);
    const lease = typingLeases.get(jid);
    if (lease === undefined) return;
    timers.clearTimeout(lease.timer);
    typingLeases.delete(jid);
    await supervisor.openSocket()?.sendPresenceUpdate('paused', jid);
  };

  // --- start ----------------------------------------------------------------------------

  let stopping: Promise<void> | undefined;
  const stopAll = () => {
    stopping ??= (async () => {
      for (const lease of typingLeases.values()) timers.clearTimeout(lease.timer);
      typingLeases.clear();
      await supervisor.stop();
      await processing;
    })();
    return stopping;
  };
  context.signal.addEventListener('abort', () => void stopAll(), { once: true });
  supervisor.start();

  // Resolve once the connection is open, needs linking, is logged out or is retrying (or
  // after 10 s): the gateway must not wait for a person to scan a QR code. Sends wait for
  // the connection to open.
  const startTimer = timers.setTimeout(markSettled, 10_000);
  await settled;
  timers.clearTimeout(startTimer);

  return {
    send,
    // Retried by the gateway (decision 0023): a rate limit carries WhatsApp's wait.
    sendRetry: sendRetryOf(dependencies.rateLimitRetry),
    typing,
    stopTyping,
    downloadMedia: (media, request) =>
      downloadBaileysMedia(media, request, {
        dataDirectory: context.dataDirectory,
        maxBytes: mediaMaxBytes(account.mediaMaxMb),
        download,
        socket: () => supervisor.openSocket(),
      }),
    async stop() {
      await stopAll();
      status.set({ state: 'stopped' });
    },
  };
}

/**
 * Whether a `messages.upsert` message is one a person wrote to this account, to be taken in.
 * What Baileys 7 (7.0.0-rc14) puts in `messages.upsert`, by `type` (files under `baileys/lib`):
 * - `notify`: a message received while the connection was online (`Socket/messages-recv.js`,
 *   `handleMessage`: `upsertMessage(msg, node.attrs.offline ? 'append' : 'notify')`), and a
 *   placeholder resend from the phone (`Utils/process-message.js`, with `requestId`).
 * - `append` with `key.fromMe` false: a message WhatsApp queued while this device was
 *   disconnected (the gateway was down or reconnecting). The server marks those stanzas
 *   `offline`; Baileys processes them in order (`makeOfflineNodeProcessor`), has already sent
 *   the delivery receipt before the upsert, and will never see them again: they must be taken
 *   in like `notify` ones (the gateway journal dedupes by message id either way).
 *   Notifications turned into stubs (group changes, missed calls) and plaintext newsletter
 *   posts are `append` with `fromMe` false too; `convertInbound` skips them (no text content,
 *   `@newsletter`).
 * - `append` with `key.fromMe` true: this account's own sends, re-emitted by `emitOwnEvents`
 *   (on by default; `Socket/messages-send.js`, `sendMessage`), and messages the phone sent
 *   while this device was offline. Skipped.
 * - History sync never arrives as an upsert: it is `messaging-history.set`
 *   (`Utils/process-message.js`), turned off here by `shouldSyncHistoryMessage: () => false`.
 *   Its notification is a `protocolMessage` from the phone (`fromMe`), skipped all the same.
 */
function isWrittenToUs(message: WAMessage, type: string): boolean {
  if (type !== 'notify' && type !== 'append') return false;
  if (message.key.fromMe === true) return false;
  const content = message.message;
  return content === undefined || content === null || !getHistoryMsg(content);
}

function formatPairingCode(code: string): string {
  return code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code;
}

/** Turns a Baileys send failure into a WhatsAppError with `retryable` set. */
function toSendError(error: unknown, jid: string): WhatsAppError {
  if (WhatsAppError.isInstance(error)) return error as WhatsAppError;
  const code = disconnectStatusCode(error);
  const text = error instanceof Error ? error.message : String(error);
  const retryable = code === undefined ? false : code === 408 || code === 428 || code >= 500;
  const reason = code === undefined ? '' : ` (${disconnectReasons[code] ?? `status ${code}`})`;
  return new WhatsAppError('WHATSAPP_SEND_FAILED', `WhatsApp refused a message to ${jid}: ${text}${reason}`, {
    retryable,
    cause: error,
    details: code === undefined ? undefined : { statusCode: code },
  });
}
