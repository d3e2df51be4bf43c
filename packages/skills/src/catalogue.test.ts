import { describe, expect, it } from 'vitest';
import { type CatalogueSkill, renderCatalogue } from './catalogue.ts';

const skill = (name: string, description = `does ${name}`): CatalogueSkill => ({
  name,
  description,
  location: `/skills/${name}/SKILL.md`,
});

describe('renderCatalogue', () => {
  it('renders a ## Skills section with XML-escaped values, ordered by name whatever the input order', () => {
    const input = [skill('zeta'), skill('alpha', 'uses <b> & "quotes"'), skill('Mid')];
    const catalogue = renderCatalogue(input);
    expect(catalogue.text.split('\n')[0]).toBe('## Skills');
    expect(catalogue.text).toContain(
      '<skill><name>alpha</name><description>uses &lt;b&gt; &amp; &quot;quotes&quot;</description><location>/skills/alpha/SKILL.md</location></skill>',
    );
    expect(catalogue.skills.map((entry) => entry.name)).toEqual(['Mid', 'alpha', 'zeta']);
    expect(renderCatalogue([...input].reverse()).text).toBe(catalogue.text);
    expect(catalogue.text).toContain('with the read tool');
    expect(renderCatalogue(input, { readTool: 'skill_read' }).text).toContain('with the skill_read tool');
    expect(renderCatalogue([]).text).toBe('');
  });

  it('leaves out skills past maxSkillsInPrompt', () => {
    const catalogue = renderCatalogue([skill('c'), skill('a'), skill('b')], {
      limits: { maxSkillsInPrompt: 2 },
    });
    expect(catalogue.skills.map((entry) => entry.name)).toEqual(['a', 'b']);
    expect(catalogue.trimming.dropped).toEqual([{ name: 'c', limit: 'maxSkillsInPrompt' }]);
  });

  it('shortens descriptions first, then drops them, then drops skills, to fit maxSkillsPromptChars', () => {
    const long = 'x'.repeat(1000);
    const skills = ['a', 'b', 'c', 'd'].map((name) => skill(name, long));
    const full = renderCatalogue(skills).text.length;
    const shortened = renderCatalogue(skills, { limits: { maxSkillsPromptChars: full - 1000 } });
    expect(shortened.trimming).toEqual({
      shortenedDescriptions: true,
      droppedDescriptions: false,
      dropped: [],
    });
    expect(
      shortened.skills.every((entry) => entry.description.length === 220 && entry.description.endsWith('…')),
    ).toBe(true);
    expect(shortened.text.length).toBeLessThanOrEqual(full - 1000);

    const bare = renderCatalogue(skills, { limits: { maxSkillsPromptChars: shortened.text.length - 100 } });
    expect(bare.trimming).toMatchObject({ droppedDescriptions: true, dropped: [] });
    expect(bare.text).toContain('<skill><name>d</name><description></description>');

    const fewer = renderCatalogue(skills, { limits: { maxSkillsPromptChars: bare.text.length - 20 } });
    expect(fewer.skills.map((entry) => entry.name)).toEqual(['a', 'b', 'c']);
    expect(fewer.trimming.dropped).toEqual([{ name: 'd', limit: 'maxSkillsPromptChars' }]);
    expect(fewer.text.length).toBeLessThanOrEqual(bare.text.length - 20);
  });
});
