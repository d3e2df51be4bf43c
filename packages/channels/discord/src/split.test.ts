import { describe, expect, it } from 'vitest';
import { renderDiscordText } from './inbound.ts';
import { splitDiscordText } from './split.ts';

const fences = (text: string) => (text.match(/^ {0,3}(```|~~~)/gm) ?? []).length;

describe('splitDiscordText', () => {
  it('keeps text within the limit whole, and drops blank text', () => {
    expect(splitDiscordText('**hello** _world_')).toEqual(['**hello** _world_']);
    expect(splitDiscordText('  \n ')).toEqual([]);
  });

  it('splits at line breaks within the limit', () => {
    const lines = Array.from({ length: 30 }, (_, index) => `line ${index} ${'x'.repeat(80)}`);
    const pieces = splitDiscordText(lines.join('\n'), 500);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(500);
    expect(pieces.join('\n')).toBe(lines.join('\n'));
  });

  it('closes and reopens a code fence (with its language) across pieces', () => {
    const code = Array.from({ length: 60 }, (_, index) => `print(${index})`).join('\n');
    const pieces = splitDiscordText(`Intro\n\n\`\`\`python\n${code}\n\`\`\`\nOutro`, 200);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(200);
      expect(fences(piece) % 2).toBe(0);
    }
    expect(pieces[1]?.startsWith('```python\n')).toBe(true);
    const joined = pieces.join('\n');
    expect(joined).toContain('print(0)');
    expect(joined).toContain('print(59)');
    expect(pieces.at(-1)?.endsWith('Outro')).toBe(true);
  });

  it('hard-cuts a single line longer than the limit', () => {
    const pieces = splitDiscordText('y'.repeat(450), 200);
    expect(pieces.map((piece) => piece.length)).toEqual([200, 200, 50]);
  });

  it('balances a fence the input never closed', () => {
    const pieces = splitDiscordText(`~~~\n${'z\n'.repeat(150)}`, 100);
    for (const piece of pieces) expect(fences(piece) % 2).toBe(0);
  });
});

describe('renderDiscordText', () => {
  const names = {
    user: (id: string) => ({ '1': 'Alice' })[id],
    role: (id: string) => ({ '2': 'admins' })[id],
    channel: (id: string) => ({ '3': 'general' })[id],
  };
  const bot = { userId: '99', roleIds: ['98'] };

  it('drops a leading mention of the bot (user or role) so commands work', () => {
    expect(renderDiscordText('<@99> /new', bot, names)).toBe('/new');
    expect(renderDiscordText('<@!99>, hello', bot, names)).toBe('hello');
    expect(renderDiscordText('<@&98> status?', bot, names)).toBe('status?');
  });

  it('renders other mentions, channels and custom emoji readably', () => {
    expect(renderDiscordText('ask <@1> and <@&2> in <#3> <:party:123> <a:wave:456>', bot, names)).toBe(
      'ask @Alice and @admins in #general :party: :wave:',
    );
    expect(renderDiscordText('thanks <@99>!', bot, names)).toBe('thanks <@99>!');
    expect(renderDiscordText('unknown <@5>', bot, names)).toBe('unknown <@5>');
  });
});
