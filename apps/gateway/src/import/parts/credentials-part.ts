// The credentials part: API keys and tokens of OpenClaw's auth profiles into Switchboard's
// credential store (never over another credential with the same id), the profile order, and
// WhatsApp's linked-device files copied beside Switchboard's channel state.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKeyValueAuthStateStorage, defaultAuthStateNamespaces } from '@switchboard/auth-profiles';
import type { CredentialPlan } from '../credentials.ts';
import { listDirectories, listFiles } from '../openclaw-source.ts';
import type { PartReport, ReportLine } from '../report-types.ts';
import type { ImportContext } from './context.ts';
import { readTextIfPresent, sameJson, writePrivateFile } from './private-files.ts';

/** Stores the planned credentials and reports each profile. */
export async function credentialsPart(context: ImportContext, plan: CredentialPlan): Promise<PartReport> {
  const { store, selected, layout } = context;
  const lines: ReportLine[] = [];
  const storage = store === undefined ? undefined : createKeyValueAuthStateStorage(store);
  for (const { profileId, credential } of plan.credentials) {
    const note = plan.notes.find(
      (item) => item.status === 'import' && item.text.startsWith(`${profileId} (`),
    );
    const subject = note?.text ?? profileId;
    if (store === undefined || storage === undefined) {
      lines.push({ status: 'import', subject });
      continue;
    }
    const existing = await store.getState(defaultAuthStateNamespaces.credentials, profileId);
    if (existing !== undefined) {
      lines.push(
        sameJson(existing.value, credential)
          ? { status: 'unchanged', subject }
          : {
              status: 'kept',
              subject,
              detail: 'Switchboard already has another credential under this id; left alone',
            },
      );
      continue;
    }
    await storage.putCredential(profileId, credential);
    lines.push({ status: 'imported', subject });
  }
  for (const note of plan.notes)
    if (note.status !== 'import')
      lines.push({ status: note.status === 'changed' ? 'changed' : 'unsupported', subject: note.text });
  for (const [provider, ids] of Object.entries(plan.order))
    lines.push({
      status: 'mapped',
      subject: `auth.order.${provider}: ${ids.join(', ')}`,
      detail: selected.has('config')
        ? 'the order is kept in switchboard.json'
        : 'not written: the config part is not selected',
    });
  if (existsSync(join(layout.credentialsDirectory, 'oauth.json')))
    lines.push({
      status: 'not_imported',
      subject: join(layout.credentialsDirectory, 'oauth.json'),
      detail: 'legacy OAuth logins: Switchboard has none; add API keys instead',
    });
  lines.push(...copyWhatsAppCredentials(context));
  return { part: 'credentials', lines };
}

/** Copies each WhatsApp account's linked-device files (never over files Switchboard has). */
function copyWhatsAppCredentials(context: ImportContext): ReportLine[] {
  const { layout, stateDirectory, dryRun } = context;
  const lines: ReportLine[] = [];
  const root = join(layout.credentialsDirectory, 'whatsapp');
  for (const accountId of listDirectories(root)) {
    const source = join(root, accountId);
    const target = join(stateDirectory, 'channels', 'whatsapp', accountId, 'auth');
    const files = listFiles(source).filter((name) => name.endsWith('.json'));
    let copied = 0;
    let same = 0;
    let kept = 0;
    for (const name of files) {
      const from = join(source, name);
      const to = join(target, name);
      const existing = readTextIfPresent(to);
      if (existing === readFileSync(from, 'utf8')) same += 1;
      else if (existing !== undefined) kept += 1;
      else {
        copied += 1;
        if (!dryRun) {
          mkdirSync(target, { recursive: true, mode: 0o700 });
          writePrivateFile(to, readFileSync(from, 'utf8'));
        }
      }
    }
    const subject = `WhatsApp linked device of account ${accountId} (${files.length} files) → ${target}`;
    if (copied > 0)
      lines.push({
        status: dryRun ? 'import' : 'imported',
        subject,
        detail: kept > 0 ? `${kept} files Switchboard already had were left alone` : undefined,
      });
    else if (kept > 0)
      lines.push({
        status: 'kept',
        subject,
        detail: 'Switchboard already has a linked device there; left alone',
      });
    else if (same > 0) lines.push({ status: 'unchanged', subject });
  }
  return lines;
}
