import type { ThinkingLevel } from '@switchboard/core-loop';
import { describe, expect, it } from 'vitest';
import { parseSupportedThinkingLevels, pickThinkingDowngrade } from './thinking.ts';

const none = new Set<ThinkingLevel>();

describe('pickThinkingDowngrade', () => {
  it('retries with minimal when reasoning is required', () => {
    expect(
      pickThinkingDowngrade('400 invalid_request_error: reasoning is required for this model', 'off', none),
    ).toBe('minimal');
    expect(
      pickThinkingDowngrade(
        'Reasoning is mandatory for this endpoint and cannot be disabled.',
        undefined,
        none,
      ),
    ).toBe('minimal');
    expect(pickThinkingDowngrade('thinking cannot be disabled', 'off', new Set(['minimal']))).toBeUndefined();
  });

  it('picks the highest listed level below the current one', () => {
    const message =
      'thinking effort "xhigh" is not supported by this model. Supported values are: low, medium, high.';
    expect(parseSupportedThinkingLevels(message)).toEqual(['low', 'medium', 'high']);
    expect(pickThinkingDowngrade(message, 'xhigh', none)).toBe('high');
    expect(pickThinkingDowngrade(message, 'xhigh', new Set(['high']))).toBe('medium');
  });

  it('falls back to the first untried listed level when none is lower', () => {
    const message =
      "reasoning_effort 'minimal' is not supported. Supported values are: 'low', 'medium' and 'high'";
    expect(pickThinkingDowngrade(message, 'minimal', none)).toBe('low');
    expect(pickThinkingDowngrade(message, 'minimal', new Set(['low']))).toBe('medium');
    expect(pickThinkingDowngrade('Supported values are: none, minimal.', 'high', none)).toBe('minimal');
    expect(pickThinkingDowngrade('effort must be one of: max, high', 'medium', new Set(['high']))).toBe(
      'xhigh',
    );
  });

  it('turns thinking off for another "not supported" about thinking', () => {
    expect(pickThinkingDowngrade('thinking is not supported for this model', 'medium', none)).toBe('off');
    expect(pickThinkingDowngrade('This model does not support reasoning effort', 'high', none)).toBe('off');
    expect(pickThinkingDowngrade('thinking is not supported for this model', 'off', none)).toBeUndefined();
  });

  it('leaves other errors alone', () => {
    expect(pickThinkingDowngrade('image format not supported', 'high', none)).toBeUndefined();
    expect(
      pickThinkingDowngrade('tool_choice: supported values are auto, any, none', 'high', none),
    ).toBeUndefined();
    expect(pickThinkingDowngrade('429 rate_limit_error: slow down', 'high', none)).toBeUndefined();
    expect(
      pickThinkingDowngrade('temperature: supported values are between 0 and 1', 'high', none),
    ).toBeUndefined();
  });
});
