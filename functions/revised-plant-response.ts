import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { strongEntityTag } from './http/entity-tags.ts';
import { jsonResponse } from './http/respond.ts';
import { listItemOf } from './plants/list-item.ts';
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
