import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type EntityTagList, strongEntityTag, strongOpaques } from './http/entity-tags.ts';
import { jsonResponse } from './http/respond.ts';
import { listItemOf } from './plants/list-item.ts';
import { asRevision, type ReplaceCondition, type Revision } from './plants/plant-revision.ts';
import type { RevisedPlant } from './plants/plant-store.ts';

/**
 * 200 with one plant as a list item has it (`id`, `name`, `tag` when it has one), so that what a
 * client reads, lists and writes back has one shape, and its revision as a strong ETag.
 */
export function revisedPlantResponse(
  plant: RevisedPlant,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(200, listItemOf(plant), {
    etag: strongEntityTag(plant.revision),
    ...headers,
  });
}

/**
 * If-Match as the store's condition on the revision that ETag names, by strong comparison, for
 * every write that evaluates it: undefined without the header, `*` asks only that the plant
 * exist; a list names the revisions it accepts, and a weak tag, or one no write of ours made,
 * names none.
 */
export function ifMatchCondition(ifMatch: EntityTagList | undefined): ReplaceCondition | undefined {
  if (ifMatch === undefined) return undefined;
  if (ifMatch.any) return { kind: 'any' };
  const revisions = strongOpaques(ifMatch)
    .map(asRevision)
    .filter((revision): revision is Revision => revision !== undefined);
  return { kind: 'one-of', revisions };
}
