// Reading FalkorDB's used memory, and when its fall counts as over (the end of an asynchronous graph deletion).
import { describe, expect, it } from 'vitest';
import { memorySettled, SETTLED_FALL_BYTES, usedMemoryOf } from '../../src/platform/falkordb/memory-settle.js';

describe('memory settle', () => {
  it('reads used_memory from the memory section, not the fields that start like it', () => {
    const info = '# Memory\r\nused_memory_human:3.00M\r\nused_memory:3145728\r\nused_memory_rss:9000000\r\n';
    expect(usedMemoryOf(info)).toBe(3_145_728);
    expect(usedMemoryOf('# Memory\r\nused_memory_rss:1\r\n')).toBeNaN();
  });

  it('takes a fall of more than a mebibyte between samples as a graph still being freed', () => {
    expect(memorySettled(400_000_000, 300_000_000)).toBe(false);
    expect(memorySettled(10_000_000, 10_000_000 - SETTLED_FALL_BYTES)).toBe(true);
    expect(memorySettled(10_000_000, 10_000_000 - SETTLED_FALL_BYTES - 1)).toBe(false);
    // Memory that grows (other queries) is no deletion under way.
    expect(memorySettled(10_000_000, 50_000_000)).toBe(true);
  });
});
