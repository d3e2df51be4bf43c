import type { ConditionWaiter } from '../shared/waiter.ts';

/** `sent` and `waitForSent` over a fake's record of outgoing messages. */
export interface SentLog<Message> {
  sent(conversationId?: string): readonly Message[];
  waitForSent(conversationId: string, count: number, timeoutMs?: number): Promise<readonly Message[]>;
}

export function sentLog<Message extends { readonly conversationId: string }>(
  sent: readonly Message[],
  waiter: ConditionWaiter,
): SentLog<Message> {
  const inConversation = (conversationId?: string): readonly Message[] =>
    conversationId === undefined
      ? [...sent]
      : sent.filter((message) => message.conversationId === conversationId);
  return {
    sent: inConversation,
    waitForSent(conversationId, count, timeoutMs) {
      return waiter.until({
        check: () => {
          const found = inConversation(conversationId);
          return found.length >= count ? found : undefined;
        },
        awaited: `${count} message(s) sent to ${conversationId}`,
        arrived: () => `got ${inConversation(conversationId).length}`,
        timeoutMs,
      });
    },
  };
}
