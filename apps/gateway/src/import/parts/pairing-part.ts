// The pairing part: senders OpenClaw approved become approved senders in Switchboard;
// pending pairing requests are not carried over (their codes expire within the hour).
import { isRecord } from '../openclaw-source.ts';
import { approvalKey, approvedNamespace, readPairingState } from '../pairing-import.ts';
import type { PartReport, ReportLine } from '../report-types.ts';
import type { ImportContext } from './context.ts';

/** Approves each sender OpenClaw approved, on the channels `config` configures. */
export async function pairingPart(
  context: ImportContext,
  config: Record<string, unknown>,
): Promise<PartReport> {
  const { layout, store, now } = context;
  const channels = isRecord(config.channels) ? Object.keys(config.channels) : [];
  const state = await readPairingState(layout, channels);
  const lines: ReportLine[] = [];
  for (const sender of state.approved) {
    const subject = `${sender.channel}/${sender.accountId}: sender ${sender.senderId}`;
    if (store === undefined) {
      lines.push({ status: 'import', subject });
      continue;
    }
    const key = approvalKey(sender);
    if ((await store.getState(approvedNamespace, key)) !== undefined) {
      lines.push({ status: 'unchanged', subject });
      continue;
    }
    await store.putState(approvedNamespace, key, {
      channel: sender.channel,
      accountId: sender.accountId,
      senderId: sender.senderId,
      sender: { id: sender.senderId },
      approvedAt: now(),
      importedFrom: 'openclaw',
    });
    lines.push({ status: 'imported', subject });
  }
  if (state.pendingRequests > 0)
    lines.push({
      status: 'not_imported',
      subject: `${state.pendingRequests} pending pairing request(s)`,
      detail: 'a code lives an hour; those senders get a new code when they write again',
    });
  for (const problem of state.problems) lines.push({ status: 'problem', subject: problem });
  return { part: 'pairing', lines };
}
