// The help texts of the CLI: `switchboard --help` and `config validate --help`.

/** `switchboard --help`: every command, its options and the exit codes. */
export const usage: string = `Usage: switchboard <command> [options]

Gateway
  gateway run [--config FILE] [--port N] [--bind loopback|lan|ADDRESS]
                                    start the gateway in the foreground
Talking to a running gateway  (--url URL, --token TOKEN, --state-dir DIR; --json for scripts)
  agent -m TEXT [--session-key KEY] [--agent ID] [--thinking LEVEL]
                                    send a message and stream the reply
  status                            channels, runs and queue, credential cooldowns, plugins
  sessions list                     sessions, newest first
  sessions show KEY                 the conversation of a session
  sessions reset KEY | delete KEY   start a session over | remove it (transcripts are archived)
  sessions export KEY [--out FILE]  the whole transcript as JSONL (progress on stderr)
  sessions compact KEY              summarize older turns now
  pairing list [--channel ID] | approve CHANNEL CODE | deny CHANNEL CODE
  webchat [--with-token]            the WebChat address (with a sign-in link)
  skills list [--agent ID]          every skill found, in the prompt or left out and why
  skills info NAME [--agent ID]     one skill: location, tier, command, reasons
  mcp list [--agent ID]             MCP servers: state, error, each tool offered or why not
  sandbox status                    bubblewrap usable?, process limit, each agent's sandbox policy
  approvals [list] | allow-once ID | allow-always ID | deny ID   host exec commands waiting for an operator
  cron list | status                scheduled jobs (next and last run) | heartbeat tokens per day
  cron add '<job JSON>' | rm ID     schedule a job (see docs/guide/schedules.md) | remove one
  cron run ID | runs ID             run a job now | its past runs (status, delivery, tokens)
  memory status [--agent ID]        each agent's memory index: files, chunks, search mode, embeddings
  memory search QUERY [--agent ID]  search an agent's memory as memory_search does
  memory reindex [--agent ID]       re-chunk every memory file (embeddings stay cached)
  subagents list [--session-key KEY]   subagent runs: status, announcement, requester
  subagents kill ID|all | log ID [--limit N] [--before SEQ]   stop a run (and its children) | its transcript
Local checks
  doctor                            config, state directory, token, model endpoint, channels
  logs [--follow]                   the gateway log file (logging.file in the config)
  config validate [--config FILE] [--strict]
                                    every error and warning, with its key path
  config schema                     print the JSON Schema of the config
  config reload                     make the running gateway read its config again
                                    (also on SIGHUP and, by default, when the file changes)
Moving from OpenClaw
  import openclaw [--from DIR] [--dry-run] [--only PARTS] [--force]
                                    carry over config, credentials, paired senders,
                                    sessions, cron jobs and workspaces (import openclaw --help)
  --version, --help

Exit codes: 0 ok, 1 failed, 2 usage, 3 no gateway running, 4 token refused,
            5 invalid config, 6 not found,
            7 config validate: the file is missing, unreadable or not JSON5 (gateway run: 5)
`;

/** `switchboard config validate --help`. */
export const configValidateUsage: string = `Usage: switchboard config validate [--config FILE] [--strict] [--json]

Checks the config file (--config, else switchboard.json in the state directory) the way
the gateway does at start-up: the gateway's own keys, routing and sessions, each configured
channel's settings (channels.<id>, by the channel's schema) and each plugin's config
(plugins.entries.<name>.config, by the plugin's schema; plugins are imported, not started).
Every problem is printed with its full key path, errors and warnings together:

  error     stops the gateway from starting: a wrong type or value, a missing required key,
            an unknown key inside plugins.entries.<name> (a guard with a typo guards
            nothing), a plugin that cannot be loaded
  warning   reported and ignored: an unknown key elsewhere (OpenClaw configs carry keys
            Switchboard does not use), an optional plugin that cannot be loaded

An unknown key close to a known one says which it probably meant ("did you mean
agents.defaults?").

Exit codes:
  0  no errors (warnings may be printed)
  5  errors (an unset \${VAR} included); with --strict, warnings too
  7  the file is missing, cannot be read, or is not JSON5
`;
