// @switchboard/testkit/ollama: a fake Ollama server (native /api/chat as NDJSON, /api/tags,
// /api/show), driven by the real `ollama` library through `host`. Turns and faults are the
// scripted ones of `@switchboard/testkit/openai`.

export { createFakeOllama, FakeOllama, type FakeOllamaModel, type FakeOllamaOptions } from './fake-ollama.ts';
