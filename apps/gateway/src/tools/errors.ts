import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/**
 * Why a built-in tool refused a call. The agent loop hands the message to the model as the
 * tool's error result; these never reach a protocol client.
 */
export const toolErrorCodes = {
  TOOL_WORKSPACE_REFUSED:
    'A file tool was asked for a path outside the agent workspace, through a symbolic link, or for an edit that does not apply.',
  TOOL_WEB_FETCH_REFUSED:
    'web_fetch was asked for a URL it does not fetch (not http(s), with credentials, or a private, loopback or link-local address).',
  TOOL_EXEC_REFUSED:
    'host exec was asked for a command that is not a bare, allowlisted command name, or the operator denied it (or did not answer within tools.exec.approvalTimeoutSeconds).',
} as const satisfies ErrorCodeTable;

export type ToolErrorCode = keyof typeof toolErrorCodes;

/** An error a built-in tool throws: its message is what the model reads. */
export class ToolError extends SwitchboardError<ToolErrorCode> {
  constructor(code: ToolErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
