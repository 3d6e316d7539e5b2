import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlantText, plantTextPattern } from '../../../functions/plants/plant-text.ts';

describe('isPlantText', () => {
  // Clients read the rule from openapi.yaml as a plain regular expression; the validator takes
  // shortcuts for printable ASCII and for text without format characters, which must never change
  // its answer.
  const documented = new RegExp(plantTextPattern, 'u');
  const unit = fc.oneof(
    fc.string({ maxLength: 1 }),
    fc.string({ unit: 'grapheme', maxLength: 1 }),
    fc.string({ unit: 'binary', maxLength: 1 }),
    fc.constantFrom('\u200C', '\u200D', '\u202E', '\u2028', '\uFE0F', '\u{1F3F4}', '\u{E0067}'),
    fc.constantFrom('\u{E007F}', '\u{1F469}', '\u0915', '\u094D', '\u0645', 'e', '\u0301', ' '),
  );

  it('accepts exactly what the documented pattern accepts', () => {
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), (units) => {
        const text = units.join('');
        expect(isPlantText(text)).toBe(documented.test(text));
      }),
      { numRuns: 2000 },
    );
  });
});
