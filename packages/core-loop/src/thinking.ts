/** Every thinking level, from none to the most; the one list the config, the protocol and `/think` use. */
export const thinkingLevels = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

/** How hard the model thinks before answering; providers map it to a budget or an effort. */
export type ThinkingLevel = (typeof thinkingLevels)[number];
