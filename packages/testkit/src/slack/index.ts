// @switchboard/testkit/slack: a fake Slack (Web API, Events API over signed HTTP, Socket
// Mode, files) driven by the real @slack/bolt through `clientOptions.slackApiUrl`, and the
// channel conformance driver for @switchboard/channel-slack.

export {
  createSlackConformanceDriver,
  type SlackConformanceDriver,
  type SlackConformanceDriverOptions,
} from './conformance-driver.ts';
export { createFakeSlack, type FakeSlack, type FakeSlackOptions } from './fake-slack.ts';
export { type SlackSignatureHeaders, signSlackRequest, slackSignatureHeaders } from './signing.ts';
export type {
  FakeSlackCall,
  FakeSlackConversation,
  FakeSlackConversationType,
  FakeSlackDelivery,
  FakeSlackDeliveryAttempt,
  FakeSlackEventRecord,
  FakeSlackFault,
  FakeSlackFile,
  FakeSlackHttpAnswer,
  FakeSlackMessage,
  FakeSlackPosted,
  FakeSlackTokenType,
  FakeSlackUser,
  FakeSlackUserMessageInput,
  FakeSlackWorkspace,
  FakeSlackWorkspaceOptions,
} from './types.ts';
