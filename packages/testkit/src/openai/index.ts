// @switchboard/testkit/openai: a fake OpenAI API (Chat Completions and Responses over SSE,
// with the error answers of OpenAI, vLLM and llama.cpp), driven by the real `openai` SDK
// through `baseURL`; and the scripted-turn types the Ollama fake shares.

export { createFakeOpenAI, FakeOpenAI, type FakeOpenAIOptions } from './fake-openai.ts';
export { defaultRetryAfterSeconds, type ServerFamily } from './faults.ts';
export type {
  ScriptedFallback,
  ScriptedFault,
  ScriptedFaultOptions,
  ScriptedFaultRule,
  ScriptedRequest,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedTurnSource,
  ScriptedUsage,
} from './scripted-server.ts';
