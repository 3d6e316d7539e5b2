import { App, type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { CfnRoute } from 'aws-cdk-lib/aws-apigatewayv2';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { type Operation, operations, routeKey } from '../../functions/operations.ts';
import { operationConstructId } from '../../infra/constructs/operation-function.ts';
import { buildStack } from '../support/synth.ts';

type Acknowledged = { readonly path: string; readonly id: string; readonly reason: string };

/** Every `Validations.of(x).acknowledge(...)` in the tree, with the construct it sits on. */
function acknowledgments(scope: IConstruct): Acknowledged[] {
  return scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path.split('/').slice(1).join('/'),
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

/** The path below the stack of the construct that holds the operation's route (`Http/Api/...`). */
function routePath(stack: Stack, operation: Operation): string {
  const routes = stack.node
    .findAll()
    .filter((each) => each instanceof CfnRoute && each.routeKey === routeKey(operation));
  expect(routes, routeKey(operation)).toHaveLength(1);
  return String(routes[0]?.node.scope?.node.path).split('/').slice(1).join('/');
}

const variants = [
  ['the default stack (Cognito issuer, no alarm e-mail)', {}],
  ['the stack with an alarm e-mail topic', { alarmEmail: 'oncall@example.com' }],
  [
    'the stack with an external issuer',
    { externalIssuer: { issuer: 'https://issuer.example.com', audiences: ['plants'] } },
  ],
  [
    'the stack with a custom domain, the CI role and the alarms ignored',
    {
      customDomain: {
        domainName: 'plants.example.com',
        certificateArn:
          'arn:aws:acm:eu-west-1:123456789012:certificate/0e9a8b7c-6d5e-4f3a-9b2c-1d0e9f8a7b6c',
      },
      ciRoleArn: 'arn:aws:iam::123456789012:role/PlantStore-ci-deploy',
      ignoreAlarmConfiguration: true,
    },
  ],
  [
    'the stack with the new-plant webhook and an alarm e-mail',
    { webhookUrl: 'https://hooks.example.com/plant/webhook', alarmEmail: 'oncall@example.com' },
  ],
] as const;

describe('cdk-nag AwsSolutions on PlantStoreStack', () => {
  it.each(variants)('finds no unacknowledged error or warning in %s', (_name, props) => {
    const { stack } = buildStack(props);
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('lets the app synthesize with the pack registered, as `cdk synth` does', () => {
    const { app } = buildStack({ alarmEmail: 'oncall@example.com' });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it('acknowledges exactly these rules, each where it applies, with a reason', () => {
    const { stack } = buildStack({ alarmEmail: 'oncall@example.com' });
    const found = acknowledgments(stack);
    /** The logical id of the operation's pre-traffic hook function. */
    const hookId = (id: string) =>
      stack.getLogicalId(
        stack.node.findChild(id).node.findChild('PreTrafficCheck').node.findChild('Function').node
          .defaultChild as CfnElement,
      );
    expect(found.map(({ path, id }) => `${path} ${id}`).sort()).toEqual(
      [
        'Alarms/AlarmTopic AwsSolutions-SNS2',
        'MachineAuth/UserPool AwsSolutions-COG2',
        'MachineAuth/UserPool AwsSolutions-COG3',
        'MachineAuth/UserPool AwsSolutions-COG8',
        ...operations.flatMap((operation) => {
          const id = operationConstructId(operation);
          return [
            `${id}/Role AwsSolutions-IAM5[Resource::*]`,
            `Deployment/${id} AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]`,
            `Deployment/${id} AwsSolutions-IAM5[Resource::<${hookId(id)}.Arn>:*]`,
            `${routePath(stack, operation)} AwsSolutions-APIG4`,
          ];
        }),
      ].sort(),
    );
    for (const { reason } of found) expect(reason.length).toBeGreaterThan(80);
  });

  it("acknowledges, for the webhook, only the secret rotation, the pipe role's ListStreams and the pipe's own dead-letter queue", () => {
    const without = acknowledgments(buildStack().stack);
    const { stack } = buildStack({
      webhookUrl: 'https://hooks.example.com/plant/webhook',
    });

    const added = acknowledgments(stack).filter(
      (found) => !without.some((each) => each.path === found.path && each.id === found.id),
    );

    expect(added.map(({ path, id }) => `${path} ${id}`).sort()).toStrictEqual([
      'NewPlantWebhook/PipeDeadLetterQueue AwsSolutions-SQS3',
      'NewPlantWebhook/PipeRole AwsSolutions-IAM5[Resource::*]',
      'NewPlantWebhook/SigningSecret AwsSolutions-SMG4',
    ]);
    for (const { reason } of added) expect(reason.length).toBeGreaterThan(80);
  });

  it('still reports what it is not told to ignore', () => {
    const stack = new Stack(new App(), 'Probe');
    new Table(stack, 'Bare', { partitionKey: { name: 'id', type: AttributeType.NUMBER } });
    const report = new AwsSolutionsChecks(undefined).validateScope(stack);
    expect(report.violations.map((violation) => violation.ruleName)).toContain('AwsSolutions-DDB3');
  });
});
