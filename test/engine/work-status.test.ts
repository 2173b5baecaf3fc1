import { describe, expect, it } from 'vitest';
import { classifyWorkStatus } from '../../src/engine/index.js';

describe('heuristic status buckets (engine.md §3.2)', () => {
  it('blocked on whole words only', () => {
    for (const content of [
      'Build FAILED on CI',
      'waiting for review',
      'an error occurred',
      'tests failing',
      'I am blocked',
      'two errors left',
    ]) {
      expect(classifyWorkStatus(content)).toBe('blocked');
    }
    for (const content of ['errorless run', 'terrors', 'unblockedness', 'awaiting', 'failedness']) {
      expect(classifyWorkStatus(content)).not.toBe('blocked');
    }
  });

  it('a negation anywhere suppresses blocked for the whole message', () => {
    expect(classifyWorkStatus('no errors, but the build failed')).toBeNull();
    expect(classifyWorkStatus('Fixed issues; the job failed once')).toBeNull();
    expect(classifyWorkStatus('zero blockers, waiting on nothing')).toBeNull();
    expect(classifyWorkStatus('resolved  error in parser')).toBeNull();
    // Word-bounded negation: "known errors" is not a negation.
    expect(classifyWorkStatus('known errors remain')).toBe('blocked');
    // The suppressed message can still land in a lower bucket.
    expect(classifyWorkStatus('no errors; build finished')).toBe('done');
  });

  it('in progress on substrings, before done', () => {
    expect(classifyWorkStatus('Currently refactoring')).toBe('in-progress');
    expect(classifyWorkStatus('working on it, half done')).toBe('in-progress');
    expect(classifyWorkStatus('status: In Progress')).toBe('in-progress');
  });

  it('done on plain substrings, so "abandoned" counts as done', () => {
    expect(classifyWorkStatus('Completed the migration')).toBe('done');
    expect(classifyWorkStatus('finished')).toBe('done');
    expect(classifyWorkStatus('we abandoned that approach')).toBe('done');
    expect(classifyWorkStatus('nothing to report')).toBeNull();
  });

  it('a failed tool-transcript line makes its turn blocked unless the message negates', () => {
    expect(classifyWorkStatus('Let me run it\nTool bash: {"command":"npm test"} -> failed: exit 1')).toBe('blocked');
    expect(classifyWorkStatus('No errors now\nTool bash: {} -> failed: exit 1')).toBeNull();
  });
});
