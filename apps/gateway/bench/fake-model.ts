// Testkit's fake Anthropic API in its own process, for the gateway bench: zero latency, echo.
import { createFakeAnthropic } from '@switchboard/testkit/anthropic';

const fake = await createFakeAnthropic({ fallback: 'echo', recordLimit: 10 }).start();
process.stdout.write(`BASE_URL ${fake.baseURL}\n`);
process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)));
