// Reading the fake model's recorded requests in scripted-model tests.
import type { RecordedRequest } from '@switchboard/testkit/anthropic';

/** True when the request's last message carries a tool result (the model is called back after a tool ran). */
export function lastIsToolResult(request: RecordedRequest): boolean {
  const last = request.messages.at(-1)?.content;
  return Array.isArray(last) && last.some((block) => (block as { type: string }).type === 'tool_result');
}
