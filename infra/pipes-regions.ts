/**
 * The regions with EventBridge Pipes, which the new-plant webhook needs: elsewhere a deploy would
 * fail halfway (docs/decisions/0143-webhook-needs-pipes.md). From the AWS Regional Services List;
 * check a new one at https://docs.aws.amazon.com/general/latest/gr/eventbridge.html.
 */
export const pipesRegions: readonly string[] = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'sa-east-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'eu-central-1',
  'eu-north-1',
  'eu-south-1',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-south-1',
  'ap-east-1',
  'me-south-1',
  'af-south-1',
];

/** Why a webhook cannot be built in `region`, or undefined when it can. */
export function pipesRegionProblem(region: string): string | undefined {
  if (pipesRegions.includes(region)) return undefined;
  return (
    `the new-plant webhook (webhookUrl) needs EventBridge Pipes, which ${region} is not known to ` +
    'offer: deploy the stage without webhookUrl, or to another region; if Pipes is offered there ' +
    'now, add the region to infra/pipes-regions.ts'
  );
}
