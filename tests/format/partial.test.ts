// A partial answer's Markdown, closed so every platform renders it: the cut may fall anywhere.
import { describe, expect, it } from 'vitest';
import { closePartial } from '../../src/core/surface/index.ts';

describe('closePartial', () => {
  it('leaves complete text as it is, Arabic and emoji intact', () => {
    for (const text of ['', 'plain', '**bold** and `code`', 'مرحبا 👨‍👩‍👧 **عالم**', '```js\nx\n```\nafter'])
      expect(closePartial(text)).toBe(text);
  });

  it('closes an open code fence with the same fence', () => {
    expect(closePartial('see:\n```js\nconst a = 1;')).toBe('see:\n```js\nconst a = 1;\n```');
    expect(closePartial('~~~~\nx')).toBe('~~~~\nx\n~~~~');
    // A shorter fence inside does not close a longer one.
    expect(closePartial('````\n```\nx')).toBe('````\n```\nx\n````');
  });

  it('closes inline markers the cut left open, innermost first', () => {
    expect(closePartial('a **bold wor')).toBe('a **bold wor**');
    expect(closePartial('~~gone **and bo')).toBe('~~gone **and bo**~~');
    expect(closePartial('run `ls -l')).toBe('run `ls -l`');
    expect(closePartial('**bold `co')).toBe('**bold `co`**');
  });

  it('drops a marker the cut left at the very end instead of closing it on nothing', () => {
    expect(closePartial('It is **')).toBe('It is ');
    expect(closePartial('run `')).toBe('run ');
    expect(closePartial('a **bold**')).toBe('a **bold**');
  });

  it('treats markers inside inline code as text', () => {
    expect(closePartial('`a ** b` and')).toBe('`a ** b` and');
  });

  it('looks only at the last line outside code: earlier lines are whole', () => {
    expect(closePartial('**a**\nnext **b')).toBe('**a**\nnext **b**');
  });
});
