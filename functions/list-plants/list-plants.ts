import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { roundMs } from '../http/access-log.ts';
import { jsonResponse } from '../http/respond.ts';
import { jsonLogger } from '../log.ts';
import { authorizedEdge, type OperationDependencies } from '../operation-edge.ts';
import { listItemOf } from '../plants/list-item.ts';
import type { PlantPage, PlantStore } from '../plants/plant-store.ts';
import { parseListQuery } from './list-query.ts';
import { operation } from './operation.ts';

export type ListPlantsDependencies = OperationDependencies<Pick<PlantStore, 'list'>>;

/** The damaged items one warning line names; its `count` says how many the page met. */
const damagedNamedPerLine = 20;

/**
 * GET /plants: one page of the store, as the query asks. An item of the table the API would not
 * have written is skipped, and named in a warning line, rather than failing the page: one such
 * item would otherwise fail every walk. An operator finds its key there and removes it
 * (docs/operations.md, "A damaged item").
 */
export function makeHandler({ store, log = jsonLogger, ...edge }: ListPlantsDependencies) {
  return authorizedEdge(operation, { ...edge, log }).handler(async (event, context) => {
    const request = parseListQuery(event.queryStringParameters);
    const storeStartedAt = performance.now();
    const page = await store.list(request);
    context.storeLatencyMs = roundMs(performance.now() - storeStartedAt);
    if (page.damaged !== undefined) {
      log('warn', 'damaged items skipped', {
        requestId: context.awsRequestId,
        count: page.damaged.length,
        items: page.damaged.slice(0, damagedNamedPerLine),
      });
    }
    context.outcome = 'listed' satisfies keyof typeof operation.outcomes;
    return pageResponse(page, request.limit);
  });
}

/**
 * The 200 body is the specification's array, of {id, name, tag?} in the store's order, so the
 * next page is announced beside it: `Link: </plants?limit=N&cursor=C>; rel="next"` (RFC 8288),
 * path-absolute, with the limit the cursor was issued for; no Link on the last page. The cursor
 * is base64url and the limit digits, so neither needs escaping.
 */
export function pageResponse(page: PlantPage, limit: number): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> =
    page.next === undefined
      ? {}
      : { link: `<${operation.path}?limit=${limit}&cursor=${page.next}>; rel="next"` };
  return jsonResponse(200, page.plants.map(listItemOf), headers);
}
