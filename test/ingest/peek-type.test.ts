import { describe, expect, it } from 'vitest';
import { isSkippableWholeLine, peekLeadingString } from '../../src/ingest/peek-type.js';

describe('peekLeadingString', () => {
  it('reads the value of a leading key without parsing', () => {
    expect(peekLeadingString('{"type":"memory.exposure","id":"x"}', 'type')).toBe('memory.exposure');
  });

  it('returns null when the key is not first, the value has escapes, or the line is cut inside it', () => {
    expect(peekLeadingString('{"id":"x","type":"a"}', 'type')).toBeNull();
    expect(peekLeadingString('{"type":"a\\"b"}', 'type')).toBeNull();
    expect(peekLeadingString('{"type":"memo', 'type')).toBeNull();
    expect(peekLeadingString(' {"type":"a"}', 'type')).toBeNull();
  });
});

describe('isSkippableWholeLine', () => {
  it('accepts a whole single event', () => {
    expect(isSkippableWholeLine('{"type":"checkpoint.skipped","id":"x","reason":"r"}', 'type')).toBe(true);
    expect(isSkippableWholeLine('{"type":"checkpoint.skipped","id":"x"}  ', 'type')).toBe(true);
  });

  it('refuses a truncated line and two events merged by an append after a truncation (engine.md §6.2)', () => {
    expect(isSkippableWholeLine('{"type":"checkpoint.skipped","id":"x","rea', 'type')).toBe(false);
    expect(
      isSkippableWholeLine('{"type":"checkpoint.skipped","id":"x","re{"type":"model.response","id":"y"}', 'type'),
    ).toBe(false);
  });
});
