// The linked device's credentials, kept in the account's private data directory.
//
// The layout is Baileys' multi-file auth state (`creds.json` plus one `<type>-<id>.json` per
// Signal key, JSON with Baileys' BufferJSON encoding), so a folder made by Baileys' own
// `useMultiFileAuthState` can be copied in. Unlike that helper, every file is written with
// mode 0600 (the folder 0700), atomically (temp file + rename), one write per file at a time.
import { chmod, mkdir, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AuthenticationCreds,
  type AuthenticationState,
  BufferJSON,
  initAuthCreds,
  proto,
  type SignalDataSet,
  type SignalDataTypeMap,
} from 'baileys';

/** The credentials of one linked device, and how to persist them. */
export interface WhatsAppAuthStore {
  readonly state: AuthenticationState;
  /** Writes `creds.json`; call on every `creds.update`. */
  saveCreds(): Promise<void>;
  /** True once a phone linked this device (the credentials name an account). */
  isRegistered(): boolean;
  /** Deletes every credential file (after the phone logged this device out). */
  clear(): Promise<void>;
}

const fileMode = 0o600;
const folderMode = 0o700;

/** Opens (or creates) the auth state in `folder`. */
export async function openAuthStore(folder: string): Promise<WhatsAppAuthStore> {
  await mkdir(folder, { recursive: true, mode: folderMode });
  await chmod(folder, folderMode);
  const queues = new Map<string, Promise<unknown>>();

  const serialized = <T>(file: string, work: () => Promise<T>): Promise<T> => {
    const previous = queues.get(file) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    queues.set(file, settled);
    void settled.then(() => {
      if (queues.get(file) === settled) queues.delete(file);
    });
    return next;
  };

  const pathOf = (file: string) => join(folder, file.replace(/\//g, '__').replace(/:/g, '-'));

  const write = (file: string, value: unknown) =>
    serialized(file, async () => {
      const path = pathOf(file);
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(value, BufferJSON.replacer), { mode: fileMode });
      await chmod(temporary, fileMode);
      await rename(temporary, path);
    });

  const read = (file: string): Promise<unknown> =>
    serialized(file, async () => {
      try {
        return JSON.parse(await readFile(pathOf(file), 'utf8'), BufferJSON.reviver) as unknown;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    });

  const remove = (file: string) =>
    serialized(file, async () => {
      await unlink(pathOf(file)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    });

  const creds = ((await read('creds.json')) as AuthenticationCreds | null) ?? initAuthCreds();

  const state: AuthenticationState = {
    creds,
    keys: {
      async get<Type extends keyof SignalDataTypeMap>(type: Type, ids: string[]) {
        const data: { [id: string]: SignalDataTypeMap[Type] } = {};
        await Promise.all(
          ids.map(async (id) => {
            let value = (await read(`${type}-${id}.json`)) as SignalDataTypeMap[Type] | null;
            if (type === 'app-state-sync-key' && value !== null) {
              value = proto.Message.AppStateSyncKeyData.fromObject(
                value as object,
              ) as unknown as SignalDataTypeMap[Type];
            }
            if (value !== null) data[id] = value;
          }),
        );
        return data;
      },
      async set(data: SignalDataSet) {
        const tasks: Promise<void>[] = [];
        for (const [category, entries] of Object.entries(data)) {
          for (const [id, value] of Object.entries(entries ?? {})) {
            const file = `${category}-${id}.json`;
            tasks.push(value === null || value === undefined ? remove(file) : write(file, value));
          }
        }
        await Promise.all(tasks);
      },
    },
  };

  return {
    state,
    saveCreds: () => write('creds.json', creds),
    isRegistered: () => creds.me?.id !== undefined,
    async clear() {
      await Promise.all([...queues.values()]);
      for (const name of await readdir(folder))
        await rm(join(folder, name), { force: true, recursive: true });
      const fresh = initAuthCreds();
      for (const key of Object.keys(creds)) delete (creds as unknown as Record<string, unknown>)[key];
      Object.assign(creds, fresh);
    },
  };
}
