import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../infra/bundling/bundling.ts';
import { addStacks } from '../../infra/plant-store-app.ts';

/** cdk.json's context, as `cdk synth` starts from it. */
const cdkJsonContext = (
  JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

const prod = {
  alarmEmail: 'oncall@example.com',
  webhookUrl: 'https://hooks.example.com/plant/webhook',
  domainName: 'plants.example.com',
  certificateArn:
    'arn:aws:acm:eu-west-1:123456789012:certificate/0e9a8b7c-6d5e-4f3a-9b2c-1d0e9f8a7b6c',
};

/**
 * What infra/app.ts builds with cdk.json's context plus a `stages.prod` entry and `-c` values:
 * bundling and CloudFormation's validation left out, as in test/support/synth.ts.
 */
function synthStage(commandLine: Record<string, unknown>): Template {
  const app = new App({
    context: {
      ...cdkJsonContext,
      stages: { ...(cdkJsonContext.stages as object), prod },
      'aws:cdk:bundling-stacks': [],
      ...commandLine,
    },
    builtinCloudFormationValidation: false,
  });
  return Template.fromStack(addStacks(app).stack);
}

const webhookTypes = ['AWS::Pipes::Pipe', 'AWS::SQS::Queue', 'AWS::SecretsManager::Secret'];
const domainTypes = ['AWS::ApiGatewayV2::DomainName', 'AWS::ApiGatewayV2::ApiMapping'];

describe("the app with stages.prod in cdk.json's context", () => {
  let prodTemplate: Template;
  let devTemplate: Template;

  beforeAll(() => {
    prodTemplate = synthStage({ stage: 'prod' });
    devTemplate = synthStage({ stage: 'dev' });
  });

  it("builds prod's webhook, custom domain and alarm e-mail from -c stage=prod alone", () => {
    for (const type of [...webhookTypes, ...domainTypes]) {
      expect(Object.keys(prodTemplate.findResources(type)).length, type).toBeGreaterThan(0);
    }
    prodTemplate.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: prod.domainName,
    });
    prodTemplate.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: prod.alarmEmail,
    });
    expect(JSON.stringify(prodTemplate.toJSON())).toContain(prod.webhookUrl);
  });

  it('gives dev none of them', () => {
    for (const type of [...webhookTypes, ...domainTypes, 'AWS::SNS::Topic']) {
      devTemplate.resourceCountIs(type, 0);
    }
    const text = JSON.stringify(devTemplate.toJSON());
    for (const value of Object.values(prod)) expect(text).not.toContain(value);
  });

  it('lets a -c value override the stage for one run', () => {
    const template = synthStage({ stage: 'prod', alarmEmail: 'release@example.com' });

    template.hasResourceProperties('AWS::SNS::Subscription', {
      Endpoint: 'release@example.com',
    });
    template.resourceCountIs('AWS::Pipes::Pipe', 1);
  });
});
