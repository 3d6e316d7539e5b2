import { describe, expect, it } from 'vitest';
import { parseEntityTags } from '../../functions/http/entity-tags.ts';
import { parsePlantId } from '../../functions/plants/plant-id.ts';
import { asRevision, type Revision, unrevised } from '../../functions/plants/plant-revision.ts';
import { ifMatchCondition, revisedPlantResponse } from '../../functions/revised-plant-response.ts';
import { hygieneHeaders } from '../support/contract.ts';

const revision = asRevision('AAAAAAAAAAAAAAAAAAAAAA') as Revision;
const other = asRevision('BBBBBBBBBBBBBBBBBBBBBB') as Revision;

describe('revisedPlantResponse', () => {
  it('answers 200 with the plant as a list item has it, its revision as a strong ETag', () => {
    const plant = { id: parsePlantId('9223372036854775807'), name: 'Fern', revision };

    expect(revisedPlantResponse(plant, { 'cache-control': 'private, no-cache' })).toStrictEqual({
      statusCode: 200,
      headers: {
        ...hygieneHeaders,
        'cache-control': 'private, no-cache',
        etag: `"${revision}"`,
      },
      body: '{"id":9223372036854775807,"name":"Fern"}',
    });
  });
});

describe('ifMatchCondition', () => {
  const condition = (header: string | undefined) =>
    ifMatchCondition(parseEntityTags('If-Match', header));

  it('asks for nothing without If-Match, and only that the plant exist for *', () => {
    expect(condition(undefined)).toBeUndefined();
    expect(condition('*')).toStrictEqual({ kind: 'any' });
  });

  it.each<[string, string, readonly Revision[]]>([
    ['a revision', `"${revision}"`, [revision]],
    ['each revision of a list', `"${revision}", "${other}"`, [revision, other]],
    ['the revision of a plant stored without one', '"0"', [unrevised]],
    ['no weak tag: strong comparison', `W/"${revision}", "${other}"`, [other]],
    ['no tag any write of ours could have made', '"not-a-revision"', []],
  ])('names %s', (_case, header, revisions) => {
    expect(condition(header)).toStrictEqual({ kind: 'one-of', revisions });
  });
});
