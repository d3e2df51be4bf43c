// The channel conformance suite for Telegram, through grammY against FakeTelegram: once with
// long polling (the default) and once in webhook mode, where the fake POSTs updates to the
// gateway's own HTTP server with the secret token.
import { createTelegramConformanceDriver } from '@switchboard/testkit/telegram';
import { runChannelConformance } from '../conformance.ts';

runChannelConformance(() => createTelegramConformanceDriver());
runChannelConformance(() => createTelegramConformanceDriver({ mode: 'webhook' }), { label: 'webhook' });
