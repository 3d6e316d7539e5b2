import { describe, expect, it } from 'vitest';
import { scriptJson } from '../../dev-server/api-docs.ts';

describe('scriptJson', () => {
  it('cannot close the script element it is embedded in', () => {
    const text = scriptJson({ description: '</script><script>alert(1)</script><!--' });

    expect(text).not.toMatch(/<\/script|<!--/i);
    expect(JSON.parse(text)).toEqual({ description: '</script><script>alert(1)</script><!--' });
  });
});
