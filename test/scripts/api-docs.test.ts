import { describe, expect, it } from 'vitest';
import { scriptJson } from '../../scripts/api-docs.ts';

describe('scriptJson', () => {
  it('cannot close the script element it is embedded in', () => {
    // Act
    const text = scriptJson({ description: '</script><script>alert(1)</script><!--' });

    // Assess
    expect(text).not.toMatch(/<\/script|<!--/i);
    expect(JSON.parse(text)).toEqual({ description: '</script><script>alert(1)</script><!--' });
  });
});
